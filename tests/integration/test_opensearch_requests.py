"""The exact requests the OpenSearch adapter sends: a real opensearch-py client, fake transport."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pytest
from opensearchpy import Connection, OpenSearch, RequestsAWSV4SignerAuth
from opensearchpy import exceptions as os_errors

from engram.adapters.opensearch.index import OpenSearchIndex, build_client
from engram.adapters.opensearch.queries import knn_body
from engram.domain.errors import EngramError, IndexUnavailableError, TransientError, ValidationError
from engram.domain.models import IndexDoc, SearchFilters
from engram.domain.statements import Statement
from engram.settings import Settings

INDEX = "engram-test"
DIMS = 3
WHEN = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)


@dataclass
class Request:
    method: str
    path: str
    params: dict[str, Any]
    body: Any


@dataclass
class Script:
    """Responses to hand out in order (status + JSON, or an exception); records every request."""

    responses: list[tuple[int, Any] | Exception] = field(default_factory=list)
    requests: list[Request] = field(default_factory=list)


class FakeConnection(Connection):
    def __init__(self, script: Script, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.script = script

    def perform_request(  # type: ignore[override]
        self, method: str, url: str, params: Any = None, body: Any = None, ignore: Any = (), **_: Any
    ) -> tuple[int, dict[str, str], str]:
        text = body.decode() if isinstance(body, bytes) else body
        parsed: Any = None
        if text:
            lines = [json.loads(line) for line in text.strip().split("\n")]
            parsed = lines if url.endswith(("/_bulk", "/_msearch")) else lines[0]
        self.script.requests.append(Request(method, url, dict(params or {}), parsed))
        response = self.script.responses.pop(0) if self.script.responses else (200, {})
        if isinstance(response, Exception):
            raise response
        status, payload = response
        raw = json.dumps(payload)
        if status >= 300 and status not in ignore:
            self._raise_error(status, raw, "application/json")
        return status, {"content-type": "application/json"}, raw


@pytest.fixture
def script() -> Script:
    return Script()


def make_index(script: Script, engine: str = "faiss") -> OpenSearchIndex:
    client = OpenSearch(hosts=[{"host": "fake", "port": 9200}], connection_class=FakeConnection, script=script)
    client.transport.max_retries = 0  # one request per call, so scripts stay readable
    return OpenSearchIndex(client, INDEX, DIMS, engine=engine)


def hits(*pairs: tuple[str, float], sort: bool = False) -> dict[str, Any]:
    found = [{"_id": i, "_score": s, **({"sort": [i]} if sort else {})} for i, s in pairs]
    return {"hits": {"total": {"value": len(found)}, "hits": found}}


def error_body(kind: str, reason: str) -> dict[str, Any]:
    return {"error": {"root_cause": [{"type": kind, "reason": reason}], "type": kind, "reason": reason}}


@pytest.mark.parametrize("engine", ["faiss", "lucene"])
def test_ensure_index_creates_the_knn_index(script: Script, engine: str) -> None:
    script.responses = [(404, {}), (200, {"acknowledged": True})]

    make_index(script, engine).ensure_index()

    head, create = script.requests
    assert (head.method, head.path) == ("HEAD", f"/{INDEX}")
    assert (create.method, create.path) == ("PUT", f"/{INDEX}")
    assert create.body == {
        "settings": {
            "index": {"knn": True, "similarity": {"engram_bm25": {"type": "BM25", "k1": 1.2, "b": 0.4}}},
            "analysis": {
                "filter": {
                    "engram_possessive": {"type": "stemmer", "language": "possessive_english"},
                    "engram_stop": {"type": "stop", "stopwords": "_english_"},
                },
                "analyzer": {
                    "engram_text": {
                        "type": "custom",
                        "tokenizer": "standard",
                        "filter": ["engram_possessive", "lowercase", "engram_stop", "porter_stem"],
                    }
                },
            },
        },
        "mappings": {
            "dynamic": False,
            "properties": {
                "memory_id": {"type": "keyword"},
                "tenant_id": {"type": "keyword"},
                "user_id": {"type": "keyword"},
                "agent_id": {"type": "keyword"},
                "run_id": {"type": "keyword"},
                "memory_bank": {"type": "keyword"},
                "metadata": {"type": "flat_object"},
                "text": {"type": "text", "analyzer": "engram_text", "similarity": "engram_bm25"},
                "created_at": {"type": "date"},
                "speaker": {"type": "keyword"},
                "statement_attributes": {"type": "keyword"},
                "statement_subjects": {"type": "keyword"},
                "statement_keys": {"type": "keyword"},
                "vector": {
                    "type": "knn_vector",
                    "dimension": DIMS,
                    "method": {
                        "name": "hnsw",
                        "space_type": "cosinesimil",
                        "engine": engine,
                        "parameters": {"m": 16, "ef_construction": 128},
                    },
                },
            },
        },
    }
    assert "nmslib" not in json.dumps(create.body)


def test_ensure_index_only_adds_new_fields_to_an_existing_index(script: Script) -> None:
    script.responses = [(200, {}), (200, {"acknowledged": True})]
    make_index(script).ensure_index()
    assert [(r.method, r.path) for r in script.requests] == [("HEAD", f"/{INDEX}"), ("PUT", f"/{INDEX}/_mapping")]
    keyword = {"type": "keyword"}
    assert script.requests[1].body == {
        "properties": {
            "speaker": keyword,
            "statement_attributes": keyword,
            "statement_subjects": keyword,
            "statement_keys": keyword,
        }
    }


def test_a_document_holds_what_its_memory_states_and_a_search_filters_on_it(script: Script) -> None:
    """Each statement's attribute and subject, and the pair (so both filters ask for one statement)."""
    script.responses = [(200, {"errors": False, "items": []}), (200, hits(("m1", 0.9)))]
    stated = [
        Statement(attribute="home", value="York", single=True),
        Statement(subject="my sister Ines", attribute="employer", value="Soins Alpins"),
    ]
    doc = IndexDoc(
        id="m1", tenant_id="t1", user_id="u1", text="t", vector=[1, 0, 0], created_at=WHEN, statements=stated
    )
    index = make_index(script)

    index.upsert([doc])
    index.knn("t1", "u1", [1, 0, 0], 2, SearchFilters(attribute="employer", subject="my sister Ines"))

    source = script.requests[0].body[1]
    assert source["statement_attributes"] == ["home", "employer"]
    assert source["statement_subjects"] == ["user", "my sister Ines"]
    assert source["statement_keys"] == ["user\x1fhome", "my sister Ines\x1femployer"]
    wanted = script.requests[1].body["query"]["knn"]["vector"]["filter"]["bool"]["filter"]
    assert wanted[-1] == {"term": {"statement_keys": "my sister Ines\x1femployer"}}


