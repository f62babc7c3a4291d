"""The speaker step on OpenSearch: the user's speakers listed once per container and TTL, who said each
candidate read from the candidate search itself, and a question naming a speaker ranked as the embedded
index ranks it (the name out of the embedded text, that speaker's memories lifted)."""

from __future__ import annotations

from typing import Any

import pytest

from engram.adapters.opensearch.index import OpenSearchIndex
from engram.adapters.opensearch.speakers import SpeakerCache
from engram.domain.models import IndexDoc
from engram.search.hybrid import HybridSearcher
from tests.integration.test_opensearch_requests import INDEX, WHEN, Script, make_index


@pytest.fixture
def script() -> Script:
    return Script()


def listed(*names: str) -> dict[str, Any]:
    buckets = [{"key": name, "doc_count": 1} for name in names]
    return {"hits": {"hits": []}, "aggregations": {"speakers": {"buckets": buckets}}}


def candidates(*found: tuple[str, float, str]) -> dict[str, Any]:
    hits = [{"_id": i, "_score": s, "_source": {"created_at": WHEN.isoformat(), "speaker": who}} for i, s, who in found]
    return {"hits": {"hits": hits}}


class RecordingEmbedder:
    dimensions = 3
    model_id = "recording"

    def __init__(self) -> None:
        self.texts: list[str] = []

    def embed(self, texts: list[str]) -> list[list[float]]:
        self.texts += texts
        return [[1.0, 0.0, 0.0] for _ in texts]


def test_the_users_speakers_are_one_scoped_aggregation_then_cached(script: Script) -> None:
    index = make_index(script)
    script.responses = [(200, listed("Evan", "Sam"))]

    assert index.speakers_among("t1", "u1", {"Evan", "car", "Evan drive"}) == {"Evan"}
    assert index.speakers_among("t1", "u1", {"Sam", "Maria"}) == {"Sam"}  # from the cache

    assert len(script.requests) == 1
    body = script.requests[0].body
    assert script.requests[0].path == f"/{INDEX}/_search"
    assert body["size"] == 0 and body["aggs"]["speakers"]["terms"]["field"] == "speaker"
    assert body["query"]["bool"]["filter"] == [{"term": {"tenant_id": "t1"}}, {"term": {"user_id": "u1"}}]
    script.responses = [(200, listed("Zoe"))]
    assert index.speakers_among("t1", "u2", {"Evan", "Zoe"}) == {"Zoe"}  # another user: its own list


def test_a_listed_user_expires_after_the_ttl_and_learns_speakers_this_container_indexed() -> None:
    now = [0.0]
    cache = SpeakerCache(ttl_s=300, clock=lambda: now[0])
    cache.store("t1", "u1", frozenset({"Evan"}))
    cache.heard("t1", "u1", ["Sam"])
    assert cache.speakers("t1", "u1") == {"Evan", "Sam"}
    now[0] = 301.0
    assert cache.speakers("t1", "u1") is None


def test_indexing_copies_the_speaker_and_a_listed_user_hears_it(script: Script) -> None:
    index = make_index(script)
    script.responses = [(200, listed("Evan"))]
    index.speakers_among("t1", "u1", {"Evan"})
    script.responses = [(200, {"errors": False, "items": []})]
    doc = IndexDoc(
        id="m1", tenant_id="t1", user_id="u1", text="Hi", vector=[1.0, 0.0, 0.0], metadata={"speaker": "Sam"}
    )

    index.upsert([doc])

    assert script.requests[1].body[1]["speaker"] == "Sam"
    assert index.speakers_among("t1", "u1", {"Sam"}) == {"Sam"}  # no new listing
    assert len(script.requests) == 2


def test_a_question_naming_a_speaker_embeds_without_the_name_and_lifts_their_memories(script: Script) -> None:
    index: OpenSearchIndex = make_index(script)
    embedder = RecordingEmbedder()
    searcher = HybridSearcher(index, embedder, context_weight=0.0)
    knn = candidates(("sam-says-evan", 0.95, "Sam"), ("evan-car", 0.9, "Evan"))
    script.responses = [(200, listed("Evan", "Sam")), (200, {"responses": [knn, candidates()]})]

    found = searcher.search("t1", "u1", "What kind of car does Evan drive?", 2)

    assert embedder.texts == ["What kind of car does drive?"]
    assert [hit.id for hit in found] == ["evan-car", "sam-says-evan"]  # Evan's own memory lifted first
    assert script.requests[1].body[1]["_source"] == ["created_at", "speaker"]
