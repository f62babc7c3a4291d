"""Large users get a coarse first pass in the embedded index; what it returns is still the exact
top k (cosines re-scored from the full vectors), and writes after the fit keep it in step."""

from __future__ import annotations

import numpy as np
import pytest

from engram.adapters.embedded import coarse
from engram.adapters.embedded.index import EmbeddedIndex
from engram.domain.models import IndexDoc, SearchFilters

DIMS = 96
ROWS = 3000


def sentence_like(n: int, rng: np.random.Generator) -> np.ndarray:
    """Unit vectors with most variance in a few directions, as sentence embeddings have."""
    latent = rng.standard_normal((n, 12)) @ rng.standard_normal((12, DIMS))
    vectors = latent + 0.15 * rng.standard_normal((n, DIMS))
    return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)


@pytest.fixture
def big(monkeypatch: pytest.MonkeyPatch) -> tuple[EmbeddedIndex, np.ndarray]:
    monkeypatch.setattr(coarse, "MIN_ROWS", 1000)
    monkeypatch.setattr(coarse, "RANK", 24)
    monkeypatch.setattr(coarse, "MIN_RESCORE", 100)
    vectors = sentence_like(ROWS, np.random.default_rng(1))
    index = EmbeddedIndex(None, DIMS)
    index.upsert(
        [
            IndexDoc(
                id=f"m{i}",
                tenant_id="t",
                user_id="u",
                text=f"memory {i}",
                vector=v.tolist(),
                memory_bank="Work" if i % 2 else "Personal",
            )
            for i, v in enumerate(vectors)
        ]
    )
    return index, vectors


def exact(vectors: np.ndarray, query: np.ndarray, k: int, rows: np.ndarray | None = None) -> list[str]:
    scores = vectors @ query
    order = np.argsort(-scores)
    if rows is not None:
        order = [i for i in order if i in set(rows.tolist())]
    return [f"m{i}" for i in order[:k]]


def test_a_large_user_gets_the_exact_top_k_with_exact_scores(big: tuple[EmbeddedIndex, np.ndarray]) -> None:
    index, vectors = big
    queries = sentence_like(50, np.random.default_rng(2))
    same = 0
    for q in queries:
        hits = index.knn("t", "u", q.tolist(), 10)
        same += [h.id for h in hits] == exact(vectors, q, 10)
        for h in hits:
            assert h.score == pytest.approx(float(vectors[int(h.id[1:])] @ q), abs=1e-5)
    assert index._users[("t", "u")].coarse.active  # the coarse pass was used
    assert same >= 48  # of 50 queries, the exact top 10 in order


def test_filters_apply_before_the_coarse_pass(big: tuple[EmbeddedIndex, np.ndarray]) -> None:
    index, vectors = big
    q = sentence_like(1, np.random.default_rng(3))[0]
    hits = index.knn("t", "u", q.tolist(), 10, SearchFilters(memory_bank="Work"))
    assert all(int(h.id[1:]) % 2 == 1 for h in hits)
    assert [h.id for h in hits] == exact(vectors, q, 10, np.arange(1, ROWS, 2))


def test_deletes_and_updates_after_the_fit_are_seen(big: tuple[EmbeddedIndex, np.ndarray]) -> None:
    index, vectors = big
    q = vectors[7]
    index.knn("t", "u", q.tolist(), 5)  # fit
    index.delete("t", "u", ["m7"])
    assert "m7" not in [h.id for h in index.knn("t", "u", q.tolist(), 5)]
    # Another memory moves to where m7 pointed: it is found there.
    index.upsert([IndexDoc(id="m8", tenant_id="t", user_id="u", text="moved", vector=q.tolist())])
    top = index.knn("t", "u", q.tolist(), 1)[0]
    assert top.id == "m8" and top.score == pytest.approx(1.0, abs=1e-5)


def test_a_small_user_is_scored_exactly_without_a_projection() -> None:
    index = EmbeddedIndex(None, DIMS)
    vectors = sentence_like(50, np.random.default_rng(4))
    index.upsert(
        [IndexDoc(id=f"m{i}", tenant_id="t", user_id="u", text="x", vector=v.tolist()) for i, v in enumerate(vectors)]
    )
    hits = index.knn("t", "u", vectors[0].tolist(), 5)
    assert [h.id for h in hits] == exact(vectors, vectors[0], 5)
    assert not index._users[("t", "u")].coarse.active
