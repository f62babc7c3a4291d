"""Who said an event's turns: AgentCore's payload has a role but no name, so the event's `speaker`
metadata names its USER turns, and the memories read from them carry it as Engram's message `name`
(what Engram's search reads when a question names a speaker)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from engram.agentcore.ids import memory_id_of
from engram.agentcore.service import AgentCoreService, NewEvent
from engram.domain.models import AddRequest
from engram.services.memory import MemoryService
from tests.fakes import HashEmbedder, MemoryBlobs, MemoryFactStore, MemoryIndex, MemoryQueue, MemoryTaskStore
from tests.unit.agentcore.test_extraction_jobs import MemoryEventStore

MEMORY = memory_id_of("acme")
SAID = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.fixture
def world() -> tuple[AgentCoreService, MemoryTaskStore]:
    tasks = MemoryTaskStore()
    memories = MemoryService(MemoryFactStore(), MemoryIndex(), HashEmbedder(), tasks, MemoryQueue(), MemoryBlobs())
    assert memories.lifecycle is not None
    return AgentCoreService(memories, memories.lifecycle, MemoryEventStore(), None, timedelta(days=90)), tasks


def turn(text: str, role: str = "USER") -> dict[str, object]:
    return {"conversational": {"content": {"text": text}, "role": role}}


def submitted(world: tuple[AgentCoreService, MemoryTaskStore], metadata: dict[str, str]) -> AddRequest:
    service, tasks = world
    new = NewEvent(
        "team-chat",
        "s1",
        SAID,
        [turn("Caroline: I adopted a puppy"), turn("What is its name?", "ASSISTANT")],
        metadata=metadata,
    )
    event = service.create_event("acme", MEMORY, new)
    request = tasks.get("acme", str(event.task_id)).request
    assert request is not None
    return request


def test_the_speaker_metadata_names_the_events_user_turns_not_the_assistants(
    world: tuple[AgentCoreService, MemoryTaskStore],
) -> None:
    request = submitted(world, {"speaker": "Caroline", "channel": "web"})

    assert [(m.role, m.name) for m in request.messages] == [("user", "Caroline"), ("assistant", None)]
    assert request.metadata["speaker"] == "Caroline"  # kept as the event's metadata too, filterable


def test_without_a_speaker_the_turns_have_no_name(world: tuple[AgentCoreService, MemoryTaskStore]) -> None:
    assert [m.name for m in submitted(world, {"channel": "web"}).messages] == [None, None]
    assert [m.name for m in submitted(world, {"speaker": "  "}).messages] == [None, None]  # blank names no one


def test_ingested_turns_are_named_by_the_speaker_metadata(world: tuple[AgentCoreService, MemoryTaskStore]) -> None:
    service, tasks = world
    service.ingest("acme", MEMORY, "team-chat", "s1", [("USER", "I run marathons")], SAID, {"speaker": "Melanie"})

    (task,) = tasks.tasks.values()
    assert task.request is not None
    assert [(m.role, m.name) for m in task.request.messages] == [("user", "Melanie")]
