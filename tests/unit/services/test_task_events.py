"""The extraction worker reports each status change of a task as an event, and a broken publisher
never fails the task."""

from __future__ import annotations

from typing import Any

import pytest

from engram.domain.models import AddRequest, Event, Message, Task, TaskResult, TaskStatus, Usage
from engram.operations.accounting import Accounting
from engram.operations.metrics import RecordedMetrics
from engram.pipeline.ingest import IngestOutcome
from engram.services.task_events import TaskEvents
from engram.services.worker import ExtractionWorker
from tests.fakes import MemoryTaskStore


class Recorder:
    def __init__(self) -> None:
        self.sent: list[tuple[str, str, dict[str, Any]]] = []

    def publish(self, tenant_id: str, user_id: str, event: dict[str, Any]) -> None:
        self.sent.append((tenant_id, user_id, event))


class Broken:
    def publish(self, tenant_id: str, user_id: str, event: dict[str, Any]) -> None:
        raise ConnectionError("gateway down")


class Pipeline:
    def __init__(self, error: Exception | None = None) -> None:
        self.error = error

    def run(
        self, scope: Any, request: AddRequest, task_id: str, sources: Any = (), policy: Any = None
    ) -> IngestOutcome:
        if self.error is not None:
            raise self.error
        results = [TaskResult(id=f"m{i}", memory=m.content, event=Event.ADD) for i, m in enumerate(request.messages)]
        return IngestOutcome(results=results, usage=Usage(), counts={"added": len(results)})


def queued_task(tasks: MemoryTaskStore, text: str = "I live in Berlin") -> Task:
    request = AddRequest(user_id="alice", messages=[Message(role="user", content=text)])
    task = Task(tenant_id="acme", user_id="alice", request=request)
    tasks.create(task)
    return task


def worker(tasks: MemoryTaskStore, pipeline: Pipeline, publisher: Any) -> ExtractionWorker:
    return ExtractionWorker(tasks, pipeline, events=TaskEvents(publisher))  # type: ignore[arg-type]


def test_a_completed_task_sends_processing_then_completed_with_its_facts() -> None:
    tasks, recorder = MemoryTaskStore(), Recorder()
    task = queued_task(tasks)

    worker(tasks, Pipeline(), recorder).process("acme", task.task_id)

    assert [(t, u, e["type"]) for t, u, e in recorder.sent] == [
        ("acme", "alice", "memory_extraction_processing"),
        ("acme", "alice", "memory_extraction_completed"),
    ]
    done = recorder.sent[-1][2]
    assert done["task_id"] == task.task_id and done["status"] == "completed" and done["attempts"] == 1
    assert done["facts_count"] == 1 and done["results"][0]["memory"] == "I live in Berlin"


def test_a_failure_says_whether_it_will_be_retried() -> None:
    tasks, recorder = MemoryTaskStore(), Recorder()
    task = queued_task(tasks)
    failing = worker(tasks, Pipeline(RuntimeError("LLM 500")), recorder)

    with pytest.raises(RuntimeError):
        failing.process("acme", task.task_id)
    with pytest.raises(RuntimeError):
        failing.process("acme", task.task_id, final_attempt=True)

    failed = [e for _, _, e in recorder.sent if e["type"] == "memory_extraction_failed"]
    seen = [(e["attempts"], e["will_retry"], e["status"]) for e in failed]
    assert seen == [(1, True, "queued"), (2, False, "failed")]
    assert all("LLM 500" in e["error"] for e in failed)


def test_marking_a_task_failed_for_good_sends_a_final_failed_event() -> None:
    tasks, recorder = MemoryTaskStore(), Recorder()
    task = queued_task(tasks)

    worker(tasks, Pipeline(), recorder).fail("acme", task.task_id, "dead-lettered")

    assert [e["will_retry"] for _, _, e in recorder.sent] == [False]
    assert recorder.sent[0][2]["error"] == "dead-lettered"


def test_a_broken_publisher_does_not_fail_the_task() -> None:
    tasks = MemoryTaskStore()
    task = queued_task(tasks)

    worker(tasks, Pipeline(), Broken()).process("acme", task.task_id)

    assert tasks.get("acme", task.task_id).status is TaskStatus.COMPLETED


class BrokenUsage:
    def add(self, tenant_id: str, day: str, counts: Any) -> None:
        raise ConnectionError("table down")

    def days(self, tenant_id: str, days: Any) -> list[Any]:
        return []


def test_broken_usage_counters_never_fail_the_task_nor_its_events() -> None:
    tasks, recorder, metrics = MemoryTaskStore(), Recorder(), RecordedMetrics()
    task = queued_task(tasks)
    events = TaskEvents(recorder, accounting=Accounting(metrics, BrokenUsage()))  # type: ignore[arg-type]
    ExtractionWorker(tasks, Pipeline(), events=events).process("acme", task.task_id)  # type: ignore[arg-type]

    assert tasks.get("acme", task.task_id).status is TaskStatus.COMPLETED
    assert recorder.sent[-1][2]["type"] == "memory_extraction_completed"
    assert metrics.total("TasksCompleted") == 1  # metrics come before the counters that failed


class CountedUsage:
    def __init__(self) -> None:
        self.writes: list[tuple[str, dict[str, int]]] = []

    def add(self, tenant_id: str, day: str, counts: Any) -> None:
        self.writes.append((tenant_id, dict(counts)))

    def days(self, tenant_id: str, days: Any) -> list[Any]:
        return []


def test_tasks_finished_together_move_the_usage_counters_once_by_their_sum() -> None:
    tasks, usage, metrics = MemoryTaskStore(), CountedUsage(), RecordedMetrics()
    queued = [queued_task(tasks, text) for text in ("I live in Berlin", "I like jazz", "I own a cat")]
    events = TaskEvents(Recorder(), accounting=Accounting(metrics, usage))  # type: ignore[arg-type]
    worker = ExtractionWorker(tasks, Pipeline(), events=events)  # type: ignore[arg-type]

    worker.process_many("acme", [t.task_id for t in queued])  # one user, one treatment: one run

    assert [tenant for tenant, _ in usage.writes] == ["acme"]
    assert usage.writes[0][1]["adds"] == 3 and usage.writes[0][1]["memories_stored"] == 3
    assert metrics.total("TasksCompleted") == 3


def test_each_tenant_of_a_batch_gets_its_own_counts() -> None:
    usage = CountedUsage()
    done = [Task(tenant_id=tenant, user_id="u", status=TaskStatus.COMPLETED) for tenant in ("acme", "globex", "acme")]

    Accounting(RecordedMetrics(), usage).completed_many(done)  # type: ignore[arg-type]

    assert sorted((tenant, counts["adds"]) for tenant, counts in usage.writes) == [("acme", 2), ("globex", 1)]
