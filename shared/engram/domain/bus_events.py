"""Memory and task events for the tenant's own routing (EventBridge): what changed, never the text
unless the tenant opted in (TenantConfig.events_include_text).

Detail shape (the EventBridge `detail`, source "engram", detail-type = `event`):
  memory.*: {"event", "tenant_id", "user_id", "memory_id", "version", "previous_version", "task_id",
             "actor", "at", "memory"?}
  task.*:   {"event", "tenant_id", "user_id", "task_id", "kind", "status", "attempts", "at",
             "memories": [{"memory_id", "event", "version"?}], "error"?}
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import Field

from engram.domain.model_base import Model
from engram.domain.models import Event, Fact, HistoryEvent, Task, utcnow

SOURCE = "engram"

BusEventType = Literal[
    "memory.added", "memory.updated", "memory.deleted", "memory.outdated", "task.completed", "task.failed"
]

_MEMORY_EVENT: dict[Event, BusEventType] = {
    Event.ADD: "memory.added",
    Event.UPDATE: "memory.updated",
    Event.DELETE: "memory.deleted",
}


class BusEvent(Model):
    """One event on the bus. `text` is the memory's text, sent only when the tenant opted in."""

    event: BusEventType
    tenant_id: str
    user_id: str
    memory_id: str | None = None
    version: int | None = None
    previous_version: int | None = None
    task_id: str | None = None
    actor: str | None = None
    at: datetime = Field(default_factory=utcnow)
    text: str | None = None
    task: dict[str, Any] | None = None  # task.* only: kind, status, attempts, memories, error

    def detail(self, include_text: bool) -> dict[str, Any]:
        """The EventBridge `detail`: ids and versions; the text only with `include_text`."""
        out: dict[str, Any] = {"event": self.event, "tenant_id": self.tenant_id, "user_id": self.user_id}
        if self.memory_id is not None:
            out |= {
                "memory_id": self.memory_id,
                "version": self.version,
                "previous_version": self.previous_version,
                "actor": self.actor,
            }
        if self.task_id is not None:
            out["task_id"] = self.task_id
        if self.task is not None:
            out |= self.task
        out["at"] = self.at.isoformat()
        if include_text and self.text is not None:
            out["memory"] = self.text
        return out


def memory_event(fact: Fact, history: HistoryEvent, outdated: bool = False) -> BusEvent:
    """The event of one history entry the lifecycle wrote (an episode newly outdated is `memory.outdated`)."""
    kind: BusEventType = "memory.outdated" if outdated else _MEMORY_EVENT[history.event]
    version = history.version
    return BusEvent(
        event=kind,
        tenant_id=fact.tenant_id,
        user_id=fact.user_id,
        memory_id=fact.id,
        version=version,
        previous_version=None if history.event is Event.ADD else version - 1,
        task_id=history.task_id,
        actor=history.actor,
        text=history.new_memory if history.new_memory is not None else history.old_memory,
    )


def task_event(task: Task, failed: bool) -> BusEvent:
    """task.completed with the memories it changed (ids, verbs), or task.failed (for good) with the error."""
    details: dict[str, Any] = {"kind": task.kind.value, "status": task.status.value, "attempts": task.attempts}
    if failed:
        details["error"] = task.error or ""
    else:
        details["memories"] = [{"memory_id": r.id, "event": r.event.value} for r in task.results]
    return BusEvent(
        event="task.failed" if failed else "task.completed",
        tenant_id=task.tenant_id,
        user_id=task.user_id,
        task_id=task.task_id,
        task=details,
    )
