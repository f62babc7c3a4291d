"""Repair keeps the index 1:1 with current facts: restores missing docs, removes orphans, idempotent."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import UTC, datetime

from engram.domain.models import Event, Fact
from engram.maintenance.repair import RepairService
from engram.maintenance.scanner import select_scopes
from engram.writes.unit_of_work import history_event, index_doc
from tests.fakes import HashEmbedder, MemoryFactStore, MemoryIndex


class MemoryFactScanner:
    """FactScanner over the in-memory fact store (tests only)."""

    def __init__(self, store: MemoryFactStore) -> None:
        self.store = store

    def scopes(self) -> Iterator[tuple[str, str]]:
        yield from dict.fromkeys((f.tenant_id, f.user_id) for f in self.store.current.values() if f.is_current)

    def current(self, tenant_id: str, user_id: str) -> list[Fact]:
        return self.store.list_current(tenant_id, user_id, limit=1_000_000).items


class RecordingEmbedder(HashEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.batches: list[int] = []

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.batches.append(len(texts))
        return super().embed(texts)


def remember(store: MemoryFactStore, text: str, user: str = "alice", tenant: str = "acme") -> Fact:
    fact = Fact(tenant_id=tenant, user_id=user, text=text)
    store.add(fact, history_event(fact, Event.ADD, None, text, "test"))
    return fact


def indexed(index: MemoryIndex, embedder: HashEmbedder, *facts: Fact) -> None:
    index.upsert([index_doc(f, v) for f, v in zip(facts, embedder.embed([f.text for f in facts]), strict=True)])


def test_repair_restores_a_missing_doc_removes_orphans_and_a_second_run_changes_nothing() -> None:
    store, index, embedder = MemoryFactStore(), MemoryIndex(), RecordingEmbedder()
    jazz, berlin, lost = remember(store, "Loves jazz"), remember(store, "Lives in Berlin"), remember(store, "Has a cat")
    bob = remember(store, "Works as a nurse", user="bob")
    gone = remember(store, "Likes tea")
    indexed(index, embedder, jazz, berlin, bob, gone)  # `lost` never reached the index
    store.close(gone, datetime.now(UTC), history_event(gone, Event.DELETE, gone.text, None, "test"))
    indexed(index, embedder, Fact(id="ghost", tenant_id="acme", user_id="bob", text="never stored"))
    repair = RepairService(MemoryFactScanner(store), store, index, embedder)

    assert repair.run() == {"scopes": 2, "reindexed": 1, "orphans_removed": 2}

    assert index.ids("acme", "alice") == {jazz.id, berlin.id, lost.id}
    assert index.ids("acme", "bob") == {bob.id}
    restored = index.docs[("acme", "alice", lost.id)]
    assert restored.text == "Has a cat" and restored.vector == embedder.embed(["Has a cat"])[0]
    calls = embedder.calls
    assert repair.run() == {"scopes": 2, "reindexed": 0, "orphans_removed": 0}
    assert embedder.calls == calls  # nothing to embed the second time
    assert index.ids("acme", "alice") == {jazz.id, berlin.id, lost.id}


def test_missing_docs_are_embedded_in_batches_of_at_most_64() -> None:
    store, index, embedder = MemoryFactStore(), MemoryIndex(), RecordingEmbedder()
    facts = [remember(store, f"Fact number {i}") for i in range(130)]

    report = RepairService(MemoryFactScanner(store), store, index, embedder).run()

    assert report["reindexed"] == 130
    assert embedder.batches == [64, 64, 2]
    assert index.ids("acme", "alice") == {f.id for f in facts}


def test_a_doc_whose_fact_the_listing_has_not_caught_up_with_is_kept() -> None:
    store, index, embedder = MemoryFactStore(), MemoryIndex(), HashEmbedder()
    old, fresh = remember(store, "Loves jazz"), remember(store, "Lives in Berlin")
    indexed(index, embedder, old, fresh)

    class LaggingScanner(MemoryFactScanner):  # like a GSI that has not seen the newest write yet
        def current(self, tenant_id: str, user_id: str) -> list[Fact]:
            return [f for f in super().current(tenant_id, user_id) if f.id != fresh.id]

    report = RepairService(LaggingScanner(store), store, index, embedder).run()

    assert report["orphans_removed"] == 0
    assert index.ids("acme", "alice") == {old.id, fresh.id}


def test_a_named_user_without_current_facts_gets_their_orphans_cleared() -> None:
    store, index, embedder = MemoryFactStore(), MemoryIndex(), HashEmbedder()
    remember(store, "Loves jazz")
    indexed(index, embedder, Fact(id="stale", tenant_id="acme", user_id="carol", text="deleted long ago"))
    scanner = MemoryFactScanner(store)

    assert ("acme", "carol") not in set(scanner.scopes())
    report = RepairService(scanner, store, index, embedder).run(select_scopes(scanner, "acme", "carol"))

    assert report == {"scopes": 1, "reindexed": 0, "orphans_removed": 1}
    assert index.ids("acme", "carol") == set()


def test_scope_selection_narrows_to_one_tenant_and_never_crosses_tenants() -> None:
    store, index, embedder = MemoryFactStore(), MemoryIndex(), HashEmbedder()
    remember(store, "Loves jazz")
    other = remember(store, "Loves opera", tenant="globex")
    scanner = MemoryFactScanner(store)

    report = RepairService(scanner, store, index, embedder).run(select_scopes(scanner, tenant_id="acme"))

    assert report["scopes"] == 1
    assert index.ids("globex", other.user_id) == set()  # the other tenant was not touched
