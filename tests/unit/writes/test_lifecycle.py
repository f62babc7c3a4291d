"""One lifecycle for every caller: a memory closed by extraction, the API, pruning or summarising
leaves the same trace (history event and version), leaves the index, and releases its attachments."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from engram.domain.errors import ConflictError
from engram.domain.models import AddRequest, Attachment, Event, Fact, Message, Scope
from engram.domain.steps import Decision
from engram.maintenance.prune import PruneService
from engram.maintenance.scanner import FactScanner
from engram.pipeline.apply import Applier
from engram.services.memory import MemoryService
from engram.writes.unit_of_work import Lifecycle, history_event, index_doc, next_version
from tests.fakes import (
    HashEmbedder,
    MemoryAttachmentStore,
    MemoryBlobs,
    MemoryFactStore,
    MemoryIndex,
    MemoryQueue,
    MemoryTaskStore,
)


class Scanner(FactScanner):
    def __init__(self, store: MemoryFactStore) -> None:
        self.store = store

    def scopes(self):  # type: ignore[no-untyped-def]
        yield ("acme", "alice")

    def current(self, tenant_id: str, user_id: str) -> list[Fact]:
        return self.store.list_current(tenant_id, user_id, limit=10_000).items


@pytest.fixture
def life() -> Lifecycle:
    return Lifecycle(MemoryFactStore(), MemoryIndex(), HashEmbedder(), MemoryAttachmentStore(), MemoryBlobs())


def remember(life: Lifecycle, text: str, **fields: object) -> Fact:
    old = datetime.now(UTC) - timedelta(days=1)
    fact = Fact(tenant_id="acme", user_id="alice", text=text, created_at=old, **fields)  # type: ignore[arg-type]
    life.facts.add(fact, history_event(fact, Event.ADD, None, text, "test"))
    life.index.upsert([index_doc(fact, life.embedder.embed([text])[0])])
    assert life.attachments is not None and life.blobs is not None
    for attachment_id in fact.attachment_ids:
        life.attachments.create(
            Attachment(
                id=attachment_id,
                tenant_id="acme",
                name="t.pdf",
                media_type="application/pdf",
                blob_key=f"b/{attachment_id}",
            )
        )
        life.blobs.put(f"b/{attachment_id}", b"%PDF")
        life.attachments.link("acme", attachment_id, fact.id)
    return fact


def close_by_extraction(life: Lifecycle, fact: Fact) -> None:
    request = AddRequest(user_id="alice", messages=[Message(role="user", content="forget it")])
    decision = Decision(event=Event.DELETE, text=fact.text, memory_id=fact.id)
    Applier(life).apply_each(Scope(tenant_id="acme", user_id="alice"), request, "task-1", [], {}, [decision], [fact])


def close_by_api(life: Lifecycle, fact: Fact) -> None:
    service = MemoryService(life.facts, life.index, life.embedder, MemoryTaskStore(), MemoryQueue(), life.blobs)
    service.lifecycle = life  # the same stores, attachments included
    service.delete("acme", fact.id)


def close_by_prune(life: Lifecycle, fact: Fact) -> None:
    assert PruneService(Scanner(life.facts), life, cap=0).run()["pruned"] == 1  # type: ignore[arg-type]


@pytest.mark.parametrize("close", [close_by_extraction, close_by_api, close_by_prune])
def test_every_caller_closes_a_memory_the_same_way(life: Lifecycle, close: object) -> None:
    fact = remember(life, "Lives in Berlin", attachment_ids=["att-1"])
    close(life, fact)  # type: ignore[operator]

    closed = life.facts.get("acme", fact.id, include_closed=True)
    assert not closed.is_current
    events = life.facts.history("acme", fact.id)
    assert [e.event for e in events] == [Event.ADD, Event.DELETE]
    assert events[-1].version == fact.version + 1 == closed.version  # the stored version and its event agree
    assert events[-1].old_memory == "Lives in Berlin" and events[-1].new_memory is None
    assert fact.id not in life.index.ids("acme", "alice")
    assert life.attachments is not None and life.attachments.holders("acme", "att-1") == []
    assert life.attachments.get("acme", "att-1").deleted  # held by nothing: its bytes are gone


def test_rewrite_keeps_the_old_version_and_reindexes_the_new_text(life: Lifecycle) -> None:
    fact = remember(life, "Lives in Berlin")
    batch = life.changes("acme", "alice")
    new = batch.rewrite(fact, next_version(fact, "Lives in Turin"), actor="api", note="moved")
    batch.commit()

    assert life.facts.get("acme", fact.id).text == "Lives in Turin"
    event = life.facts.history("acme", fact.id)[-1]
    assert (event.event, event.version, event.old_memory, event.new_memory) == (
        Event.UPDATE,
        2,
        "Lives in Berlin",
        "Lives in Turin",
    )
    hits = life.index.knn("acme", "alice", life.embedder.embed(["Lives in Turin"])[0], 1)
    assert hits[0].id == new.id and hits[0].score > 0.99


def test_closing_a_memory_that_changed_meanwhile_is_a_conflict_and_changes_nothing(life: Lifecycle) -> None:
    fact = remember(life, "Likes tea")
    batch = life.changes("acme", "alice")
    batch.rewrite(fact, next_version(fact, "Likes green tea"), actor="api")
    batch.commit()

    with pytest.raises(ConflictError):
        life.changes("acme", "alice").close(fact, actor="maintenance")  # the stale version 1
    assert life.facts.get("acme", fact.id).text == "Likes green tea"
    assert fact.id in life.index.ids("acme", "alice")


def test_a_batch_covers_one_user_only(life: Lifecycle) -> None:
    other = Fact(tenant_id="acme", user_id="bob", text="Lives in Oslo")
    with pytest.raises(ValueError, match="one tenant and user"):
        life.changes("acme", "alice").add(other, actor="api")
