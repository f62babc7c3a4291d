"""How long `import engram_client` takes in a fresh interpreter (target: at most 150 ms).

    python -m bench.labs.sdk_import                 # in this project's .venv (CLI and MCP extras installed)
    python -m bench.labs.sdk_import --isolated      # in a new venv holding only `pip install ./clients/python`

The median of --runs fresh interpreters, each measured with -X importtime (the interpreter's own
start-up excluded), and the largest imports of one run. In .venv httpx also imports its own command line
(click, rich, pygments) because they are installed there; a plain `pip install ./clients/python` has them
not, which --isolated measures.
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TARGET_MS = 150.0
_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|(\s*)(\S+)")


def one_run(python: str, module: str) -> tuple[float, list[tuple[float, str]]]:
    """(total ms of `module`, [(cumulative ms, name) of its top-level imports])."""
    done = subprocess.run([python, "-X", "importtime", "-c", f"import {module}"], capture_output=True, text=True)
    done.check_returncode()
    total, parts = 0.0, []
    for match in _LINE.finditer(done.stderr):
        cumulative_ms, indent, name = int(match.group(2)) / 1000, len(match.group(3)), match.group(4)
        if indent == 1 and name == module:
            total = cumulative_ms
        elif indent <= 3:
            parts.append((cumulative_ms, name))
    return total, sorted(parts, reverse=True)[:8]


def isolated_python(workdir: Path) -> str:
    venv.create(workdir, with_pip=True)
    python = str(workdir / "bin" / "python")
    subprocess.run([python, "-m", "pip", "install", "-q", str(ROOT / "clients" / "python")], check=True)
    return python


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.labs.sdk_import")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--isolated", action="store_true", help="measure in a venv with only the SDK")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        python = isolated_python(Path(tmp)) if args.isolated else sys.executable
        runs = [one_run(python, "engram_client") for _ in range(args.runs)]
        baseline = statistics.median(one_run(python, "httpx")[0] + one_run(python, "pydantic")[0] for _ in range(5))
    median = statistics.median(total for total, _ in runs)
    print(f"import engram_client: median {median:.0f} ms over {args.runs} runs (target {TARGET_MS:.0f} ms)")
    print(f"  httpx + pydantic alone, imported separately: median {baseline:.0f} ms")
    print("  largest imports of one run: " + ", ".join(f"{name} {ms:.0f} ms" for ms, name in runs[0][1]))
    return 0 if median <= TARGET_MS else 1


if __name__ == "__main__":
    raise SystemExit(main())