def test_ensure_index_tolerates_a_concurrent_creator(script: Script) -> None:
    script.responses = [(404, {}), (400, error_body("resource_already_exists_exception", "exists"))]
    make_index(script).ensure_index()
    assert len(script.requests) == 2


def test_ensure_index_reports_a_rejected_mapping(script: Script) -> None:
    script.responses = [(404, {}), (400, error_body("mapper_parsing_exception", "unknown engine"))]
    with pytest.raises(EngramError, match="unknown engine") as raised:
        make_index(script).ensure_index()
    assert not isinstance(raised.value, TransientError)


def test_nmslib_is_refused() -> None:
    with pytest.raises(EngramError, match="nmslib"):
        OpenSearchIndex(object(), INDEX, DIMS, engine="nmslib")


def test_upsert_sends_bulk_index_actions_with_scope(script: Script) -> None:
    script.responses = [(200, {"errors": False, "items": []})]
    docs = [
        IndexDoc(id="m1", tenant_id="t1", user_id="u1", text="Likes tea", vector=[1, 0, 0], created_at=WHEN),
        IndexDoc(
            id="m2",
            tenant_id="t1",
            user_id="u1",
            agent_id="bot",
            run_id="r9",
            text="Works at Acme",
            vector=[0, 0.6, 0.8],
            memory_bank="Work",
            metadata={"source": "chat", "pinned": True},
            created_at=WHEN,
        ),
    ]

    make_index(script).upsert(docs)

    (bulk,) = script.requests
    assert (bulk.method, bulk.path) == ("POST", "/_bulk")
    assert "refresh" not in bulk.params
    assert bulk.body == [
        {"index": {"_index": INDEX, "_id": "m1"}},
        {
            "memory_id": "m1",
            "tenant_id": "t1",
            "user_id": "u1",
            "memory_bank": "General",
            "metadata": {},
            "text": "Likes tea",
            "created_at": "2024-05-01T12:00:00+00:00",
            "vector": [1.0, 0.0, 0.0],
        },
        {"index": {"_index": INDEX, "_id": "m2"}},
        {
            "memory_id": "m2",
            "tenant_id": "t1",
            "user_id": "u1",
            "agent_id": "bot",
            "run_id": "r9",
            "memory_bank": "Work",
            "metadata": {"source": "chat", "pinned": True},
            "text": "Works at Acme",
            "created_at": "2024-05-01T12:00:00+00:00",
            "vector": [0.0, 0.6, 0.8],
        },
    ]


