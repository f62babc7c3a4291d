"""The embedded vector + text index: what the local stack (and every test fake) relies on."""

from __future__ import annotations

import math
import threading
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from engram.adapters.embedded.index import K1, B, EmbeddedIndex
from engram.domain.errors import EngramError, ValidationError
from engram.domain.models import IndexDoc, SearchFilters
from engram.text.terms import tokenize

DIMS = 16


def unit_vectors(n: int, seed: int = 0) -> np.ndarray:
    vectors = np.random.default_rng(seed).standard_normal((n, DIMS)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def doc(doc_id: str, vector: np.ndarray | list[float], text: str = "a memory", **fields: object) -> IndexDoc:
    values: dict[str, object] = {"tenant_id": "t1", "user_id": "u1", **fields}
    return IndexDoc(id=doc_id, text=text, vector=[float(x) for x in vector], **values)  # type: ignore[arg-type]


def brute_force(vectors: np.ndarray, ids: list[str], query: np.ndarray, k: int) -> list[str]:
    scores = vectors @ (query / np.linalg.norm(query))
    return [ids[i] for i in np.argsort(-scores, kind="stable")[:k]]


@pytest.fixture
def index() -> EmbeddedIndex:
    return EmbeddedIndex(None, DIMS)


def test_knn_matches_brute_force(index: EmbeddedIndex) -> None:
    vectors = unit_vectors(300)  # more than the initial capacity, so growth is exercised too
    ids = [f"m{i}" for i in range(300)]
    index.upsert([doc(i, v) for i, v in zip(ids, vectors, strict=True)])
    for seed in range(5):
        query = np.random.default_rng(100 + seed).standard_normal(DIMS).astype(np.float32)
        for k in (1, 7, 50):
            hits = index.knn("t1", "u1", query.tolist(), k)
            assert [h.id for h in hits] == brute_force(vectors, ids, query, k)
            expected = vectors @ (query / np.linalg.norm(query))
            for hit in hits:
                assert hit.score == pytest.approx(float(expected[ids.index(hit.id)]), abs=1e-5)


def test_knn_scores_are_cosine(index: EmbeddedIndex) -> None:
    index.upsert([doc("same", [1.0] + [0.0] * (DIMS - 1)), doc("opposite", [-2.0] + [0.0] * (DIMS - 1))])
    hits = index.knn("t1", "u1", [3.0] + [0.0] * (DIMS - 1), 5)
    assert [(h.id, round(h.score, 5)) for h in hits] == [("same", 1.0), ("opposite", -1.0)]


def test_k_larger_than_the_collection_returns_everything(index: EmbeddedIndex) -> None:
    index.upsert([doc(f"m{i}", v) for i, v in enumerate(unit_vectors(3))])
    assert len(index.knn("t1", "u1", unit_vectors(1, seed=9)[0].tolist(), 10)) == 3
    assert index.knn("t1", "nobody", unit_vectors(1, seed=9)[0].tolist(), 10) == []


def test_filter_is_applied_before_top_k(index: EmbeddedIndex) -> None:
    query = unit_vectors(1, seed=42)[0]
    vectors = unit_vectors(200, seed=1)
    order = np.argsort(-(vectors @ query))
    close, far = set(order[:60].tolist()), order[60:].tolist()
    docs = [doc(f"m{i}", v, memory_bank="Work" if i in close else "Personal") for i, v in enumerate(vectors)]
    index.upsert(docs)

    hits = index.knn("t1", "u1", query.tolist(), 10, SearchFilters(memory_bank="Personal"))

    assert [h.id for h in hits] == [f"m{i}" for i in far[:10]]


def test_filters_on_agent_run_and_metadata(index: EmbeddedIndex) -> None:
    vectors = unit_vectors(6)
    index.upsert(
        [
            doc("a", vectors[0], agent_id="bot", run_id="r1", metadata={"source": "chat", "pinned": True}),
            doc("b", vectors[1], agent_id="bot", run_id="r2", metadata={"source": "email", "n": 5}),
            doc("c", vectors[2], agent_id="other", metadata={"source": "chat", "tags": ["x", "y"]}),
            doc("d", vectors[3], metadata={"nested": {"color": "red"}}),
        ]
    )
    query = vectors[4].tolist()

    def found(**filters: object) -> set[str]:
        return {h.id for h in index.knn("t1", "u1", query, 10, SearchFilters(**filters))}  # type: ignore[arg-type]

    assert found(agent_id="bot") == {"a", "b"}
    assert found(agent_id="bot", run_id="r2") == {"b"}
    assert found(metadata={"source": "chat"}) == {"a", "c"}
    assert found(metadata={"source": "chat", "pinned": True}) == {"a"}
    assert found(metadata={"n": 5}) == {"b"}
    assert found(metadata={"tags": "y"}) == {"c"}
    assert found(metadata={"nested.color": "red"}) == {"d"}
    assert found(agent_id="nobody") == set()
    assert found(metadata={"pinned": False}) == set()


def test_tenants_and_users_are_isolated(index: EmbeddedIndex) -> None:
    vector = unit_vectors(1)[0]
    index.upsert(
        [
            doc("m1", vector, "likes hiking", tenant_id="t1", user_id="u1"),
            doc("m1", vector, "likes hiking", tenant_id="t2", user_id="u1"),
            doc("m2", vector, "likes hiking", tenant_id="t1", user_id="u2"),
        ]
    )
    assert {h.id for h in index.knn("t1", "u1", vector.tolist(), 10)} == {"m1"}
    assert {h.id for h in index.text_search("t1", "u2", "hiking", 10)} == {"m2"}
    assert index.ids("t3", "u1") == set()

    index.delete("t1", "u1", ["m1", "m2"])

    assert index.ids("t1", "u1") == set()
    assert index.ids("t2", "u1") == {"m1"}
    assert index.ids("t1", "u2") == {"m2"}


def test_delete_removes_docs_and_keeps_the_rest_searchable(index: EmbeddedIndex) -> None:
    vectors = unit_vectors(100)
    ids = [f"m{i}" for i in range(100)]
    index.upsert([doc(i, v, f"note {i} hiking") for i, v in zip(ids, vectors, strict=True)])
    gone = set(np.random.default_rng(3).choice(ids, 40, replace=False).tolist())

    index.delete("t1", "u1", [*sorted(gone), "never-existed"])

    kept = [i for i in ids if i not in gone]
    kept_vectors = vectors[[ids.index(i) for i in kept]]
    query = unit_vectors(1, seed=77)[0]
    assert index.ids("t1", "u1") == set(kept)
    assert [h.id for h in index.knn("t1", "u1", query.tolist(), 15)] == brute_force(kept_vectors, kept, query, 15)
    assert {h.id for h in index.text_search("t1", "u1", "hiking", 100)} == set(kept)
    assert {h.id for h in index.knn("t1", "u1", query.tolist(), 100)} == set(kept)


def test_upsert_of_the_same_id_overwrites(index: EmbeddedIndex) -> None:
    first, second = unit_vectors(2)
    index.upsert([doc("m1", first, "likes tea", memory_bank="Personal")])
    index.upsert([doc("m1", second, "likes coffee", memory_bank="Work")])

    assert index.ids("t1", "u1") == {"m1"}
    assert index.knn("t1", "u1", second.tolist(), 1)[0].score == pytest.approx(1.0, abs=1e-5)
    assert index.text_search("t1", "u1", "tea", 5) == []
    assert [h.id for h in index.text_search("t1", "u1", "coffee", 5)] == ["m1"]
    assert index.knn("t1", "u1", first.tolist(), 5, SearchFilters(memory_bank="Personal")) == []


def test_bm25_rare_term_outranks_common_term(index: EmbeddedIndex) -> None:
    vectors = unit_vectors(20)
    docs = [doc(f"common{i}", vectors[i], f"user likes coffee number {i}") for i in range(19)]
    docs.append(doc("rare", vectors[19], "user likes sushi"))
    index.upsert(docs)

    hits = index.text_search("t1", "u1", "coffee sushi", 5)

    assert hits[0].id == "rare"
    assert hits[0].score > hits[1].score > 0
    assert all(h.id.startswith("common") for h in hits[1:])


def test_bm25_scores_follow_the_formula(index: EmbeddedIndex) -> None:
    texts = ["dogs dogs and a cat", "a dog", "cat food for the hungry cat", "walking the dog in the park"]
    vectors = unit_vectors(len(texts))
    index.upsert([doc(f"m{i}", vectors[i], t) for i, t in enumerate(texts)])
    tokens = [tokenize(t) for t in texts]
    avgdl = sum(map(len, tokens)) / len(tokens)

    def expected(doc_terms: list[str], query_terms: list[str]) -> float:
        score = 0.0
        for term in set(query_terms):
            df = sum(term in t for t in tokens)
            tf = Counter(doc_terms)[term]
            if tf:
                idf = math.log(1 + (len(tokens) - df + 0.5) / (df + 0.5))
                score += idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * len(doc_terms) / avgdl))
        return score

    hits = index.text_search("t1", "u1", "dog cat", 10)
    assert {h.id for h in hits} == {"m0", "m1", "m2", "m3"}
    for hit in hits:
        want = expected(tokens[int(hit.id[1:])], tokenize("dog cat"))
        assert hit.score == pytest.approx(want, rel=1e-5)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_text_search_stems_and_filters(index: EmbeddedIndex) -> None:
    vectors = unit_vectors(3)
    index.upsert(
        [
            doc("a", vectors[0], "Loves hiking in the Alps", memory_bank="Interests"),
            doc("b", vectors[1], "Went on a hike with her dogs", memory_bank="Events"),
            doc("c", vectors[2], "Allergic to peanuts", memory_bank="Health"),
        ]
    )
    assert {h.id for h in index.text_search("t1", "u1", "hikes", 10)} == {"a", "b"}
    assert [h.id for h in index.text_search("t1", "u1", "hike", 10, SearchFilters(memory_bank="Events"))] == ["b"]
    assert index.text_search("t1", "u1", "the and of", 10) == []


