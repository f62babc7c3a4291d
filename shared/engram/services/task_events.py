"""Task events for live subscribers: one JSON message per status change of an extraction task.

Shapes: {"type": "memory_extraction_queued" | "_processing" | "_completed" | "_failed", "task_id",
"user_id", "status", "attempts", "at"}, plus "facts_count" and "results" when completed, and "error"
and "will_retry" when failed. Publishing is best-effort: a broken publisher is logged and never fails
or holds up the task it reports on.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools import Logger

from engram.domain.bus_events import task_event as bus_task_event
from engram.domain.models import Task, utcnow
from engram.domain.operations_ports import EventPublisher, QueueMetrics

if TYPE_CHECKING:
    from engram.operations.accounting import Accounting
    from engram.services.bus_events import BusEvents

logger = Logger(child=True)

PREFIX = "memory_extraction_"


def task_event(kind: str, task: Task, *, will_retry: bool = False) -> dict[str, Any]:
    event: dict[str, Any] = {
        "type": PREFIX + kind,
        "task_id": task.task_id,
        "user_id": task.user_id,
        "status": task.status.value,
        "attempts": task.attempts,
        "at": utcnow().isoformat(),
    }
    if kind == "completed":
        event["facts_count"] = len(task.results)
        event["results"] = [r.model_dump(mode="json") for r in task.results]
    if kind == "failed":
        event["error"] = task.error or ""
        event["will_retry"] = will_retry
    return event


class NoEvents:
    """The publisher when nothing listens (no WebSocket API configured)."""

    def publish(self, tenant_id: str, user_id: str, event: dict[str, Any]) -> None:
        return None


@dataclass
class TaskEvents:
    """Each status change of a task, told to live subscribers, the queue counters and (finished
    tasks) the accounting: metrics, usage counters, the worker's log line."""

    publisher: EventPublisher
    metrics: QueueMetrics | None = None
    accounting: Accounting | None = None
    bus: BusEvents | None = None  # task.completed / task.failed for the tenant's rules (EventBridge)

    def queued(self, task: Task) -> None:
        self._count(task, None, "pending")
        self._send("queued", task)

    def processing(self, tasks: Sequence[Task]) -> None:
        """A batch started together (the counters move in one write)."""
        self._count_all(tasks, "pending", "processing")
        for task in tasks:
            self._send("processing", task)

    def completed(self, tasks: Sequence[Task]) -> None:
        self._count_all(tasks, "processing", "completed")
        if self.accounting is not None and tasks:
            self._safely(tasks, "tasks not accounted", self.accounting.completed_many, tasks)
        for task in tasks:
            self._send("completed", task)
        if self.bus is not None and tasks:
            self.bus.publish([bus_task_event(t, failed=False) for t in tasks])

    def failed(self, task: Task, will_retry: bool, was: str = "processing") -> None:
        self._count(task, was, "pending" if will_retry else "failed")
        if self.accounting is not None:
            self._safely([task], "task not accounted", self.accounting.failed, task, will_retry)
        self._send("failed", task, will_retry)
        if self.bus is not None and not will_retry:  # failed for good; a retry is not news
            self.bus.publish([bus_task_event(task, failed=True)])

    def waiting(self, task: Task) -> None:
        """Back in the queue until the outage ends (LLM breaker, index); no event: the status says it."""
        self._count(task, "processing", "pending")

    def _count(self, task: Task, source: str | None, target: str) -> None:
        self._count_all([task], source, target)

    def _count_all(self, tasks: Sequence[Task], source: str | None, target: str) -> None:
        if self.metrics is None or not tasks:
            return
        try:
            self.metrics.moved(tasks, source, target)
        except Exception:
            ids = [t.task_id for t in tasks]
            logger.exception("queue counters not updated", extra={"task_ids": ids, "to": target})

    def _safely(self, tasks: Sequence[Task], what: str, call: Callable[..., None], *args: Any) -> None:
        """Best-effort, like the events: a broken counter or metric never fails the task."""
        try:
            call(*args)
        except Exception:
            logger.exception(what, extra={"task_ids": [t.task_id for t in tasks]})

    def _send(self, kind: str, task: Task, will_retry: bool = False) -> None:
        if isinstance(self.publisher, NoEvents):  # nobody listens: skip building the event (results as JSON)
            return
        event = task_event(kind, task, will_retry=will_retry)
        try:
            self.publisher.publish(task.tenant_id, task.user_id, event)
        except Exception:
            logger.exception("task event not delivered", extra={"task_id": task.task_id, "type": event["type"]})