def bulk_failure(op: str, status: int, kind: str) -> dict[str, Any]:
    return {
        "errors": True,
        "items": [
            {op: {"_id": "ok", "status": 200}},
            {op: {"_id": "bad", "status": status, "error": {"type": kind, "reason": f"{kind} happened"}}},
        ],
    }


@pytest.mark.parametrize(
    ("status", "kind", "expected"),
    [(400, "mapper_parsing_exception", EngramError), (429, "es_rejected_execution_exception", IndexUnavailableError)],
)
def test_upsert_raises_on_failed_items(script: Script, status: int, kind: str, expected: type[Exception]) -> None:
    script.responses = [(200, bulk_failure("index", status, kind))]
    doc = IndexDoc(id="bad", tenant_id="t", user_id="u", text="x", vector=[1, 0, 0])
    with pytest.raises(expected, match=rf"bad \({status}\): {kind} happened") as raised:
        make_index(script).upsert([doc])
    assert type(raised.value) is expected  # a rejected document is not worth a retry; throttling is an outage


def test_wrong_dimensions_never_reach_opensearch(script: Script) -> None:
    index = make_index(script)
    with pytest.raises(ValidationError):
        index.upsert([IndexDoc(id="m", tenant_id="t", user_id="u", text="x", vector=[1, 0])])
    with pytest.raises(ValidationError):
        index.knn("t", "u", [1.0], 3)
    assert script.requests == []


def test_delete_sends_bulk_deletes_and_ignores_missing(script: Script) -> None:
    script.responses = [(200, bulk_failure("delete", 404, "not_found"))]

    make_index(script).delete("t1", "u1", ["ok", "bad"])

    (bulk,) = script.requests
    assert bulk.path == "/_bulk"
    assert "refresh" not in bulk.params
    assert bulk.body == [{"delete": {"_index": INDEX, "_id": "ok"}}, {"delete": {"_index": INDEX, "_id": "bad"}}]


def test_delete_of_nothing_sends_nothing(script: Script) -> None:
    make_index(script).delete("t1", "u1", [])
    assert script.requests == []