def test_wrong_dimensions_are_rejected_and_nothing_is_written(index: EmbeddedIndex) -> None:
    good = unit_vectors(1)[0]
    with pytest.raises(ValidationError) as raised:
        index.upsert([doc("ok", good), doc("bad", [1.0, 0.0])])
    assert raised.value.field == "vector"
    assert index.ids("t1", "u1") == set()
    with pytest.raises(ValidationError):
        index.knn("t1", "u1", [1.0, 2.0], 3)
    with pytest.raises(ValidationError):
        index.upsert([doc("zero", [0.0] * DIMS)])


def test_persistence_survives_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "data" / "index.sqlite"
    vectors = unit_vectors(120)
    ids = [f"m{i}" for i in range(120)]
    first = EmbeddedIndex(path, DIMS)
    first.upsert(
        [
            doc(i, v, f"memory {n} about {'hiking' if n % 3 else 'sushi'}", metadata={"n": n % 4})
            for n, (i, v) in enumerate(zip(ids, vectors, strict=True))
        ]
    )
    first.upsert([doc("m0", vectors[0], "overwritten text about chess", metadata={"n": 0})])
    first.delete("t1", "u1", ["m5", "m6"])
    first.upsert([doc("other", vectors[1], "sushi", tenant_id="t2")])
    query = unit_vectors(1, seed=5)[0].tolist()
    only = SearchFilters(metadata={"n": 1})
    before = (
        first.ids("t1", "u1"),
        first.knn("t1", "u1", query, 10),
        first.knn("t1", "u1", query, 10, only),
        first.text_search("t1", "u1", "sushi chess", 10),
    )
    first.close()

    second = EmbeddedIndex(path, DIMS)
    after = (
        second.ids("t1", "u1"),
        second.knn("t1", "u1", query, 10),
        second.knn("t1", "u1", query, 10, only),
        second.text_search("t1", "u1", "sushi chess", 10),
    )

    assert after[0] == set(ids) - {"m5", "m6"}
    assert [h.id for h in after[1]] == [h.id for h in before[1]]
    assert [h.score for h in after[1]] == pytest.approx([h.score for h in before[1]], abs=1e-6)
    assert [h.id for h in after[2]] == [h.id for h in before[2]]
    assert [h.id for h in after[3]] == [h.id for h in before[3]]
    assert after[3][0].id == "m0"
    assert second.ids("t2", "u1") == {"other"}
    second.close()


