"""Delete-all in the worker: batches through the lifecycle, resumes after a crash without counting
twice, skips memories changed under it, and calls every registered forgetter."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import pytest

from engram.domain.models import Event, Fact, HistoryEvent, Task, TaskKind, TaskStatus
from engram.services.forget import UserForgetter
from engram.services.worker import ExtractionWorker
from engram.writes.unit_of_work import Lifecycle, history_event, index_doc, next_version
from tests.fakes import HashEmbedder, MemoryAttachmentStore, MemoryBlobs, MemoryFactStore, MemoryIndex, MemoryTaskStore


class CrashingFacts(MemoryFactStore):
    """Fails the n-th bulk close (the container dying half-way through a delete-all)."""

    def __init__(self, crash_on: int) -> None:
        super().__init__()
        self.calls = 0
        self.crash_on = crash_on
        self.before_close: list[Fact] = []  # changed by "someone else" just before a bulk close

    def close_many(self, pairs: Sequence[tuple[Fact, HistoryEvent]], valid_to: datetime) -> list[bool]:
        self.calls += 1
        if self.calls == self.crash_on:
            raise TimeoutError("container stopped")
        for fact in self.before_close:
            edited = next_version(fact, fact.text + " (edited)")
            self.replace(fact, edited, history_event(edited, Event.UPDATE, fact.text, edited.text, "someone"))
        self.before_close = []
        return super().close_many(pairs, valid_to)


def world(crash_on: int = 0, users: Sequence[str] = ("alice",), count: int = 25) -> tuple[Lifecycle, MemoryTaskStore]:
    facts = CrashingFacts(crash_on)
    life = Lifecycle(facts, MemoryIndex(), HashEmbedder(), MemoryAttachmentStore(), MemoryBlobs())
    for user in users:
        batch = life.changes("acme", user)
        for i in range(count):
            batch.add(Fact(tenant_id="acme", user_id=user, text=f"{user} fact {i}"), "test")
        batch.commit()
    return life, MemoryTaskStore()


def delete_task(tasks: MemoryTaskStore, user: str = "alice") -> Task:
    task = Task(tenant_id="acme", user_id=user, kind=TaskKind.DELETE_ALL)
    tasks.create(task)
    return task


def worker(life: Lifecycle, tasks: MemoryTaskStore, forgetters: list[object] | None = None) -> ExtractionWorker:
    forgetter = UserForgetter(life.facts, life, tasks, batch_size=10, forgetters=forgetters or [])  # type: ignore[arg-type]
    return ExtractionWorker(tasks, pipeline=None, forgetter=forgetter)  # type: ignore[arg-type]


def test_a_delete_all_closes_every_memory_in_batches_and_calls_the_forgetters() -> None:
    life, tasks = world(users=("alice", "bob"))
    called: list[tuple[str, str]] = []
    task = delete_task(tasks)
    worker(life, tasks, [lambda t, u: called.append((t, u))]).process("acme", task.task_id)

    done = tasks.get("acme", task.task_id)
    assert done.status is TaskStatus.COMPLETED and done.counts["deleted"] == 25
    assert life.facts.list_current("acme", "alice").items == []
    assert life.index.ids("acme", "alice") == set()
    assert len(life.facts.list_current("acme", "bob").items) == 25 and len(life.index.ids("acme", "bob")) == 25
    assert called == [("acme", "alice")]
    assert life.facts.calls == 3  # type: ignore[attr-defined]  # 25 memories, 10 a batch


def test_a_delete_all_interrupted_half_way_resumes_on_redelivery_without_counting_twice() -> None:
    life, tasks = world(crash_on=2)
    task = delete_task(tasks)
    with pytest.raises(TimeoutError):
        worker(life, tasks).process("acme", task.task_id)
    stopped = tasks.get("acme", task.task_id)
    assert stopped.status is TaskStatus.QUEUED and stopped.counts["deleted"] == 10
    assert "container stopped" in str(stopped.error)
    assert len(life.facts.list_current("acme", "alice", limit=100).items) == 15

    worker(life, tasks).process("acme", task.task_id)  # the queue delivers it again
    done = tasks.get("acme", task.task_id)
    assert done.status is TaskStatus.COMPLETED and done.counts["deleted"] == 25 and done.attempts == 2
    assert life.facts.list_current("acme", "alice").items == [] and life.index.ids("acme", "alice") == set()
    # A completed task delivered once more changes nothing.
    worker(life, tasks).process("acme", task.task_id)
    assert tasks.get("acme", task.task_id).counts["deleted"] == 25


def test_a_memory_changed_during_the_delete_is_read_again_and_closed() -> None:
    life, tasks = world(count=5)
    facts: CrashingFacts = life.facts  # type: ignore[assignment]
    facts.before_close = [facts.list_current("acme", "alice").items[0]]
    task = delete_task(tasks)
    worker(life, tasks).process("acme", task.task_id)
    assert tasks.get("acme", task.task_id).counts["deleted"] == 5
    assert life.facts.list_current("acme", "alice").items == []
    edited = [e for e in facts.events if e.event is Event.DELETE and e.old_memory and "(edited)" in e.old_memory]
    assert len(edited) == 1 and edited[0].note == "delete-all"


def test_a_closed_memory_keeps_its_history_and_leaves_the_index() -> None:
    life, tasks = world(count=1)
    (fact,) = life.facts.list_current("acme", "alice").items
    life.index.upsert([index_doc(fact, life.embedder.embed([fact.text])[0])])
    worker(life, tasks).process("acme", delete_task(tasks).task_id)
    events = life.facts.history("acme", fact.id)
    assert [(e.event, e.version) for e in events] == [(Event.ADD, 1), (Event.DELETE, 2)]
    assert life.facts.get("acme", fact.id, include_closed=True).version == 2
