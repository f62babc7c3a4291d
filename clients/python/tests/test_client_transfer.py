"""`engram import`'s bookkeeping: exact counts, resume state per target, batches the server accepts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from engram_client.cli.sources import Unit
from engram_client.cli.transfer import (
    IMPORT_BATCH,
    RELATION_BATCH,
    Importer,
    ImportState,
    export_batches,
    relation_batches,
    target_key,
)
from engram_client.models import Task, TaskResult


class MergingServer:
    """Answers adds as the worker does when it runs consecutive tasks of a user together: every task
    of the run lists the results of the whole run."""

    def __init__(self, run_size: int) -> None:
        self.run_size, self.submitted, self.imports = run_size, 0, []

    def add(self, messages: list[dict[str, Any]], **_: Any) -> Task:
        self.submitted += 1
        return Task(task_id=f"t{self.submitted - 1}", status="queued")

    def import_memories(
        self, memories: list[dict[str, Any]], *, user_id: str, wait: bool, relations: Any = None
    ) -> Task:
        self.imports.append((user_id, memories, relations or []))
        return Task(task_id=f"i{len(self.imports) - 1}", status="queued")

    def wait_for_task(self, task_id: str, raise_on_failure: bool = True) -> Task:
        if task_id.startswith("i"):
            _, memories, relations = self.imports[int(task_id[1:])]
            counts = {"added": len(memories), "skipped": 0, "relations_added": len(relations), "relations_skipped": 0}
            return Task(task_id=task_id, status="completed", counts=counts)
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


def test_an_exports_relations_go_after_its_memories_in_requests_of_their_own(tmp_path: Path) -> None:
    source = tmp_path / "alice.jsonl"
    source.write_text("x")
    memories = [Unit("bob", memory={"id": f"m{i}", "memory": f"m{i}", "attachments": []}) for i in range(3)]
    relations = [Unit("bob", relation={"type": "relation", "id": f"r{i}"}) for i in range(RELATION_BATCH + 2)]
    server = MergingServer(1)
    state = ImportState.load(source, target_key("http://h", "k", "bob"))
    report = Importer(server).run(memories + relations, state)  # type: ignore[arg-type]
    assert [(len(m), len(r)) for _, m, r in server.imports] == [(3, 0), (0, RELATION_BATCH), (0, 2)]
    counts = (report.memories, report.added, report.relations, report.relations_added, report.parts)
    assert counts == (3, 3, RELATION_BATCH + 2, RELATION_BATCH + 2, 3)
    assert ImportState.load(source, target_key("http://h", "k", "bob")).done[2] == {
        "relations_added": 2,
        "relations_skipped": 0,
    }


def test_relation_batches_keep_users_apart() -> None:
    units = [Unit(user, relation={"id": f"{user}{i}"}) for user in ("alice", "bob") for i in range(2)]
    assert [[u.user_id for u in b] for b in relation_batches(units)] == [["alice"] * 2, ["bob"] * 2]