def test_reopening_with_other_dimensions_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite"
    first = EmbeddedIndex(path, DIMS)
    first.upsert([doc("m1", unit_vectors(1)[0])])
    first.close()
    with pytest.raises(EngramError, match="dim"):
        EmbeddedIndex(path, DIMS * 2).ids("t1", "u1")


def test_a_closed_index_refuses_writes_instead_of_losing_them(tmp_path: Path) -> None:
    index = EmbeddedIndex(tmp_path / "index.sqlite", DIMS)
    index.close()
    with pytest.raises(EngramError, match="closed"):
        index.upsert([doc("m1", unit_vectors(1)[0])])
    assert EmbeddedIndex(tmp_path / "index.sqlite", DIMS).ids("t1", "u1") == set()


def test_concurrent_writers_and_readers(tmp_path: Path) -> None:
    index = EmbeddedIndex(tmp_path / "index.sqlite", DIMS)
    vectors = unit_vectors(400)
    errors: list[BaseException] = []

    def writer(worker: int) -> None:
        try:
            for n in range(worker * 100, worker * 100 + 100):
                index.upsert([doc(f"m{n}", vectors[n], f"fact {n} hiking")])
                if n % 10 == 0:
                    index.delete("t1", "u1", [f"m{n}"])
        except BaseException as exc:
            errors.append(exc)

    def reader() -> None:
        try:
            for n in range(200):
                for hit in index.knn("t1", "u1", vectors[n].tolist(), 5):
                    assert hit.id.startswith("m")
                index.text_search("t1", "u1", "hiking", 5)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(4)]
    threads += [threading.Thread(target=reader) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    expected = {f"m{n}" for n in range(400) if n % 10}
    assert index.ids("t1", "u1") == expected
    assert len(index.text_search("t1", "u1", "hiking", 1000)) == len(expected)
    index.close()
    assert EmbeddedIndex(tmp_path / "index.sqlite", DIMS).ids("t1", "u1") == expected


def test_a_german_memory_is_found_by_a_german_query_on_its_own_words(index: EmbeddedIndex) -> None:
    vectors = unit_vectors(4)
    index.upsert(
        [
            doc("munich", vectors[0], "Ich wohne in München"),
            doc("cure", vectors[1], "Ich mache eine Kur in Baden-Baden"),
            doc("course", vectors[2], "Mein Kurs beginnt im Mai"),
            doc("english", vectors[3], "I live in Berlin"),
        ]
    )
    assert index.text_search("t1", "u1", "Wo wohne ich?", 10)[0].id == "munich"
    # English suffix rules would cut "Kurs" (course) to "kur" (spa cure) and "meine" to "mein".
    assert [h.id for h in index.text_search("t1", "u1", "Wo mache ich meine Kur?", 10)] == ["cure", "munich"]