def test_knn_filters_inside_the_knn_clause_and_returns_cosine(script: Script) -> None:
    script.responses = [(200, hits(("m1", 0.9), ("m2", 0.5)))]
    filters = SearchFilters(agent_id="bot", memory_bank="Work", metadata={"pinned": True, "n": 5})

    found = make_index(script).knn("t1", "u1", [0.0, 0.6, 0.8], 2, filters)

    (search,) = script.requests
    assert (search.method, search.path) == ("POST", f"/{INDEX}/_search")
    assert search.body == {
        "size": 2,
        "_source": False,
        "query": {
            "knn": {
                "vector": {
                    "vector": [0.0, 0.6, 0.8],
                    "k": 2,
                    "filter": {
                        "bool": {
                            "filter": [
                                {"term": {"tenant_id": "t1"}},
                                {"term": {"user_id": "u1"}},
                                {"term": {"agent_id": "bot"}},
                                {"term": {"memory_bank": "Work"}},
                                {"term": {"metadata.pinned": "true"}},
                                {"term": {"metadata.n": "5"}},
                            ]
                        }
                    },
                }
            }
        },
    }
    assert [(h.id, round(h.score, 6)) for h in found] == [("m1", 0.8), ("m2", 0.0)]


def test_knn_without_filters_still_scopes_tenant_and_user(script: Script) -> None:
    script.responses = [(200, hits())]
    assert make_index(script).knn("t2", "u7", [1, 0, 0], 5) == []
    clause = script.requests[0].body["query"]["knn"]["vector"]
    assert clause["filter"] == {"bool": {"filter": [{"term": {"tenant_id": "t2"}}, {"term": {"user_id": "u7"}}]}}


def test_knn_many_sends_each_knn_search_in_one_msearch(script: Script) -> None:
    script.responses = [(200, {"responses": [hits(("m1", 0.9)), hits(("m2", 0.75), ("m3", 0.5))]})]
    index = make_index(script)
    filters = SearchFilters(agent_id="bot")

    found = index.knn_many("t1", "u1", [[1, 0, 0], [0, 1, 0]], 2, filters)

    (msearch,) = script.requests
    assert (msearch.method, msearch.path) == ("POST", "/_msearch")
    each = [knn_body("t1", "u1", [1, 0, 0], 2, filters), knn_body("t1", "u1", [0, 1, 0], 2, filters)]
    assert msearch.body == [{"index": INDEX}, each[0], {"index": INDEX}, each[1]]
    # the same cosine scores knn() gives, per vector, in order
    assert [[(h.id, round(h.score, 6)) for h in one] for one in found] == [[("m1", 0.8)], [("m2", 0.5), ("m3", 0.0)]]


def test_knn_many_translates_a_failed_search_and_checks_every_vector(script: Script) -> None:
    failed = {"status": 429, **error_body("rejected_execution_exception", "queue full")}
    script.responses = [(200, {"responses": [hits(), failed]})]
    with pytest.raises(IndexUnavailableError, match="queue full"):
        make_index(script).knn_many("t1", "u1", [[1, 0, 0], [0, 1, 0]], 2)
    with pytest.raises(ValidationError, match="dimensions"):
        make_index(script).knn_many("t1", "u1", [[1, 0, 0], [0, 1]], 2)
    assert len(script.requests) == 1  # the wrong dimensions never reached OpenSearch


def test_text_search_is_a_scoped_match_query(script: Script) -> None:
    script.responses = [(200, hits(("m3", 4.2)))]

    found = make_index(script).text_search("t1", "u1", "hiking boots", 4, SearchFilters(run_id="r1"))

    assert script.requests[0].body == {
        "size": 4,
        "_source": False,
        "query": {
            "bool": {
                "must": [{"match": {"text": {"query": "hiking boots"}}}],
                "filter": [
                    {"term": {"tenant_id": "t1"}},
                    {"term": {"user_id": "u1"}},
                    {"term": {"run_id": "r1"}},
                ],
            }
        },
    }
    assert [(h.id, h.score) for h in found] == [("m3", 4.2)]


