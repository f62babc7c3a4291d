"""bench/labs/ingest_commits.py: each commit's own ingest replay, unpacked without a worktree."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from bench.labs.ingest_commits import child_module, table, unpack
from bench.rig.procs import ROOT


def test_a_commit_is_unpacked_with_the_replay_its_bench_ran(tmp_path: Path) -> None:
    tree = unpack("HEAD", tmp_path / "head")
    assert tree.module == "bench.parts.ingest_speed_child"
    assert (tree.path / "shared" / "engram").is_dir()
    worktrees = subprocess.run(["git", "worktree", "list"], cwd=ROOT, capture_output=True, text=True, check=True)
    assert str(tree.path) not in worktrees.stdout


def test_a_tree_from_before_the_bench_rooms_runs_its_old_replay(tmp_path: Path) -> None:
    (tmp_path / "bench").mkdir()
    (tmp_path / "bench" / "ingest_child.py").write_text("")
    assert child_module(tmp_path) == "bench.ingest_child"


def test_a_tree_without_a_replay_is_named(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="has no ingest replay"):
        child_module(tmp_path)


def test_the_table_sets_each_commit_beside_this_tree() -> None:
    result = {
        "median_ms": {"raw": {"4228f38": 10.0, "this tree": 12.5}},
        "ratios": {"raw": {"this tree/4228f38": 1.25}},
    }
    assert table(result).splitlines()[-1] == "| raw | 10.00 ms | 12.50 ms | 1.25 |"
