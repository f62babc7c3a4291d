"""`make bench`'s run record: a run stopped part-way resumes at the same commit, mode and model only."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench.report import report
from bench.report.run_record import ResumeRefused, RunRecord

SAME: dict[str, Any] = {"commit": "abc1234", "mode": "full", "model": {"model": "qwen", "base_url": "http://m"}}


def _begin(folder: Path, resume: bool, same: dict[str, Any] = SAME, parts: list[str] | None = None) -> RunRecord:
    return RunRecord.begin(folder, same=same, machine="2 cores", parts=parts or ["recall", "state"], resume=resume)


def test_a_stopped_run_keeps_what_it_saved_and_resumes_with_the_rest(tmp_path: Path) -> None:
    first = _begin(tmp_path, resume=False)
    first.timed("locomo_recall", lambda: {"recall@10": 0.79})
    # the process stops here (a session's end): run.json already says what was saved, and is not finished
    saved = json.loads((tmp_path / "run.json").read_text())
    assert saved["durations_s"].keys() == {"locomo_recall"} and "wall_s" not in saved

    second = _begin(tmp_path, resume=True)
    assert second.done("locomo_recall") and not second.done("memory_state")
    second.timed("memory_state", lambda: {"accuracy": 0.9})
    second.end_sitting(["recall", "state"])  # every part the run asked for

    run = json.loads((tmp_path / "run.json").read_text())
    assert run["durations_s"].keys() == {"locomo_recall", "memory_state"}
    assert [s["parts"] for s in run["sittings"]] == [["locomo_recall"], ["memory_state"]]
    assert run["wall_s"] == pytest.approx(sum(s["wall_s"] for s in run["sittings"]))
    assert json.loads((tmp_path / "locomo_recall.json").read_text()) == {"recall@10": 0.79}
    assert "in 2 sittings" in report.run_line(run)


@pytest.mark.parametrize("key,other", [("commit", "def5678"), ("mode", "quick"), ("model", None)])
def test_resume_refuses_another_commit_mode_or_model(tmp_path: Path, key: str, other: Any) -> None:
    _begin(tmp_path, resume=False).timed("locomo_recall", dict)
    with pytest.raises(ResumeRefused, match=key):
        _begin(tmp_path, resume=True, same=SAME | {key: other})


def test_resume_refuses_a_finished_run_and_a_missing_one(tmp_path: Path) -> None:
    with pytest.raises(ResumeRefused, match=r"no .*run\.json"):
        _begin(tmp_path, resume=True)
    done = _begin(tmp_path, resume=False)
    done.end_sitting(["recall", "state"])
    with pytest.raises(ResumeRefused, match="finished"):
        _begin(tmp_path, resume=True)


def test_a_new_run_starts_over_whatever_was_stopped(tmp_path: Path) -> None:
    _begin(tmp_path, resume=False).timed("locomo_recall", dict)
    fresh = _begin(tmp_path, resume=False, parts=["state"])
    assert not fresh.done("locomo_recall") and fresh.data["parts"] == ["state"]


def test_a_sitting_of_some_parts_leaves_the_run_open_and_the_one_that_asks_for_the_rest_ends_it(
    tmp_path: Path,
) -> None:
    every = ["recall", "state", "qa"]
    first = _begin(tmp_path, resume=False, parts=["recall"])
    first.timed("locomo_recall", dict)
    assert first.end_sitting(every) is False
    assert "wall_s" not in json.loads((tmp_path / "run.json").read_text())

    second = _begin(tmp_path, resume=True, parts=["state", "qa"])  # qa skipped (no model): asked for, not saved
    second.timed("memory_state", dict)
    assert second.end_sitting(every) is True
    run = json.loads((tmp_path / "run.json").read_text())
    assert run["wall_s"] == pytest.approx(sum(s["wall_s"] for s in run["sittings"]))
    with pytest.raises(ResumeRefused, match="finished"):
        _begin(tmp_path, resume=True)
