"""AgentCore's extraction jobs are an event's add: a failed one is listed with the event's turns and
can be started again, as it was sent, once; anything else is refused naming the job."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest

from engram.agentcore.ids import memory_id_of
from engram.agentcore.service import AgentCoreService, NewEvent
from engram.domain.agentcore import EventPage, SessionPage, StoredEvent
from engram.domain.errors import NotFoundError, ValidationError
from engram.domain.models import TaskStatus
from engram.services.memory import MemoryService
from tests.fakes import HashEmbedder, MemoryBlobs, MemoryFactStore, MemoryIndex, MemoryQueue, MemoryTaskStore

MEMORY = memory_id_of("acme")


class MemoryEventStore:
    def __init__(self) -> None:
        self.stored: dict[tuple[str, str, str, str], StoredEvent] = {}

    def put(self, event: StoredEvent) -> None:
        self.stored[(event.tenant_id, event.actor_id, event.session_id, event.event_id)] = event

    def get(self, tenant_id: str, actor_id: str, session_id: str, event_id: str) -> StoredEvent:
        try:
            return self.stored[(tenant_id, actor_id, session_id, event_id)]
        except KeyError:
            raise NotFoundError("event", event_id) from None

    def delete(self, tenant_id: str, actor_id: str, session_id: str, event_id: str) -> None:
        self.stored.pop((tenant_id, actor_id, session_id, self.get(tenant_id, actor_id, session_id, event_id).event_id))

    def events(
        self,
        tenant_id: str,
        actor_id: str,
        session_id: str,
        keep: Callable[[StoredEvent], bool],
        limit: int,
        token: str | None,
    ) -> EventPage:
        mine = [e for k, e in self.stored.items() if k[:3] == (tenant_id, actor_id, session_id) and keep(e)]
        return EventPage(items=sorted(mine, key=lambda e: e.event_id, reverse=True)[:limit])

    def sessions(self, tenant_id: str, actor_id: str, limit: int, token: str | None) -> SessionPage:
        return SessionPage(items=[])

    def forget_actor(self, tenant_id: str, actor_id: str) -> None:
        self.stored = {k: e for k, e in self.stored.items() if k[:2] != (tenant_id, actor_id)}


@pytest.fixture
def world() -> tuple[AgentCoreService, MemoryTaskStore, MemoryQueue]:
    tasks, queue = MemoryTaskStore(), MemoryQueue()
    memories = MemoryService(MemoryFactStore(), MemoryIndex(), HashEmbedder(), tasks, queue, MemoryBlobs())
    assert memories.lifecycle is not None
    service = AgentCoreService(memories, memories.lifecycle, MemoryEventStore(), None, timedelta(days=90))
    return service, tasks, queue


def said(service: AgentCoreService, text: str) -> StoredEvent:
    turn = {"conversational": {"content": {"text": text}, "role": "USER"}}
    new = NewEvent("alice", "s1", datetime(2026, 1, 1, tzinfo=UTC), [turn])
    return service.create_event("acme", MEMORY, new)


def fail(tasks: MemoryTaskStore, task_id: str) -> None:
    task = tasks.get("acme", task_id)
    tasks.save(task.model_copy(update={"status": TaskStatus.FAILED, "error": "the LLM answered nothing usable"}))


def test_a_failed_extraction_is_listed_and_started_again_as_it_was_sent(
    world: tuple[AgentCoreService, MemoryTaskStore, MemoryQueue],
) -> None:
    service, tasks, queue = world
    ok, broken = said(service, "I live in Lyon"), said(service, "I work at Initech")
    assert broken.task_id is not None
    fail(tasks, broken.task_id)

    jobs, _ = service.failed_extractions("acme", MEMORY, "alice", "s1", 10, None)
    assert [(e.event_id, t.task_id, t.error) for e, t in jobs] == [
        (broken.event_id, broken.task_id, "the LLM answered nothing usable")
    ]

    again = service.retry_extraction("acme", MEMORY, broken.task_id)
    resent = tasks.get("acme", again)
    assert again != broken.task_id and resent.status is TaskStatus.QUEUED
    assert resent.request is not None and resent.request.messages[0].content == "I work at Initech"
    assert queue.sent[-1].task_id == again
    assert service.get_event("acme", MEMORY, "alice", "s1", broken.event_id).task_id == again
    assert (
        service.failed_extractions("acme", MEMORY, "alice", "s1", 10, None)[0] == []
    )  # the event's job is the new one

    with pytest.raises(ValidationError) as caught:
        service.retry_extraction("acme", MEMORY, str(ok.task_id))  # queued, not failed
    assert caught.value.field == "extractionJob.jobId"
    with pytest.raises(NotFoundError):
        service.retry_extraction("acme", MEMORY, "no-such-job")
    with pytest.raises(NotFoundError):
        service.retry_extraction("globex", memory_id_of("globex"), broken.task_id)  # another tenant's
