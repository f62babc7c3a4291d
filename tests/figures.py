"""Figures the reliability and security tests measure (requests tried, 5xx seen, leaks, inputs lost,
duplicates), printed in one table at the end of `make test` (see conftest.py)."""

from __future__ import annotations

import json
import os
from pathlib import Path

FOLDER = Path(__file__).resolve().parents[1] / ".pytest_cache" / "engram-figures"


def record(name: str, **figures: int) -> None:
    """Keep one test's figures; each xdist worker writes its own files, the summary reads them all."""
    FOLDER.mkdir(parents=True, exist_ok=True)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    safe = "".join(c if c.isalnum() else "-" for c in name)
    (FOLDER / f"{safe}.{worker}.json").write_text(json.dumps({"name": name, **figures}))


def collected() -> list[dict[str, object]]:
    if not FOLDER.exists():
        return []
    return [json.loads(p.read_text()) for p in sorted(FOLDER.glob("*.json"))]


def clear() -> None:
    if FOLDER.exists():
        for p in FOLDER.glob("*.json"):
            p.unlink()
