"""The TypeScript SDK (clients/js, npm package engram-client) against this session's local stack: `npm ci`
when its node_modules are missing or older than package-lock.json, then `npm test` (tsc, then node's test
runner over clients/js/test) with the stack's URL and two tenants' keys. Locally the test skips with one
line when Node.js or npm is missing; in CI (CI=true) it fails instead."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.e2e.conftest import ACME_KEY, GLOBEX_KEY
from tests.e2e.stack_process import ROOT, StackProcess

pytestmark = pytest.mark.e2e

JS = ROOT / "clients" / "js"
INSTALL_TIMEOUT_S = 600
TEST_TIMEOUT_S = 300


def tools() -> tuple[str, str]:
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        missing = "no Node.js/npm found (apt-get install nodejs npm); the TypeScript SDK tests need them"
        if os.environ.get("CI") == "true":
            pytest.fail(missing)
        pytest.skip(missing)
    return node, npm


def installed(folder: Path) -> bool:
    marker = folder / "node_modules" / ".package-lock.json"  # npm writes it on every install
    return marker.is_file() and marker.stat().st_mtime >= (folder / "package-lock.json").stat().st_mtime


def run(command: list[str], env: dict[str, str], timeout: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=JS, env=env, capture_output=True, text=True, timeout=timeout, check=False)


def test_typescript_sdk_suite_passes_against_the_stack(stack: StackProcess) -> None:
    _, npm = tools()
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAM_")}
    if not installed(JS):
        done = run([npm, "ci", "--no-audit", "--no-fund"], env, INSTALL_TIMEOUT_S)
        assert done.returncode == 0, f"npm ci failed:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    env.update({"ENGRAM_TEST_URL": stack.url, "ENGRAM_TEST_KEY": ACME_KEY, "ENGRAM_TEST_OTHER_KEY": GLOBEX_KEY})
    done = run([npm, "test"], env, TEST_TIMEOUT_S)
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"npm test exited {done.returncode}:\n{output[-12000:]}"
    assert "# fail 0" in output and "# skipped 0" in output, output[-4000:]