def test_neighbours_reads_the_sources_times_then_one_msearch(script: Script) -> None:
    times = {"hits": {"hits": [{"_id": "m2", "_source": {"created_at": "2024-05-01T12:00:00+00:00"}}]}}
    before, after = hits(("m1", 0.0)), hits(("m3", 0.0))
    script.responses = [(200, times), (200, {"responses": [before, after]})]

    found = make_index(script).neighbours("t1", "u1", ["m2", "gone"], SearchFilters(run_id="r1"), 600)

    assert found == {"m2": ["m1", "m3"]}  # an id the user does not hold has no neighbours
    lookup, msearch = script.requests
    assert lookup.body == {
        "size": 2,
        "_source": ["created_at"],
        "query": {
            "bool": {
                "filter": [
                    {"term": {"tenant_id": "t1"}},
                    {"term": {"user_id": "u1"}},
                    {"ids": {"values": ["m2", "gone"]}},
                ]
            }
        },
    }
    assert msearch.path == "/_msearch"
    scope = [{"term": {"tenant_id": "t1"}}, {"term": {"user_id": "u1"}}, {"term": {"run_id": "r1"}}]

    def side(near: dict[str, str], order: str) -> dict[str, Any]:
        return {
            "size": 1,
            "_source": False,
            "query": {
                "bool": {
                    "filter": [*scope, {"range": {"created_at": near}}],
                    "must_not": [{"ids": {"values": ["m2"]}}],
                }
            },
            "sort": [{"created_at": order}, {"memory_id": order}],
        }

    assert msearch.body == [
        {"index": INDEX},
        side({"gte": "2024-05-01T11:50:00+00:00", "lte": "2024-05-01T12:00:00+00:00"}, "desc"),
        {"index": INDEX},
        side({"lte": "2024-05-01T12:10:00+00:00", "gte": "2024-05-01T12:00:00+00:00"}, "asc"),
    ]


def test_neighbours_of_nothing_sends_nothing(script: Script) -> None:
    assert make_index(script).neighbours("t1", "u1", []) == {}
    assert script.requests == []


@pytest.mark.parametrize(("status", "expected"), [(429, IndexUnavailableError), (400, EngramError)])
def test_a_failed_neighbour_search_is_translated(script: Script, status: int, expected: type[Exception]) -> None:
    times = {"hits": {"hits": [{"_id": "m2", "_source": {"created_at": "2024-05-01T12:00:00+00:00"}}]}}
    failed = {"status": status, **error_body("some_exception", "went wrong")}
    script.responses = [(200, times), (200, {"responses": [hits(), failed]})]
    with pytest.raises(expected, match="went wrong") as raised:
        make_index(script).neighbours("t1", "u1", ["m2"])
    assert type(raised.value) is expected


def test_ids_pages_with_search_after(script: Script) -> None:
    first_page = hits(*((f"m{i:04d}", 0.0) for i in range(1000)), sort=True)
    script.responses = [(200, first_page), (200, hits(("z1", 0.0), ("z2", 0.0), sort=True))]

    found = make_index(script).ids("t1", "u1")

    assert found == {f"m{i:04d}" for i in range(1000)} | {"z1", "z2"}
    first, second = (r.body for r in script.requests)
    assert first == {
        "size": 1000,
        "_source": False,
        "query": {"bool": {"filter": [{"term": {"tenant_id": "t1"}}, {"term": {"user_id": "u1"}}]}},
        "sort": [{"memory_id": "asc"}],
    }
    assert second == {**first, "search_after": ["m0999"]}


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        ((503, error_body("unavailable", "node down")), IndexUnavailableError),
        ((500, error_body("internal", "boom")), IndexUnavailableError),
        ((429, error_body("too_many_requests", "slow down")), IndexUnavailableError),
        (os_errors.ConnectionError("N/A", "refused", OSError("refused")), IndexUnavailableError),
        (os_errors.ConnectionTimeout("TIMEOUT", "timed out", TimeoutError("slow")), IndexUnavailableError),
        ((400, error_body("query_shard_exception", "bad field")), EngramError),
        ((403, error_body("security_exception", "no permissions")), EngramError),
        ((404, error_body("index_not_found_exception", "no such index")), EngramError),
    ],
)
def test_errors_are_translated(script: Script, response: Any, expected: type[Exception]) -> None:
    script.responses = [response]
    with pytest.raises(expected) as raised:
        make_index(script).text_search("t1", "u1", "anything", 3)
    assert type(raised.value) is expected  # 4xx must not look retryable
    assert not isinstance(raised.value, os_errors.OpenSearchException)
    if isinstance(response, tuple):
        assert response[1]["error"]["reason"] in str(raised.value)


