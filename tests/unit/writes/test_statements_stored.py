"""Every memory carries the statements it makes (issue 42, "One model of a statement"): the unit of work
reads them through the StatementReader port as memories are written, once per batch, and again when a
memory's text changes, so every write path (extraction, kept messages, parts, imports, corrections,
maintenance) stores them the same way."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from engram.domain.models import Event, Fact, MemoryPatch, SearchFilters
from engram.domain.statements import Statement
from engram.services.memory import MemoryService
from engram.writes.unit_of_work import Lifecycle, history_event, index_doc, next_version
from tests.fakes import HashEmbedder, MemoryFactStore, MemoryIndex, MemoryQueue, MemoryTaskStore

HOME_YORK = Statement(attribute="home", value="York", single=True)
WORK = Statement(attribute="employer", value="Soins Alpins", single=True)
HOME_LEEDS = Statement(attribute="home", value="Leeds", single=True)
READS = {
    "I live in York and work at Soins Alpins": (HOME_YORK, WORK),
    "I live in Leeds": (HOME_LEEDS,),
    "Always answer in French": (Statement(attribute="language", value="French"),),
}


class Reader:
    """The StatementReader port as a table of texts; records each call's texts."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def statements(self, texts: Sequence[str]) -> list[tuple[Statement, ...]]:
        self.calls.append(list(texts))
        return [READS.get(t, ()) for t in texts]


def lifecycle(reader: Reader) -> Lifecycle:
    return Lifecycle(MemoryFactStore(), MemoryIndex(), HashEmbedder(), statements=reader)


def memory(text: str, **fields: object) -> Fact:
    return Fact(tenant_id="acme", user_id="alice", text=text, **fields)  # type: ignore[arg-type]


def stored(life: Lifecycle, fact: Fact) -> Fact:
    return life.facts.get("acme", fact.id)


def test_new_memories_store_their_statements_read_in_one_call() -> None:
    reader = Reader()
    life = lifecycle(reader)
    both, moved, said = memory("I live in York and work at Soins Alpins"), memory("I live in Leeds"), memory("hello")
    batch = life.changes("acme", "alice")
    for fact in (both, moved, said):
        batch.add(fact, actor="test")
    batch.commit()

    assert stored(life, both).statements == [HOME_YORK, WORK]
    assert stored(life, moved).statements == [HOME_LEEDS]
    assert stored(life, said).statements == []
    assert reader.calls == [["I live in York and work at Soins Alpins", "I live in Leeds", "hello"]]
    # The memory the caller holds has them too: marking it later (same text) keeps them.
    assert both.statements == [HOME_YORK, WORK]
    batch = life.changes("acme", "alice")
    batch.rewrite(both, next_version(both, outdated_by=["m-later"]), actor="test")
    batch.commit()
    assert stored(life, both).statements == [HOME_YORK, WORK]
    # The index holds them too: a later stage filters by attribute without reading the fact store.
    assert life.index.docs[("acme", "alice", both.id)].statements == [HOME_YORK, WORK]


def test_an_instruction_states_nothing_about_the_user() -> None:
    reader = Reader()
    life = lifecycle(reader)
    rule = memory("Always answer in French", kind="instruction", statements=[Statement(attribute="x", value="y")])
    batch = life.changes("acme", "alice")
    batch.add(rule, actor="test")
    batch.commit()

    assert stored(life, rule).statements == []
    assert reader.calls == []


def test_statements_given_with_a_memory_are_kept_as_given() -> None:
    """An import of an export that carries statements (their `outdated_by` included) stores them as they were."""
    reader = Reader()
    life = lifecycle(reader)
    given = [HOME_YORK.model_copy(update={"outdated_by": "m-later"}), WORK]
    fact = memory("I live in York and work at Soins Alpins", statements=given)
    batch = life.changes("acme", "alice")
    batch.add(fact, actor="import")
    batch.commit()

    assert stored(life, fact).statements == given
    assert reader.calls == []


