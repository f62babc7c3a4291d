"""Cosine in context: a memory is scored against its vector blended with its recording neighbours'."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np

from engram.adapters.embedded.index import EmbeddedIndex
from engram.domain.models import IndexDoc, SearchFilters

DIMS = 6
T0 = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
WEIGHTS = (0.3, 0.15)


def _index(minutes: list[float], vectors: np.ndarray) -> EmbeddedIndex:
    index = EmbeddedIndex(None, DIMS)
    index.upsert(
        [
            IndexDoc(
                id=f"m{i}",
                tenant_id="t",
                user_id="u",
                text=f"memory {i}",
                vector=vectors[i].tolist(),
                metadata={"run": "a" if i % 2 else "b"},
                created_at=T0 + timedelta(minutes=m),
            )
            for i, m in enumerate(minutes)
        ]
    )
    return index


def _blended_cosine(vectors: np.ndarray, query: np.ndarray, i: int, linked: set[int]) -> float:
    """The definition: cosine of the query with row i blended with its linked rows (by distance)."""
    units = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    blend = units[i].copy()
    for distance, weight in enumerate(WEIGHTS, start=1):
        for j in (i - distance, i + distance):
            if j in linked:  # distance |i - j|
                blend += weight * units[j]
    return float(blend @ query / np.linalg.norm(blend))


def test_scores_equal_the_cosine_with_each_blended_vector() -> None:
    rng = np.random.default_rng(3)
    vectors = rng.standard_normal((6, DIMS)).astype(np.float32)
    query = rng.standard_normal(DIMS).astype(np.float32)
    query /= np.linalg.norm(query)
    # Recorded out of id order; m5 is two hours after the rest: no neighbour of anyone within 30 minutes.
    minutes = [3.0, 0.0, 1.0, 2.0, 4.0, 120.0]
    index = _index(minutes, vectors)
    order = [1, 2, 3, 0, 4]  # recording order of the rows within the window

    hits = index.knn_in_context("t", "u", query.tolist(), 6, WEIGHTS, 1800.0)

    in_order = np.stack([vectors[row] for row in order])
    expected: dict[str, float] = {}
    for position, row in enumerate(order):
        linked = {p for p in (position - 2, position - 1, position + 1, position + 2) if 0 <= p < len(order)}
        expected[f"m{row}"] = _blended_cosine(in_order, query, position, linked)
    expected["m5"] = float(vectors[5] @ query / np.linalg.norm(vectors[5]))
    assert {h.id: round(h.score, 4) for h in hits} == {k: round(v, 4) for k, v in expected.items()}


def test_a_write_changes_the_blend_and_filters_give_plain_cosine() -> None:
    vectors = np.eye(DIMS, dtype=np.float32)
    index = _index([0.0, 1.0], vectors[:2])
    query = vectors[0].tolist()
    before = {h.id: h.score for h in index.knn_in_context("t", "u", query, 3, WEIGHTS)}
    assert before["m1"] > 0.0  # its neighbour m0 is the query itself
    index.delete("t", "u", ["m0"])
    after = {h.id: h.score for h in index.knn_in_context("t", "u", query, 3, WEIGHTS)}
    assert after == {"m1": 0.0}

    index = _index([0.0, 1.0], vectors[:2])
    filtered = index.knn_in_context("t", "u", query, 3, WEIGHTS, filters=SearchFilters(metadata={"run": "a"}))
    assert [(h.id, round(h.score, 6)) for h in filtered] == [("m1", 0.0)]
