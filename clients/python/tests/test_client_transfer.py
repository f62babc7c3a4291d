"""`engram import`'s bookkeeping: exact counts, resume state per target, batches the server accepts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from engram_client.cli.sources import Unit
from engram_client.cli.transfer import IMPORT_BATCH, Importer, ImportState, export_batches, target_key
from engram_client.models import Task, TaskResult


class MergingServer:
    """Answers adds as the worker does when it runs consecutive tasks of a user together: every task
    of the run lists the results of the whole run."""

    def __init__(self, run_size: int) -> None:
        self.run_size, self.submitted, self.imports = run_size, 0, []

    def add(self, messages: list[dict[str, Any]], **_: Any) -> Task:
        self.submitted += 1
        return Task(task_id=f"t{self.submitted - 1}", status="queued")

    def import_memories(self, memories: list[dict[str, Any]], *, user_id: str, wait: bool) -> Task:
        self.imports.append((user_id, memories))
        return Task(task_id=f"i{len(self.imports) - 1}", status="queued")

    def wait_for_task(self, task_id: str, raise_on_failure: bool = True) -> Task:
        if task_id.startswith("i"):
            memories = self.imports[int(task_id[1:])][1]
            return Task(task_id=task_id, status="completed", counts={"added": len(memories), "skipped": 0})
        run = int(task_id[1:]) // self.run_size
        ids = range(run * self.run_size, min((run + 1) * self.run_size, self.submitted))
        results = [TaskResult(id=f"m{i}", memory=f"memory {i}", event="ADD") for i in ids]
        return Task(task_id=task_id, status="completed", results=results)


def test_tasks_run_together_count_each_memory_once(tmp_path: Path) -> None:
    source = tmp_path / "turns.jsonl"
    source.write_text("x")
    units = [Unit("alice", [{"role": "user", "content": f"turn {i}"}]) for i in range(9)]
    state = ImportState.load(source, target_key("http://h", "k", "alice"))
    report = Importer(MergingServer(run_size=4), infer=False).run(units, state)  # type: ignore[arg-type]
    assert report.added == 9  # summing each task's results gave 4 * 4 + 4 * 4 + 1 = 33 ("33 added for 9")


def test_resume_state_is_per_target(tmp_path: Path) -> None:
    source = tmp_path / "alice.jsonl"
    source.write_text("x")
    units = [Unit("bob", memory={"memory": f"m{i}", "attachments": []}) for i in range(3)]
    bob = ImportState.load(source, target_key("http://h", "key-1", "bob"))
    assert Importer(MergingServer(1)).run(units, bob).added == 3  # type: ignore[arg-type]

    again = ImportState.load(source, target_key("http://h", "key-1", "bob"))
    assert again.done == {0: {"added": 3, "skipped": 0}}
    for other in (("http://h", "key-1", "carol"), ("http://other", "key-1", "bob"), ("http://h", "key-2", "bob")):
        assert ImportState.load(source, target_key(*other)).done == {}
    saved = source.with_name("alice.jsonl.engram-import").read_text()
    assert "key-1" not in saved and json.loads(saved)["sha256"]
    source.write_text("edited")  # another file: starts over
    assert ImportState.load(source, target_key("http://h", "key-1", "bob")).done == {}


def test_export_batches_respect_the_server_limit_and_keep_users_apart() -> None:
    units = [Unit("alice", memory={"memory": f"m{i}"}) for i in range(IMPORT_BATCH + 3)] + [
        Unit("bob", memory={"memory": "b"})
    ]
    assert [len(b) for b in export_batches(units)] == [IMPORT_BATCH, 3, 1]
    big = [Unit("alice", memory={"memory": "x" * 3_000_000}) for _ in range(3)]
    assert [len(b) for b in export_batches(big)] == [1, 1, 1]  # each request stays under the body limit
