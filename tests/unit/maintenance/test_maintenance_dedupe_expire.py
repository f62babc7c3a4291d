"""Dedupe keeps the oldest of memories that say the same thing and moves their attachments to it;
expire closes memories whose time has passed, and reads hide them before that."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from engram.domain.models import Attachment, Event, Fact, MemoryBank, MemoryPatch
from engram.maintenance.dedupe import DedupeService
from engram.maintenance.expire import ExpireService
from engram.services.memory import MemoryService
from engram.writes.unit_of_work import Lifecycle, history_event, index_doc
from tests.fakes import (
    HashEmbedder,
    MemoryAttachmentStore,
    MemoryBlobs,
    MemoryFactStore,
    MemoryIndex,
    MemoryQueue,
    MemoryTaskStore,
)
from tests.unit.writes.test_lifecycle import Scanner

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def world() -> Lifecycle:
    return Lifecycle(MemoryFactStore(), MemoryIndex(), HashEmbedder(), MemoryAttachmentStore(), MemoryBlobs())


def remember(life: Lifecycle, text: str, minutes: int, **fields: object) -> Fact:
    when = T0 + timedelta(minutes=minutes)
    fact = Fact(tenant_id="acme", user_id="alice", text=text, created_at=when, valid_from=when, **fields)  # type: ignore[arg-type]
    life.facts.add(fact, history_event(fact, Event.ADD, None, text, "test"))
    life.index.upsert([index_doc(fact, life.embedder.embed([text])[0])])
    assert life.attachments is not None and life.blobs is not None
    for a in fact.attachment_ids:
        life.attachments.create(Attachment(id=a, tenant_id="acme", name=a, media_type="text/plain", blob_key=a))
        life.blobs.put(a, b"x")
        life.attachments.link("acme", a, fact.id)
    return fact


def current(life: Lifecycle) -> dict[str, Fact]:
    return {f.text: f for f in life.facts.list_current("acme", "alice", limit=100).items}


def test_duplicates_merge_into_the_oldest_with_their_attachments() -> None:
    life = world()
    oldest = remember(life, "Lives in Berlin", 0, attachment_ids=["lease"])
    twin = remember(life, "lives in berlin", 5, attachment_ids=["photo"])
    other = remember(life, "Loves pizza", 1)
    report = DedupeService(Scanner(life.facts), life).run()  # type: ignore[arg-type]

    assert report["merged"] == 1 and report["groups"] == 1
    kept = current(life)
    assert set(kept) == {"Lives in Berlin", "Loves pizza"} and kept["Lives in Berlin"].id == oldest.id
    assert kept["Lives in Berlin"].attachment_ids == ["lease", "photo"]
    assert life.attachments is not None and life.attachments.holders("acme", "photo") == [oldest.id]
    assert twin.id not in life.index.ids("acme", "alice") and other.id in life.index.ids("acme", "alice")
    assert life.facts.history("acme", twin.id)[-1].note == f"duplicate of {oldest.id}"
    assert life.facts.history("acme", oldest.id)[-1].note == f"merged {twin.id}"
    assert DedupeService(Scanner(life.facts), life).run()["merged"] == 0  # type: ignore[arg-type]


def test_protected_memories_and_other_banks_are_not_merged() -> None:
    life = world()
    remember(life, "Lives in Berlin", 0)
    remember(life, "lives in berlin", 1, is_protected=True)
    remember(life, "Lives in Berlin ", 2, memory_bank=MemoryBank.WORK)
    assert DedupeService(Scanner(life.facts), life).run()["merged"] == 0  # type: ignore[arg-type]
    assert len(life.facts.list_current("acme", "alice").items) == 3


def test_an_expired_memory_is_hidden_at_once_and_closed_by_the_expire_step() -> None:
    life = world()
    service = MemoryService(life.facts, life.index, life.embedder, MemoryTaskStore(), MemoryQueue(), life.blobs)
    service.lifecycle = life
    soon = remember(life, "Has a dentist appointment on Friday", 0)
    keep = remember(life, "Lives in Berlin", 1)
    past = datetime.now(UTC) - timedelta(seconds=1)
    service.update("acme", soon.id, MemoryPatch(expires_at=past))

    assert [f.id for f in service.list_memories("acme", "alice", 10, None).items] == [keep.id]
    report = ExpireService(Scanner(life.facts), life).run()  # type: ignore[arg-type]
    assert report["expired"] == 1
    closed = life.facts.get("acme", soon.id, include_closed=True)
    assert not closed.is_current and life.facts.history("acme", soon.id)[-1].note == "expired"
    assert soon.id not in life.index.ids("acme", "alice")


def test_a_protected_memory_does_not_expire_until_its_protection_is_lifted() -> None:
    life = world()
    service = MemoryService(life.facts, life.index, life.embedder, MemoryTaskStore(), MemoryQueue(), life.blobs)
    service.lifecycle = life
    kept = remember(life, "Passport number is X1234", 0)
    past = datetime.now(UTC) - timedelta(seconds=1)
    service.update("acme", kept.id, MemoryPatch(expires_at=past, is_protected=True))

    assert [f.id for f in service.list_memories("acme", "alice", 10, None).items] == [kept.id]
    assert service.get("acme", kept.id).expires_at == past  # the client's date is kept, dormant
    assert ExpireService(Scanner(life.facts), life).run()["expired"] == 0  # type: ignore[arg-type]
    assert life.facts.get("acme", kept.id).is_current

    service.update("acme", kept.id, MemoryPatch(is_protected=False))
    assert service.list_memories("acme", "alice", 10, None).items == []
    assert ExpireService(Scanner(life.facts), life).run()["expired"] == 1  # type: ignore[arg-type]
