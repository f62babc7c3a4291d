"""Search hits come from the memories the index keeps (no fact-store read), and those stay the
current versions through corrections, deletes and restarts."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

from engram.adapters.embedded.index import EmbeddedIndex
from engram.domain.index_ports import FactViews
from engram.domain.models import Fact, MemoryPatch, SearchFilters, SearchQuery
from engram.services.memory import MemoryService
from tests.fakes import HashEmbedder, MemoryFactStore, MemoryQueue, MemoryTaskStore

DIMS = HashEmbedder().dimensions


class CountingStore(MemoryFactStore):
    def __init__(self) -> None:
        super().__init__()
        self.reads: list[list[str]] = []

    def get_many(self, tenant_id: str, memory_ids: Sequence[str]) -> list[Fact]:
        self.reads.append(list(memory_ids))
        return super().get_many(tenant_id, memory_ids)


class CountingEmbedder(HashEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.texts += texts
        return super().embed(texts)


def remember(memories: MemoryService, tenant: str, user: str, *texts: str, **fields: object) -> list[Fact]:
    facts = [Fact(tenant_id=tenant, user_id=user, text=t, **fields) for t in texts]  # type: ignore[arg-type]
    batch = memories.lifecycle.changes(tenant, user)  # type: ignore[union-attr]
    for fact in facts:
        batch.add(fact, "test")
    batch.commit()
    return facts


def service(index: EmbeddedIndex, store: CountingStore | None = None) -> MemoryService:
    embedder = CountingEmbedder()
    return MemoryService(store or CountingStore(), index, embedder, MemoryTaskStore(), MemoryQueue())


def search(memories: MemoryService, query: str, user: str = "alice", **kw: object) -> list[Fact]:
    return [f for f, _ in memories.search("acme", SearchQuery(user_id=user, query=query, **kw))]  # type: ignore[arg-type]


def test_search_answers_from_the_index_without_reading_the_fact_store() -> None:
    store = CountingStore()
    memories = service(EmbeddedIndex(None, DIMS), store)
    (berlin, _) = remember(memories, "acme", "alice", "Lives in Berlin", "Loves pizza", importance=0.9)
    found = search(memories, "Berlin")
    assert found[0] == store.get("acme", berlin.id)  # the whole memory, as stored
    assert store.reads == []


def test_a_corrected_memory_is_found_with_its_new_text_and_version() -> None:
    memories = service(EmbeddedIndex(None, DIMS))
    (berlin,) = remember(memories, "acme", "alice", "Lives in Berlin")
    memories.update("acme", berlin.id, MemoryPatch(text="Lives in Hamburg"))
    (found,) = search(memories, "Hamburg")
    assert (found.text, found.version) == ("Lives in Hamburg", 2)


def test_a_change_outside_the_indexed_fields_shows_without_a_new_embedding() -> None:
    memories = service(EmbeddedIndex(None, DIMS))
    (berlin,) = remember(memories, "acme", "alice", "Lives in Berlin")
    embedder = memories.embedder
    assert isinstance(embedder, CountingEmbedder)
    embedded = len(embedder.texts)
    memories.update("acme", berlin.id, MemoryPatch(importance=0.95, is_protected=True))
    assert len(embedder.texts) == embedded  # the kept memory was replaced, the vector kept
    (found,) = search(memories, "Berlin")
    assert (found.importance, found.is_protected, found.version) == (0.95, True, 2)


def test_a_deleted_memory_is_not_found() -> None:
    memories = service(EmbeddedIndex(None, DIMS))
    (berlin, pizza) = remember(memories, "acme", "alice", "Lives in Berlin", "Loves pizza")
    memories.delete("acme", berlin.id)
    assert [f.id for f in search(memories, "Berlin")] == [pizza.id]


def test_kept_memories_are_scoped_to_their_tenant_and_user() -> None:
    index = EmbeddedIndex(None, DIMS)
    memories = service(index)
    (berlin,) = remember(memories, "acme", "alice", "Lives in Berlin")
    assert isinstance(index, FactViews)
    assert index.views("acme", "bob", [berlin.id]) == {}
    assert index.views("other", "alice", [berlin.id]) == {}
    assert search(memories, "Berlin", user="bob") == []


def test_filters_still_apply_to_memories_served_from_the_index() -> None:
    memories = service(EmbeddedIndex(None, DIMS))
    remember(memories, "acme", "alice", "Lives in Berlin", agent_id="a1")
    (other,) = remember(memories, "acme", "alice", "Moved to Berlin last year", agent_id="a2")
    assert [f.id for f in search(memories, "Berlin", filters=SearchFilters(agent_id="a2"))] == [other.id]


def test_kept_memories_survive_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite3"
    store = CountingStore()
    memories = service(EmbeddedIndex(path, DIMS), store)
    (berlin,) = remember(memories, "acme", "alice", "Lives in Berlin")
    memories.update("acme", berlin.id, MemoryPatch(importance=0.2))
    memories.index.close()  # type: ignore[attr-defined]

    reopened = service(EmbeddedIndex(path, DIMS), store)
    (found,) = search(reopened, "Berlin")
    assert (found.importance, found.version) == (0.2, 2)
    assert store.reads == []


def test_an_index_file_from_before_kept_memories_falls_back_to_the_fact_store(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite3"
    store = CountingStore()
    memories = service(EmbeddedIndex(path, DIMS), store)
    (berlin,) = remember(memories, "acme", "alice", "Lives in Berlin")
    memories.index.close()  # type: ignore[attr-defined]
    with sqlite3.connect(path) as db:  # the file as an older version wrote it
        db.execute("ALTER TABLE index_docs DROP COLUMN fact")

    reopened = service(EmbeddedIndex(path, DIMS), store)
    (found,) = search(reopened, "Berlin")
    assert found == store.get("acme", berlin.id)
    assert store.reads == [[berlin.id]]


def test_a_replayed_add_never_brings_back_an_older_or_deleted_memory() -> None:
    memories = service(EmbeddedIndex(None, DIMS))
    (berlin, pizza) = remember(memories, "acme", "alice", "Lives in Berlin", "Loves pizza")
    memories.update("acme", berlin.id, MemoryPatch(text="Lives in Hamburg"))
    memories.delete("acme", pizza.id)
    batch = memories.lifecycle.changes("acme", "alice")  # type: ignore[union-attr]
    for fact in (berlin, pizza):  # the same task again, e.g. after a crash before its index write
        batch.add(fact, "test")
    batch.commit()
    assert [(f.text, f.version) for f in search(memories, "Berlin Hamburg pizza")] == [("Lives in Hamburg", 2)]
