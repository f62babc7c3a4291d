"""Headless Chromium from the system's packages for the browser tests: the memory page and /docs (never a
browser download).

Locally the tests skip with one line when no Chromium is installed; in CI (CI=true) they fail instead."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")
SCREENSHOTS = Path(os.environ.get("ENGRAM_SCREENSHOTS", "build/screenshots"))


def chromium_path() -> str | None:
    wanted = [os.environ.get("CHROMIUM_PATH", ""), *CANDIDATES]
    return next((p for p in wanted if p and Path(p).is_file()), None) or shutil.which("chromium")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    executable = chromium_path()
    missing = "no Chromium found (apt-get install chromium); the browser tests need one"
    if executable is None:
        if os.environ.get("CI") == "true":
            pytest.fail(missing)
        pytest.skip(missing)
    from playwright.sync_api import sync_playwright  # a dev dependency; it drives, it never downloads

    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=executable, headless=True, args=["--no-sandbox"])
        yield launched
        launched.close()
