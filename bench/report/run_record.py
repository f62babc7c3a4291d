"""`bench/results/run.json`: which parts a `make bench` has run, written after each part.

A full run with a real model takes longer than one sitting on 2 cores (the 1.5B's parts alone are
hours), and a process stopped part-way left no record of what it had finished. The record is
written after every part, so `--resume` continues a stopped run at the same commit and mode: the
parts already saved are kept, the rest run, and the run counts as one run in several sittings.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Collection
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.report import report


class ResumeRefused(Exception):
    """--resume would join results of another commit or mode, or there is nothing to resume."""


class RunRecord:
    def __init__(self, data: dict[str, Any], folder: Path, sitting: dict[str, Any]) -> None:
        self.data = data
        self._folder = folder
        self._sitting = sitting
        self._began = time.perf_counter()

    @classmethod
    def begin(cls, folder: Path, *, same: dict[str, Any], machine: str, parts: list[str], resume: bool) -> RunRecord:
        """A new run, or with `resume` the stopped one in `folder`; `same` (commit, mode, model) must
        match the stopped run's, so that a run's figures come from one tree and one setting."""
        now = datetime.now(UTC).isoformat(timespec="seconds")
        sitting: dict[str, Any] = {"started": now, "machine": machine, "parts": [], "wall_s": 0.0}
        if not resume:
            data: dict[str, Any] = {"started": now, "machine": machine, **same, "parts": parts}
            data |= {"durations_s": {}, "sittings": [sitting]}
            return cls(data, folder, sitting)
        path = folder / "run.json"
        if not path.is_file():
            raise ResumeRefused(f"--resume: no {path} to resume")
        data = json.loads(path.read_text())
        if "wall_s" in data:
            raise ResumeRefused(f"--resume: the run of {data.get('started')} finished; start a new one")
        for key, want in same.items():
            if data.get(key) != want:
                raise ResumeRefused(
                    f"--resume: the stopped run's {key} is {data.get(key)}, this one's {want}; "
                    "a run's figures come from one commit, mode and model"
                )
        data["parts"] = list(dict.fromkeys([*data.get("parts", []), *parts]))
        data.setdefault("sittings", []).append(sitting)
        return cls(data, folder, sitting)

    def done(self, part: str) -> bool:
        """Whether this run has saved `part` (a result name, e.g. "locomo_recall") in an earlier sitting."""
        return part in self.data["durations_s"]

    def timed(self, part: str, fn: Callable[[], Any]) -> Any:
        """Run one part, save its result, then this record (so a stopped run knows what it kept)."""
        print(f"[{part}]", flush=True)
        start = time.perf_counter()
        data = fn()
        self.data["durations_s"][part] = round(time.perf_counter() - start, 1)
        self._sitting["parts"].append(part)
        report.save(part, data, self._folder)
        self._save()
        return data

    def end_sitting(self, every: Collection[str]) -> bool:
        """This sitting is over. The run is whole (finished; its wall time the sum of its sittings') once its
        sittings have asked for every part in `every`; until then it stays open for `--resume` (a sitting of
        some parts, then the rest). Returns whether it is whole."""
        whole = set(every) <= set(self.data["parts"])
        self._save(whole=whole)
        return whole

    def _save(self, whole: bool = False) -> None:
        self._sitting["wall_s"] = round(time.perf_counter() - self._began, 1)
        if whole:
            self.data["wall_s"] = round(sum(s["wall_s"] for s in self.data["sittings"]), 1)
        report.save("run", self.data, self._folder)
