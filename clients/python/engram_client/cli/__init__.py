"""The `engram` command line (the `cli` extra: typer and rich)."""

from __future__ import annotations

import sys


def main() -> None:
    try:
        from engram_client.cli.app import main as run
    except ImportError as error:  # installed without the extra: say how to get it
        sys.exit(f"the engram command needs the 'cli' extra ({error}): pip install \"engram-client[cli]\"")
    run()


__all__ = ["main"]
