"""Worker CPU per add of this tree and earlier commits, in one run: the ingest part's child process per
commit, commits alternating, a fresh moto and a fresh entity index for each replay, medians of the repeats.

    python -m bench.labs.ingest_commits --against 4228f38                  # issue 43's baseline, every mode
    python -m bench.labs.ingest_commits --against 4228f38,f6574d5 --repeats 3 --conversations 2
    python -m bench.labs.ingest_commits --against 4228f38 --modes 3 --out /tmp/live.json

Why a lab of its own: CPU per add on this machine moves by a third from one hour to the next, so a figure
from another day's run cannot be set beside today's. Each commit is unpacked with `git archive` into a
temporary folder (no worktree is left behind) and its own replay runs from there, with this tree's Python,
stub LLM and LoCoMo data. A commit's replay is whatever that commit's ingest part ran (module `bench.ingest_child`
before the bench's rooms, `bench.parts.ingest_speed_child` since), so each is measured as its own bench did.

Measure on a quiet machine (nothing else on the cores); the rows are printed as they come.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.data.locomo_data import DEFAULT_PATH as LOCOMO
from bench.parts.ingest_speed import MODES
from bench.rig.procs import ROOT, ModelServer, MotoProcess, bench_env

# Where a commit keeps the ingest replay's child process, newest layout first.
CHILD_MODULES = (
    ("bench/parts/ingest_speed_child.py", "bench.parts.ingest_speed_child"),
    ("bench/ingest_child.py", "bench.ingest_child"),
)
# Before 2476e5f a bench environment kept its entity index in the tree's data folder, where it outlived the
# replay: removed before each run so every commit starts from the same empty index.
STALE_ENTITY_INDEX = ".engram/entities.sqlite3"


@dataclass(frozen=True)
class Tree:
    name: str
    path: Path
    module: str


def unpack(commit: str, into: Path) -> Tree:
    """`commit`'s files (git archive) in `into`; its replay module."""
    into.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", commit], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return Tree(commit, into, child_module(into))


def child_module(tree: Path) -> str:
    for path, module in CHILD_MODULES:
        if (tree / path).is_file():
            return module
    raise SystemExit(f"{tree} has no ingest replay ({', '.join(p for p, _ in CHILD_MODULES)})")


def replay(tree: Tree, moto: str, llm_url: str, mode: int, conversations: int, turns: int) -> dict[str, Any]:
    """One replay of `tree`'s ingest child in a fresh process; its result row."""
    (tree.path / STALE_ENTITY_INDEX).unlink(missing_ok=True)
    arg = {"moto": moto, "llm_url": llm_url, "conversations": list(range(conversations)), "mode": mode, "turns": turns}
    if tree.module == CHILD_MODULES[0][1]:
        arg["profile"] = None
    # An unpacked commit finds LoCoMo beside its own tree (a temporary folder): it reads this tree's.
    env = bench_env(PYTHONPATH=os.pathsep.join((str(tree.path), str(tree.path / "shared"))), LOCOMO_PATH=str(LOCOMO))
    command = [sys.executable, "-m", tree.module, json.dumps(arg)]
    done = subprocess.run(command, cwd=tree.path, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{tree.name}'s replay failed: {done.stderr[-2000:]}")
    row: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return row


def compare(trees: list[Tree], modes: list[int], repeats: int, conversations: int, turns: int) -> dict[str, Any]:
    """Worker CPU per add of each tree in each mode, trees alternating within each repeat."""
    cpu: dict[str, dict[str, list[float]]] = {MODES[m].name: {t.name: [] for t in trees} for m in modes}
    with ModelServer() as llm:
        for mode in modes:
            for repeat in range(repeats):
                for tree in trees:
                    with MotoProcess() as moto:
                        row = replay(tree, moto.endpoint, llm.base_url, mode, conversations, turns)
                    cpu[MODES[mode].name][tree.name].append(row["worker_cpu_ms_per_add"])
                    print(
                        f"  {MODES[mode].name} #{repeat + 1} {tree.name}: {row['worker_cpu_ms_per_add']} ms", flush=True
                    )
    head = trees[-1].name
    medians = {mode: {name: statistics.median(runs) for name, runs in by_tree.items()} for mode, by_tree in cpu.items()}
    ratios = {
        mode: {f"{head}/{name}": round(m[head] / m[name], 2) for name in m if name != head}
        for mode, m in medians.items()
    }
    return {
        "what": "worker CPU ms per add, medians of the repeats",
        "conversations": conversations,
        "turns": turns,
        "repeats": repeats,
        "runs_ms": cpu,
        "median_ms": medians,
        "ratios": ratios,
    }


def table(result: dict[str, Any]) -> str:
    medians: dict[str, dict[str, float]] = result["median_ms"]
    names = list(next(iter(medians.values())))
    ratio_names = list(next(iter(result["ratios"].values())))
    lines = [
        "| mode | " + " | ".join(names + ratio_names) + " |",
        "|---" * (1 + len(names) + len(ratio_names)) + "|",
    ]
    for mode, m in medians.items():
        cells = [f"{m[n]:.2f} ms" for n in names] + [f"{result['ratios'][mode][r]:.2f}" for r in ratio_names]
        lines.append(f"| {mode} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.labs.ingest_commits", description=__doc__.split("\n")[0])
    parser.add_argument("--against", required=True, help="comma-separated commits to set beside this tree")
    parser.add_argument("--modes", default=",".join(str(i) for i in range(len(MODES))), help="MODES indexes")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--conversations", type=int, default=2, help="the first N LoCoMo conversations")
    parser.add_argument("--turns", type=int, default=60, help="turns of each conversation")
    parser.add_argument("--out", type=Path, help="also write the result as JSON here")
    args = parser.parse_args(argv)
    modes = [int(m) for m in args.modes.split(",")]
    if any(m not in range(len(MODES)) for m in modes):
        parser.error(f"--modes: indexes 0-{len(MODES) - 1}")
    commits = [c.strip() for c in args.against.split(",") if c.strip()]
    with tempfile.TemporaryDirectory(prefix="engram-commits-") as tmp:
        trees = [unpack(c, Path(tmp) / c) for c in commits]
        trees.append(Tree("this tree", ROOT, child_module(ROOT)))
        result = compare(trees, modes, args.repeats, args.conversations, args.turns)
    print(table(result))
    if args.out:
        args.out.write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
