"""Prune closes the least valuable memories down to the cap and never a protected one."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from engram.domain.models import Attachment, Event, Fact
from engram.maintenance.prune import PruneService
from engram.writes.unit_of_work import Lifecycle, history_event, index_doc
from tests.fakes import HashEmbedder, MemoryAttachmentStore, MemoryBlobs, MemoryFactStore, MemoryIndex
from tests.unit.maintenance.test_maintenance_repair import MemoryFactScanner

NOW = datetime.now(UTC)


class World:
    def __init__(self) -> None:
        self.store, self.index, self.embedder = MemoryFactStore(), MemoryIndex(), HashEmbedder()
        self.attachments, self.blobs = MemoryAttachmentStore(), MemoryBlobs()

    def remember(self, text: str, importance: float = 0.5, **fields: object) -> Fact:
        fact = Fact(tenant_id="acme", user_id="alice", text=text, importance=importance).model_copy(update=fields)
        self.store.add(fact, history_event(fact, Event.ADD, None, text, "test"))
        self.index.upsert([index_doc(fact, self.embedder.embed([text])[0])])
        for attachment_id in fact.attachment_ids:
            self.attachments.link("acme", attachment_id, fact.id)
        return fact

    def prune(self, cap: int) -> dict[str, int]:
        scanner = MemoryFactScanner(self.store)
        life = Lifecycle(self.store, self.index, self.embedder, self.attachments, self.blobs)
        return PruneService(scanner, life, cap=cap).run()

    def current(self) -> set[str]:
        return {f.text for f in self.store.list_current("acme", "alice", limit=1000).items}


def test_the_least_important_then_least_recently_used_then_oldest_go_first_down_to_the_cap() -> None:
    w = World()
    w.remember("protected and trivial", importance=0.0, is_protected=True)
    w.remember("unused, newer", importance=0.2, created_at=NOW - timedelta(days=10))
    w.remember("unused, older", importance=0.2, created_at=NOW - timedelta(days=20))
    w.remember("used last week", importance=0.2, last_accessed_at=NOW - timedelta(days=5))
    w.remember("used an hour ago", importance=0.2, last_accessed_at=NOW - timedelta(hours=1))
    w.remember("important, never used, old", importance=0.9, created_at=NOW - timedelta(days=400))

    assert w.prune(cap=5) == {"scopes": 1, "over_cap": 1, "pruned": 1, "conflicts": 0}
    assert "unused, older" not in w.current()
    assert w.prune(cap=4) == {"scopes": 1, "over_cap": 1, "pruned": 1, "conflicts": 0}
    assert "unused, newer" not in w.current()
    assert w.prune(cap=3) == {"scopes": 1, "over_cap": 1, "pruned": 1, "conflicts": 0}
    assert w.current() == {"protected and trivial", "used an hour ago", "important, never used, old"}
    assert len(w.index.ids("acme", "alice")) == 3


def test_pruned_facts_are_closed_with_history_and_leave_the_index_and_a_second_run_changes_nothing() -> None:
    w = World()
    keep = w.remember("Allergic to peanuts", importance=0.9)
    drop = w.remember("Had pasta on Tuesday", importance=0.1)

    assert w.prune(cap=1)["pruned"] == 1

    closed = w.store.get("acme", drop.id, include_closed=True)
    assert closed.valid_to is not None
    last = w.store.history("acme", drop.id)[-1]
    assert (last.event, last.actor, last.note, last.old_memory) == (
        Event.DELETE,
        "maintenance",
        "pruned",
        "Had pasta on Tuesday",
    )
    assert w.index.ids("acme", "alice") == {keep.id}
    assert w.prune(cap=1) == {"scopes": 1, "over_cap": 0, "pruned": 0, "conflicts": 0}


def test_protected_facts_are_never_pruned_even_when_they_alone_exceed_the_cap() -> None:
    w = World()
    w.remember("Name is Alice", importance=0.0, is_protected=True)
    w.remember("Born in Lyon", importance=0.0, is_protected=True)
    w.remember("Likes tea", importance=1.0)

    assert w.prune(cap=1)["pruned"] == 1
    assert w.current() == {"Name is Alice", "Born in Lyon"}


def test_under_the_cap_nothing_is_touched() -> None:
    w = World()
    w.remember("Likes tea", importance=0.0)
    w.remember("Likes coffee", importance=0.0)

    assert w.prune(cap=2) == {"scopes": 1, "over_cap": 0, "pruned": 0, "conflicts": 0}
    assert w.current() == {"Likes tea", "Likes coffee"}
    assert len(w.store.events) == 2


def test_an_attachment_of_a_pruned_fact_stays_while_another_memory_holds_it() -> None:
    w = World()
    w.blobs.put("blobs/cv", b"pdf")
    w.attachments.create(
        Attachment(
            id="cv", tenant_id="acme", name="cv.pdf", media_type="application/pdf", blob_key="blobs/cv", stored=True
        )
    )
    keep = w.remember("Works as a nurse", importance=0.9, attachment_ids=["cv"])
    w.remember("Sent a CV once", importance=0.1, attachment_ids=["cv"])

    w.prune(cap=1)

    assert w.attachments.holders("acme", "cv") == [keep.id]
    assert w.blobs.get("blobs/cv") == b"pdf"