def test_build_client_signs_with_sigv4_for_the_configured_service() -> None:
    settings = Settings(
        opensearch_endpoint="https://search-x.us-east-1.es.amazonaws.com",
        opensearch_auth="sigv4",
        opensearch_service="aoss",
    )
    connection = build_client(settings).transport.get_connection()
    assert connection.host == "https://search-x.us-east-1.es.amazonaws.com:443"
    assert isinstance(connection.session.auth, RequestsAWSV4SignerAuth)
    assert connection.session.auth.service == "aoss"
    assert connection.session.auth.signer.region == "us-east-1"


@pytest.mark.parametrize(
    ("endpoint", "auth", "host", "credentials"),
    [
        ("http://localhost:9200", "basic", "http://localhost:9200", ("admin", "secret")),
        ("vpc-d.eu-west-1.es.amazonaws.com", "none", "https://vpc-d.eu-west-1.es.amazonaws.com:443", None),
    ],
)
def test_build_client_basic_or_no_auth(endpoint: str, auth: str, host: str, credentials: Any) -> None:
    settings = Settings(
        opensearch_endpoint=endpoint,
        opensearch_auth=auth,  # type: ignore[arg-type]
        opensearch_username="admin",
        opensearch_password="secret",  # type: ignore[arg-type]
    )
    connection = build_client(settings).transport.get_connection()
    assert connection.host == host
    assert connection.session.auth == credentials


def test_build_client_needs_an_endpoint() -> None:
    with pytest.raises(EngramError, match="ENDPOINT"):
        build_client(Settings(opensearch_endpoint=None))


def timed_hits(*found: tuple[str, float, str]) -> dict[str, Any]:
    rows = [{"_id": i, "_score": s, "_source": {"created_at": f"2024-05-01T12:{m}:00+00:00"}} for i, s, m in found]
    return {"hits": {"total": {"value": len(rows)}, "hits": rows}}


def test_neighbours_of_candidates_come_from_the_candidate_search_without_a_request(script: Script) -> None:
    index = make_index(script)
    knn = timed_hits(("m1", 0.9, "00"), ("m3", 0.7, "10"), ("m9", 0.6, "59"))
    match = timed_hits(("m2", 4.0, "05"))
    script.responses = [(200, {"responses": [knn, match]})]
    index.hybrid("t1", "u1", [1.0, 0.0, 0.0], "boots", 5)

    found = index.neighbours("t1", "u1", ["m2", "m9"], None, 600)

    assert len(script.requests) == 1  # the candidate search only
    # m2 (12:05) sits between m1 (12:00) and m3 (12:10); m9 (12:59) has no candidate within 10 minutes
    assert found == {"m2": ["m1", "m3"], "m9": []}


def test_another_users_or_filters_candidates_never_answer_for_neighbours(script: Script) -> None:
    index = make_index(script)
    script.responses = [(200, {"responses": [timed_hits(("m1", 0.9, "00"), ("m2", 0.8, "01"))]})]
    index.hybrid("t1", "u1", [1.0, 0.0, 0.0], "", 5)
    before, after = hits(("m0", 0.0)), hits()
    script.responses = [(200, {"responses": [before, after]})]

    found = index.neighbours("t1", "u1", ["m1"], SearchFilters(run_id="r1"), 600)  # not the search's filters

    assert found == {"m1": ["m0"]}
    assert [r.path for r in script.requests] == ["/_msearch", "/_msearch"]  # asked OpenSearch
    script.responses = [(200, timed_hits()), (200, {"responses": []})]
    assert index.neighbours("t1", "u2", ["m1"], None, 600) == {}  # u2's question asks for u2's times
    assert script.requests[2].body["query"]["bool"]["filter"][1] == {"term": {"user_id": "u2"}}
