"""The OpenSearch adapter against a real cluster (skipped unless OPENSEARCH_URL is set).

OPENSEARCH_URL=http://localhost:9200 (optionally OPENSEARCH_USER / OPENSEARCH_PASSWORD and
OPENSEARCH_KNN_ENGINE=lucene for clusters older than 2.19, where faiss has no cosine space).
Each run uses its own index and deletes it at the end. Only the test refreshes; the adapter never does.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest

from engram.adapters.opensearch.index import OpenSearchIndex
from engram.domain.errors import EngramError
from engram.domain.models import IndexDoc, SearchFilters

pytestmark = [
    pytest.mark.opensearch,
    pytest.mark.skipif(not os.environ.get("OPENSEARCH_URL"), reason="needs a real OpenSearch at OPENSEARCH_URL"),
]

DIMS = 8


def unit(values: list[float]) -> list[float]:
    array = np.asarray(values, dtype=np.float64)
    return (array / np.linalg.norm(array)).tolist()  # type: ignore[no-any-return]


def axis(i: int, lean: float = 0.0) -> list[float]:
    values = [0.0] * DIMS
    values[i] = 1.0
    values[(i + 1) % DIMS] = lean
    return unit(values)


@pytest.fixture(scope="module")
def client() -> Any:
    from opensearchpy import OpenSearch

    user, password = os.environ.get("OPENSEARCH_USER"), os.environ.get("OPENSEARCH_PASSWORD")
    return OpenSearch(
        hosts=[os.environ["OPENSEARCH_URL"]],
        http_auth=(user, password) if user and password else None,
        verify_certs=False,
        ssl_show_warn=False,
        timeout=30,
    )


@pytest.fixture(scope="module")
def index(client: Any) -> Iterator[OpenSearchIndex]:
    name = f"engram-test-{uuid.uuid4().hex[:12]}"
    engine = os.environ.get("OPENSEARCH_KNN_ENGINE", "faiss")
    adapter = OpenSearchIndex(client, name, DIMS, engine=engine)
    adapter.ensure_index()
    adapter.ensure_index()  # idempotent
    docs = [
        IndexDoc(id="near", tenant_id="t1", user_id="u1", text="Loves hiking with her dogs", vector=axis(0)),
        IndexDoc(
            id="close",
            tenant_id="t1",
            user_id="u1",
            text="Works at Acme as an engineer",
            vector=axis(0, 0.5),
            memory_bank="Work",
            agent_id="bot",
            metadata={"source": "chat", "pinned": True},
        ),
        IndexDoc(
            id="far",
            tenant_id="t1",
            user_id="u1",
            text="Allergic to peanuts",
            vector=axis(3),
            memory_bank="Health",
            metadata={"source": "email", "n": 5},
        ),
        IndexDoc(id="other-user", tenant_id="t1", user_id="u2", text="Hiking every weekend", vector=axis(0)),
        IndexDoc(id="other-tenant", tenant_id="t2", user_id="u1", text="Hiking in the Alps", vector=axis(0)),
    ]
    adapter.upsert(docs)
    client.indices.refresh(index=name)
    try:
        yield adapter
    finally:
        client.indices.delete(index=name)


def test_index_mapping_is_a_cosine_hnsw_knn_index(client: Any, index: OpenSearchIndex) -> None:
    mapping = client.indices.get_mapping(index=index.index_name)[index.index_name]["mappings"]
    method = mapping["properties"]["vector"]["method"]
    assert mapping["properties"]["vector"]["dimension"] == DIMS
    assert (method["name"], method["space_type"], method["engine"]) == ("hnsw", "cosinesimil", index.engine)
    settings = client.indices.get_settings(index=index.index_name)[index.index_name]["settings"]
    assert settings["index"]["knn"] == "true"


def test_knn_orders_by_cosine_within_the_user(index: OpenSearchIndex) -> None:
    hits = index.knn("t1", "u1", axis(0), 3)
    assert [h.id for h in hits] == ["near", "close", "far"]
    assert hits[0].score == pytest.approx(1.0, abs=1e-3)
    assert hits[1].score == pytest.approx(float(np.dot(axis(0), axis(0, 0.5))), abs=1e-3)
    assert hits[2].score == pytest.approx(0.0, abs=1e-3)


def test_knn_filters_return_k_matching_docs(index: OpenSearchIndex) -> None:
    assert [h.id for h in index.knn("t1", "u1", axis(0), 1, SearchFilters(memory_bank="Health"))] == ["far"]
    assert [h.id for h in index.knn("t1", "u1", axis(0), 5, SearchFilters(agent_id="bot"))] == ["close"]
    pinned = SearchFilters(metadata={"pinned": True})
    assert [h.id for h in index.knn("t1", "u1", axis(3), 5, pinned)] == ["close"]
    assert [h.id for h in index.knn("t1", "u1", axis(0), 5, SearchFilters(metadata={"n": 5}))] == ["far"]


def test_tenants_and_users_are_isolated(index: OpenSearchIndex) -> None:
    assert index.ids("t1", "u1") == {"near", "close", "far"}
    assert index.ids("t1", "u2") == {"other-user"}
    assert index.ids("t2", "u1") == {"other-tenant"}
    assert {h.id for h in index.knn("t2", "u1", axis(0), 10)} == {"other-tenant"}
    assert {h.id for h in index.text_search("t1", "u2", "hiking", 10)} == {"other-user"}


def test_text_search_stems_and_filters(index: OpenSearchIndex) -> None:
    assert [h.id for h in index.text_search("t1", "u1", "hikes dog", 5)] == ["near"]
    assert index.text_search("t1", "u1", "hiking", 5, SearchFilters(memory_bank="Work")) == []
    assert [h.id for h in index.text_search("t1", "u1", "engineer", 5, SearchFilters(agent_id="bot"))] == ["close"]


def test_overwrite_and_delete(client: Any, index: OpenSearchIndex) -> None:
    index.upsert([IndexDoc(id="tmp", tenant_id="t9", user_id="u9", text="likes tea", vector=axis(5))])
    index.upsert([IndexDoc(id="tmp", tenant_id="t9", user_id="u9", text="likes coffee", vector=axis(6))])
    client.indices.refresh(index=index.index_name)
    assert index.ids("t9", "u9") == {"tmp"}
    assert index.text_search("t9", "u9", "tea", 5) == []
    assert [h.id for h in index.text_search("t9", "u9", "coffee", 5)] == ["tmp"]

    index.delete("t9", "u9", ["tmp", "never-existed"])
    client.indices.refresh(index=index.index_name)
    assert index.ids("t9", "u9") == set()


def test_neighbours_follow_recording_order_within_the_filters(client: Any, index: OpenSearchIndex) -> None:
    start = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
    turns = [("n0", 0, "Interests"), ("n1", 1, "Work"), ("n2", 2, "Interests"), ("n3", 90, "Interests")]
    index.upsert(
        [
            IndexDoc(
                id=i,
                tenant_id="t7",
                user_id="u7",
                text=i,
                vector=axis(1),
                memory_bank=bank,
                created_at=start + timedelta(minutes=minutes),
            )
            for i, minutes, bank in turns
        ]
    )
    client.indices.refresh(index=index.index_name)
    interests = SearchFilters(memory_bank="Interests")

    assert index.neighbours("t7", "u7", ["n0", "n2"]) == {"n0": ["n1"], "n2": ["n1"]}
    assert index.neighbours("t7", "u7", ["n0"], interests) == {"n0": ["n2"]}
    assert index.neighbours("t7", "u7", ["n2"], interests, within_seconds=7200) == {"n2": ["n0", "n3"]}
    assert index.neighbours("t1", "u1", ["n0"]) == {}  # another user's memory: nothing


def test_missing_index_is_a_clear_error(client: Any) -> None:
    missing = OpenSearchIndex(client, f"engram-missing-{uuid.uuid4().hex[:8]}", DIMS)
    with pytest.raises(EngramError, match=r"no such index|index_not_found"):
        missing.text_search("t1", "u1", "hiking", 3)
