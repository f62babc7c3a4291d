"""What one search costs on AWS, counted with recording clients: the OpenSearch requests (a real
opensearch-py client on a scripted transport) and the DynamoDB calls (a moto client whose calls are
recorded through botocore's event hooks)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from engram.adapters.dynamo.fact_store import DynamoFactStore
from engram.domain.models import Event, Fact, SearchQuery
from engram.search.hybrid import HybridSearcher
from engram.search.pipeline import SearchPipeline
from engram.services.memory import MemoryService
from engram.settings import Settings
from engram.writes.unit_of_work import history_event
from tests.fakes import HashEmbedder, MemoryQueue, MemoryTaskStore
from tests.integration.test_opensearch_requests import FakeConnection, Script

WHEN = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)


def answer(*found: tuple[str, float, datetime]) -> dict[str, Any]:
    hits = [{"_id": i, "_score": s, "_source": {"created_at": at.isoformat()}} for i, s, at in found]
    return {"hits": {"total": {"value": len(hits)}, "hits": hits}}


def stored_facts(db: Any) -> tuple[DynamoFactStore, list[Fact]]:
    store = DynamoFactStore(db, Settings().memory_table)
    facts = [
        Fact(tenant_id="acme", user_id="alice", text=text, created_at=WHEN + timedelta(minutes=i))
        for i, text in enumerate(["Lives in Berlin", "Moved to Berlin in 2020", "Loves pizza"])
    ]
    for fact in facts:
        store.add(fact, history_event(fact, Event.ADD, None, fact.text, "test"))
    return store, facts


def recorded_calls(db: Any) -> list[str]:
    calls: list[str] = []
    db.meta.events.register("before-call.dynamodb", lambda model, **_: calls.append(model.name))
    return calls


def test_a_search_is_one_opensearch_request_and_one_dynamodb_read(db: Any) -> None:
    from opensearchpy import OpenSearch

    from engram.adapters.opensearch.index import OpenSearchIndex

    store, (berlin, moved, pizza) = stored_facts(db)
    script = Script()
    client = OpenSearch(hosts=[{"host": "fake", "port": 9200}], connection_class=FakeConnection, script=script)
    index = OpenSearchIndex(client, "engram-test", HashEmbedder.dimensions)
    embedder = HashEmbedder()
    memories = MemoryService(
        store,
        index,
        embedder,
        MemoryTaskStore(),
        MemoryQueue(),
        search_pipeline=SearchPipeline(HybridSearcher(index, embedder)),
    )
    knn = answer(
        (berlin.id, 0.95, berlin.created_at), (pizza.id, 0.6, pizza.created_at), (moved.id, 0.55, moved.created_at)
    )
    match = answer((berlin.id, 5.0, berlin.created_at), (pizza.id, 3.0, pizza.created_at))
    speakers = {"hits": {"hits": []}, "aggregations": {"speakers": {"buckets": [{"key": "Alice", "doc_count": 3}]}}}
    # the user's speakers (listed once per container and TTL), then knn and match in one _msearch
    script.responses = [(200, speakers), (200, {"responses": [knn, match]}), (200, {"responses": [knn, match]})]
    memories.search("acme", SearchQuery(user_id="alice", query="where does she live?", top_k=3))
    assert [r.path for r in script.requests] == ["/engram-test/_search", "/_msearch"]
    calls = recorded_calls(db)

    found = memories.search("acme", SearchQuery(user_id="alice", query="where does she live?", top_k=3))

    assert [r.path for r in script.requests[2:]] == ["/_msearch"]
    assert calls == ["BatchGetItem"]
    # "Moved to Berlin" scored lowest on its own; recorded right after the best hit, the context step
    # (its neighbours found among the candidates' recording times) lifts it above "Loves pizza"
    assert [f.id for f, _ in found] == [berlin.id, moved.id, pizza.id]
    assert next(f for f, _ in found if f.id == berlin.id).text == "Lives in Berlin"  # read from the store
    knn, text = script.requests[2].body[1], script.requests[2].body[3]
    for body in (knn, text):  # every candidate query scoped to the tenant and the user
        clauses = (
            body["query"]["knn"]["vector"]["filter"]["bool"]["filter"]
            if "knn" in body["query"]
            else body["query"]["bool"]["filter"]
        )
        assert clauses[:2] == [{"term": {"tenant_id": "acme"}}, {"term": {"user_id": "alice"}}]


def test_without_context_and_speaker_steps_a_search_is_one_opensearch_request_from_the_start(db: Any) -> None:
    from opensearchpy import OpenSearch

    from engram.adapters.opensearch.index import OpenSearchIndex

    store, (berlin, _, _) = stored_facts(db)
    script = Script()
    client = OpenSearch(hosts=[{"host": "fake", "port": 9200}], connection_class=FakeConnection, script=script)
    index = OpenSearchIndex(client, "engram-test", HashEmbedder.dimensions)
    embedder = HashEmbedder()
    searcher = HybridSearcher(index, embedder, context_weight=0.0, speaker_lift=0.0)
    memories = MemoryService(
        store, index, embedder, MemoryTaskStore(), MemoryQueue(), search_pipeline=SearchPipeline(searcher)
    )
    script.responses = [(200, {"responses": [answer((berlin.id, 0.9, berlin.created_at))] * 2})]
    calls = recorded_calls(db)

    memories.search("acme", SearchQuery(user_id="alice", query="Berlin", top_k=1))

    assert [r.path for r in script.requests] == ["/_msearch"]
    assert calls == ["BatchGetItem"]


def test_neighbours_ask_for_the_times_a_candidate_search_did_not_bring(db: Any) -> None:
    from opensearchpy import OpenSearch

    from engram.adapters.opensearch.index import OpenSearchIndex

    script = Script()
    client = OpenSearch(hosts=[{"host": "fake", "port": 9200}], connection_class=FakeConnection, script=script)
    index = OpenSearchIndex(client, "engram-test", 3)
    script.responses = [
        (200, {"responses": [answer(("m1", 0.9, WHEN))]}),
        (200, answer(("m2", 0.0, WHEN))),  # the times of m2 (not among the candidates)
        (200, {"responses": [answer(), answer(), answer(), answer()]}),
    ]
    index.hybrid("acme", "alice", [1.0, 0.0, 0.0], "", 5)
    index.neighbours("acme", "alice", ["m1", "m2"])
    times = script.requests[1].body
    assert times["query"]["bool"]["filter"][2] == {"ids": {"values": ["m2"]}}
    # another user's search never lends its times
    script.responses = [(200, answer()), (200, {"responses": []})]
    index.neighbours("acme", "bob", ["m1"])
    assert script.requests[3].body["query"]["bool"]["filter"][1] == {"term": {"user_id": "bob"}}
