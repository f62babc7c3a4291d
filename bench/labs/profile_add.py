"""Where an add spends its CPU, per ingest mode: the ingest part's replay (bench/parts/ingest_speed.py, the
same fresh process, moto and stub LLM) under cProfile, the top functions by their own time per add.

    python -m bench.labs.profile_add                          # every mode, 2 conversations x 30 turns
    python -m bench.labs.profile_add --modes 3 --top 30       # the live add only (MODES index)

Measure on a quiet machine: cProfile adds its own overhead to every call, so read the shares, not the
absolute milliseconds, and compare runs of the same command."""

from __future__ import annotations

import argparse
import pstats
import tempfile
from pathlib import Path

from bench.parts.ingest_speed import MODES, run_child
from bench.rig.procs import ModelServer, MotoProcess


def top(path: Path, adds: int, count: int, engram: bool = False) -> list[str]:
    """The `count` functions with the most own time, each with its own and cumulative ms per add; with
    `engram`, Engram's own functions by cumulative time (which step of an add costs what)."""
    stats = pstats.Stats(str(path))
    rows = []
    for (file, line, name), (_, calls, own, cumulative, _) in stats.stats.items():  # type: ignore[attr-defined]
        where = file.split("/site-packages/")[-1].split("/shared/")[-1]
        if engram and not where.startswith("engram/"):
            continue
        rows.append(
            (cumulative, own, calls, f"{where}:{line}({name})")
            if engram
            else (own, cumulative, calls, f"{where}:{line}({name})")
        )
    rows.sort(reverse=True)
    if engram:
        rows = [(own, cumulative, calls, label) for cumulative, own, calls, label in rows]
    return [
        f"{own * 1000 / adds:8.2f} {cumulative * 1000 / adds:9.2f} {calls / adds:8.1f}  {label}"
        for own, cumulative, calls, label in rows[:count]
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.labs.profile_add")
    parser.add_argument("--modes", default=",".join(str(i) for i in range(len(MODES))), help="indexes into MODES")
    parser.add_argument("--conversations", type=int, default=2)
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--engram", action="store_true", help="Engram's functions by cumulative time")
    args = parser.parse_args(argv)
    with ModelServer() as llm, tempfile.TemporaryDirectory() as work:
        for index in (int(m) for m in args.modes.split(",")):
            path = Path(work) / f"mode{index}.prof"
            with MotoProcess() as moto:
                row = run_child(moto.endpoint, llm.base_url, list(range(args.conversations)), index, args.turns, path)
            print(f"\n{MODES[index].name}: {row['adds']} adds, worker CPU {row['worker_cpu_ms_per_add']} ms/add")
            print("  own ms/add  cum ms/add  calls/add  function")
            print("\n".join(top(path, row["adds"], args.top, args.engram)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