def test_a_new_text_re_derives_the_statements_and_other_changes_keep_them() -> None:
    reader = Reader()
    life = lifecycle(reader)
    fact = memory("I live in York and work at Soins Alpins")
    batch = life.changes("acme", "alice")
    batch.add(fact, actor="test")
    batch.commit()
    first = stored(life, fact)

    batch = life.changes("acme", "alice")
    tagged = batch.rewrite(first, next_version(first, metadata={"topic": "home"}), actor="api")
    batch.commit()
    assert tagged.statements == stored(life, fact).statements == [HOME_YORK, WORK]
    assert len(reader.calls) == 1  # nothing read again for a change of metadata

    batch = life.changes("acme", "alice")
    moved = batch.rewrite(tagged, next_version(tagged, "I live in Leeds"), actor="api")
    batch.commit()
    assert moved.statements == stored(life, fact).statements == [HOME_LEEDS]
    assert life.index.docs[("acme", "alice", fact.id)].statements == [HOME_LEEDS]


def test_a_patch_of_the_text_answers_with_the_re_derived_statements() -> None:
    reader = Reader()
    life = lifecycle(reader)
    service = MemoryService(life.facts, life.index, life.embedder, MemoryTaskStore(), MemoryQueue(), lifecycle=life)
    fact = memory("I live in York and work at Soins Alpins", statements=[HOME_YORK, WORK])
    life.facts.add(fact, history_event(fact, Event.ADD, None, fact.text, "test"))

    assert service.update("acme", fact.id, MemoryPatch(metadata={"a": 1})).statements == [HOME_YORK, WORK]
    assert service.update("acme", fact.id, MemoryPatch(text="I live in Leeds")).statements == [HOME_LEEDS]
    assert stored(life, fact).statements == [HOME_LEEDS]


def test_the_embedded_index_filters_by_a_statements_attribute_and_subject(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from engram.adapters.embedded.index import EmbeddedIndex

    embedder = HashEmbedder()
    path = tmp_path / "index.db"
    index = EmbeddedIndex(path, embedder.dimensions)
    both = memory("I live in York and work at Soins Alpins", statements=[HOME_YORK, WORK])
    sister = memory("my sister lives in Leeds", statements=[HOME_LEEDS.model_copy(update={"subject": "my sister"})])
    index.upsert([index_doc(f, embedder.embed([f.text])[0]) for f in (both, sister)])
    query = embedder.embed(["where do they live"])[0]

    def found(filters: SearchFilters, idx: EmbeddedIndex) -> set[str]:
        return {hit.id for hit in idx.knn("acme", "alice", query, 10, filters)}

    assert found(SearchFilters(attribute="employer"), index) == {both.id}
    assert found(SearchFilters(attribute="home"), index) == {both.id, sister.id}
    assert found(SearchFilters(attribute="home", subject="my sister"), index) == {sister.id}
    index.close()
    reopened = EmbeddedIndex(path, embedder.dimensions)  # loaded back from its file
    assert found(SearchFilters(attribute="employer"), reopened) == {both.id}
    reopened.close()


def test_an_index_file_written_before_statements_still_loads_and_keeps_its_documents(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import sqlite3

    from engram.adapters.embedded.index import EmbeddedIndex

    path = tmp_path / "old.db"
    old = sqlite3.connect(path)  # the table as files made before `stated` hold it
    old.execute(
        "CREATE TABLE index_docs (tenant_id TEXT NOT NULL, user_id TEXT NOT NULL, id TEXT NOT NULL, agent_id TEXT,"
        " run_id TEXT, memory_bank TEXT NOT NULL, metadata TEXT NOT NULL, text TEXT NOT NULL, created_at TEXT NOT"
        " NULL, vector BLOB NOT NULL, fact TEXT, PRIMARY KEY (tenant_id, user_id, id))"
    )
    embedder = HashEmbedder()
    vector = embedder.embed(["likes tea"])[0]
    old.execute(
        "INSERT INTO index_docs VALUES (?, ?, ?, NULL, NULL, 'General', '{}', 'likes tea', ?, ?, NULL)",
        ("acme", "alice", "m-old", "2025-01-01T00:00:00+00:00", np.asarray(vector, dtype="<f4").tobytes()),
    )
    old.commit()
    old.close()

    index = EmbeddedIndex(path, embedder.dimensions)
    assert [h.id for h in index.knn("acme", "alice", vector, 5)] == ["m-old"]
    assert index.knn("acme", "alice", vector, 5, SearchFilters(attribute="home")) == []
    both = memory("I live in York and work at Soins Alpins", statements=[HOME_YORK, WORK])
    index.upsert([index_doc(both, embedder.embed([both.text])[0])])
    assert [h.id for h in index.knn("acme", "alice", vector, 5, SearchFilters(attribute="home"))] == [both.id]
    index.close()
