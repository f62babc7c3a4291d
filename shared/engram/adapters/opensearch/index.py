"""OpenSearch VectorIndex (AWS): HNSW k-NN with efficient filtering plus BM25 on the same documents.

One document per current fact, `_id` = memory id, always carrying tenant_id and user_id; every
query filters on both inside the query itself (inside the knn clause for vectors), so another
user's documents are never candidates. Writes never force a refresh: readers see them within the
index's refresh interval, which the pipeline tolerates.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from engram.adapters.opensearch.errors import check_bulk, translated
from engram.adapters.opensearch.queries import (
    STATED_MAPPING,
    CandidatePools,
    RecordingTimes,
    filter_clauses,
    knn_body,
    pool_key,
    raise_item_error,
    stated_fields,
    text_body,
)
from engram.adapters.opensearch.speakers import SPEAKER_FIELD, SpeakerCache, speakers_body, speakers_in
from engram.domain.errors import EngramError, ValidationError
from engram.domain.models import SPEAKER_KEY, IndexDoc, ScoredId, SearchFilters

if TYPE_CHECKING:
    from engram.settings import Settings

ENGINES = ("faiss", "lucene")  # never nmslib: OpenSearch 3 rejects it for new indexes
HNSW_PARAMETERS = {"m": 16, "ef_construction": 128}
IDS_PAGE_SIZE = 1000
TEXT_ANALYZER = "engram_text"
TEXT_SIMILARITY = "engram_bm25"
# BM25 as the embedded index scores it (embedded/index.py: K1, B): less length normalisation than
# Lucene's default b=0.75 ranked LoCoMo evidence better (bench/README.md).
BM25_PARAMETERS = {"type": "BM25", "k1": 1.2, "b": 0.4}


def build_client(settings: Settings) -> Any:
    """An opensearch-py client for settings.opensearch_endpoint (imported lazily: the embedded
    backend never loads opensearch-py)."""
    from opensearchpy import OpenSearch, RequestsAWSV4SignerAuth, RequestsHttpConnection

    endpoint = settings.opensearch_endpoint
    if not endpoint:
        raise EngramError("ENGRAM_OPENSEARCH_ENDPOINT is not set")
    url = urlsplit(endpoint if "://" in endpoint else f"https://{endpoint}")
    use_ssl = url.scheme == "https"
    auth: Any = None
    if settings.opensearch_auth == "sigv4":
        import boto3

        credentials = boto3.Session().get_credentials()
        if credentials is None:
            raise EngramError("no AWS credentials available to sign OpenSearch requests")
        auth = RequestsAWSV4SignerAuth(credentials, settings.aws_region, settings.opensearch_service)
    elif settings.opensearch_auth == "basic":
        if not settings.opensearch_username or settings.opensearch_password is None:
            raise EngramError("basic auth needs ENGRAM_OPENSEARCH_USERNAME and ENGRAM_OPENSEARCH_PASSWORD")
        auth = (settings.opensearch_username, settings.opensearch_password.get_secret_value())
    host: dict[str, Any] = {"host": url.hostname, "port": url.port or (443 if use_ssl else 80)}
    if url.path.strip("/"):
        host["url_prefix"] = url.path
    return OpenSearch(
        hosts=[host],
        http_auth=auth,
        use_ssl=use_ssl,
        verify_certs=use_ssl,
        connection_class=RequestsHttpConnection,
        timeout=10,
        max_retries=2,
        retry_on_timeout=True,
    )


class OpenSearchIndex:
    def __init__(self, client: Any, index_name: str, dimensions: int, engine: str = "faiss") -> None:
        if engine not in ENGINES:
            raise EngramError(f"unsupported k-NN engine {engine!r}; use one of {ENGINES}")
        self._client = client
        self.index_name = index_name
        self.dimensions = dimensions
        self.engine = engine
        self._times = RecordingTimes()
        self._pools = CandidatePools()
        self._speakers = SpeakerCache()

    def index_body(self) -> dict[str, Any]:
        """Settings and mappings for a new index (cosine HNSW; faiss needs OpenSearch >= 2.19)."""
        keyword = {"type": "keyword"}
        return {
            "settings": {
                "index": {"knn": True, "similarity": {TEXT_SIMILARITY: dict(BM25_PARAMETERS)}},
                "analysis": {
                    "filter": {
                        "engram_possessive": {"type": "stemmer", "language": "possessive_english"},
                        "engram_stop": {"type": "stop", "stopwords": "_english_"},
                    },
                    "analyzer": {
                        TEXT_ANALYZER: {
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
                    "memory_id": keyword,
                    "tenant_id": keyword,
                    "user_id": keyword,
                    "agent_id": keyword,
                    "run_id": keyword,
                    "memory_bank": keyword,
                    "metadata": {"type": "flat_object"},
                    "text": {"type": "text", "analyzer": TEXT_ANALYZER, "similarity": TEXT_SIMILARITY},
                    "created_at": {"type": "date"},
                    SPEAKER_FIELD: keyword,  # metadata.speaker, for the speaker list (speakers.py)
                    **STATED_MAPPING,
                    "vector": {
                        "type": "knn_vector",
                        "dimension": self.dimensions,
                        "method": {
                            "name": "hnsw",
                            "space_type": "cosinesimil",
                            "engine": self.engine,
                            "parameters": dict(HNSW_PARAMETERS),
                        },
                    },
                },
            },
        }

    def ensure_index(self) -> None:
        """Create the index when missing (safe to call from several cold starts at once); an index
        created before a field was added gets that field's mapping (adding one is idempotent)."""
        from opensearchpy import exceptions as os_errors

        with translated("create index"):
            if self._client.indices.exists(index=self.index_name):
                added = {SPEAKER_FIELD: {"type": "keyword"}, **STATED_MAPPING}
                self._client.indices.put_mapping(index=self.index_name, body={"properties": added})
                return
            try:
                self._client.indices.create(index=self.index_name, body=self.index_body())
            except os_errors.RequestError as exc:
                if "resource_already_exists_exception" not in str(exc.error):
                    raise

    def upsert(self, docs: Sequence[IndexDoc]) -> None:
        if not docs:
            return
        body: list[dict[str, Any]] = []
        for doc in docs:
            self._check_vector(doc.vector)
            body.append({"index": {"_index": self.index_name, "_id": doc.id}})
            body.append(_source(doc))
        with translated("bulk index"):
            response = self._client.bulk(body=body)
        check_bulk(response, "index", missing_ok=False)
        for doc in docs:
            if isinstance(said := doc.metadata.get(SPEAKER_KEY), str):
                self._speakers.heard(doc.tenant_id, doc.user_id, [said])

    def delete(self, tenant_id: str, user_id: str, memory_ids: Sequence[str]) -> None:
        # Ids are memory ids the caller resolved within tenant_id/user_id; _id is unscoped by design.
        if not memory_ids:
            return
        body = [{"delete": {"_index": self.index_name, "_id": memory_id}} for memory_id in memory_ids]
        with translated("bulk delete"):
            response = self._client.bulk(body=body)
        check_bulk(response, "delete", missing_ok=True)

    def knn(
        self,
        tenant_id: str,
        user_id: str,
        vector: Sequence[float],
        k: int,
        filters: SearchFilters | None = None,
    ) -> list[ScoredId]:
        self._check_vector(vector)
        if k <= 0:
            return []
        body = knn_body(tenant_id, user_id, vector, k, filters)
        hits = self._search(body, "knn search")
        # cosinesimil scores are (1 + cos) / 2; hand the domain plain cosine like the embedded index.
        return [ScoredId(id=hit["_id"], score=2.0 * float(hit["_score"]) - 1.0) for hit in hits]

    def knn_many(
        self,
        tenant_id: str,
        user_id: str,
        vectors: Sequence[Sequence[float]],
        k: int,
        filters: SearchFilters | None = None,
    ) -> list[list[ScoredId]]:
        """index_ports.ManyKnn: knn() of each vector in one _msearch."""
        for vector in vectors:
            self._check_vector(vector)
        if k <= 0 or not vectors:
            return [[] for _ in vectors]
        lines: list[dict[str, Any]] = []
        for vector in vectors:
            lines += [{"index": self.index_name}, knn_body(tenant_id, user_id, vector, k, filters)]
        with translated("knn search"):
            answers: list[dict[str, Any]] = self._client.msearch(body=lines)["responses"]
        out: list[list[ScoredId]] = []
        for answer in answers:
            if "error" in answer:
                raise_item_error(answer, "knn search")
            out.append([ScoredId(id=h["_id"], score=2.0 * float(h["_score"]) - 1.0) for h in answer["hits"]["hits"]])
        return out

    def text_search(
        self,
        tenant_id: str,
        user_id: str,
        query: str,
        k: int,
        filters: SearchFilters | None = None,
    ) -> list[ScoredId]:
        if k <= 0 or not query.strip():
            return []
        body = text_body(tenant_id, user_id, query, k, filters)
        hits = self._search(body, "text search")
        return [ScoredId(id=hit["_id"], score=float(hit["_score"])) for hit in hits]

    def hybrid(
        self,
        tenant_id: str,
        user_id: str,
        vector: Sequence[float],
        query: str,
        k: int,
        filters: SearchFilters | None = None,
    ) -> tuple[list[ScoredId], list[ScoredId]]:
        """knn() and text_search() in one _msearch (index_ports.HybridCandidates); the hits' recording
        times are kept, so neighbours() of these candidates needs no request."""
        self._check_vector(vector)
        if k <= 0:
            return [], []
        times = ["created_at", SPEAKER_FIELD]
        lines = [{"index": self.index_name}, knn_body(tenant_id, user_id, vector, k, filters, times)]
        if query.strip():
            lines += [{"index": self.index_name}, text_body(tenant_id, user_id, query, k, filters, times)]
        with translated("candidate search"):
            answers: list[dict[str, Any]] = self._client.msearch(body=lines)["responses"]
        pool: dict[str, datetime] = {}
        for answer in answers:
            if "error" in answer:
                raise_item_error(answer, "candidate search")
            pool |= self._times.remember(tenant_id, user_id, answer["hits"]["hits"])
            self._speakers.remember(tenant_id, user_id, answer["hits"]["hits"])
        self._pools.remember(pool_key(tenant_id, user_id, filters), pool)
        semantic = [ScoredId(id=h["_id"], score=2.0 * float(h["_score"]) - 1.0) for h in answers[0]["hits"]["hits"]]
        lexical = (
            [ScoredId(id=h["_id"], score=float(h["_score"])) for h in answers[1]["hits"]["hits"]]
            if query.strip()
            else []
        )
        return semantic, lexical

    def speakers_among(self, tenant_id: str, user_id: str, names: Collection[str]) -> set[str]:
        """index_ports.Speakers: the user's speakers are listed once per SPEAKERS_TTL_S (one request)."""
        known = self._speakers.speakers(tenant_id, user_id)
        if known is None:
            with translated("speaker list"):
                answer = self._client.search(index=self.index_name, body=speakers_body(tenant_id, user_id))
            known = speakers_in(answer)
            self._speakers.store(tenant_id, user_id, known)
        return {name for name in names if name in known}

    def spoken_by(self, tenant_id: str, user_id: str, memory_ids: Sequence[str], speakers: Collection[str]) -> set[str]:
        """Of the candidates hybrid() returned, those said by one of `speakers` (no request)."""
        return self._speakers.spoken_by(tenant_id, user_id, memory_ids, speakers)

    def ids(self, tenant_id: str, user_id: str) -> set[str]:
        # search_after on a keyword copy of the id: works on AOSS (no scroll) and needs no _id fielddata.
        body: dict[str, Any] = {
            "size": IDS_PAGE_SIZE,
            "_source": False,
            "query": {"bool": {"filter": filter_clauses(tenant_id, user_id, None)}},
            "sort": [{"memory_id": "asc"}],
        }
        found: set[str] = set()
        while True:
            hits = self._search(body, "list ids")
            found.update(hit["_id"] for hit in hits)
            if len(hits) < IDS_PAGE_SIZE:
                return found
            body = {**body, "search_after": hits[-1]["sort"]}

    def neighbours(
        self,
        tenant_id: str,
        user_id: str,
        memory_ids: Sequence[str],
        filters: SearchFilters | None = None,
        within_seconds: float = 1800.0,
    ) -> dict[str, list[str]]:
        """For each id, the memories matching `filters` recorded just before and just after it, at most
        `within_seconds` apart (index_ports.Timeline). Among the candidates of the user's last hybrid()
        search when it returned every id (no request; queries.py says why); else one msearch
        of a size-1 search either side of each, after asking the times no search has brought."""
        if not memory_ids:
            return {}
        among = self._pools.neighbours(
            pool_key(tenant_id, user_id, filters), memory_ids, timedelta(seconds=within_seconds)
        )
        if among is not None:
            return among
        created = self._times.known(tenant_id, user_id, memory_ids)
        unknown = [mid for mid in memory_ids if mid not in created]
        if unknown:
            scope = filter_clauses(tenant_id, user_id, None)
            body = {
                "size": len(unknown),
                "_source": ["created_at"],
                "query": {"bool": {"filter": [*scope, {"ids": {"values": unknown}}]}},
            }
            found = self._search(body, "neighbour times")
            created |= {hit["_id"]: datetime.fromisoformat(hit["_source"]["created_at"]) for hit in found}
        sources = [mid for mid in memory_ids if mid in created]
        if not sources:
            return {}
        window = timedelta(seconds=within_seconds)
        clauses = filter_clauses(tenant_id, user_id, filters)
        lines: list[dict[str, Any]] = []
        for mid in sources:
            at = created[mid]
            for bound, edge, order in (("gte", at - window, "desc"), ("lte", at + window, "asc")):
                # Equal times count on both sides (facts of one extraction share a millisecond).
                near = {bound: edge.isoformat(), "lte" if order == "desc" else "gte": at.isoformat()}
                lines.append({"index": self.index_name})
                lines.append(
                    {
                        "size": 1,
                        "_source": False,
                        "query": {
                            "bool": {
                                "filter": [*clauses, {"range": {"created_at": near}}],
                                "must_not": [{"ids": {"values": [mid]}}],
                            }
                        },
                        "sort": [{"created_at": order}, {"memory_id": order}],
                    }
                )
        with translated("neighbour search"):
            response = self._client.msearch(body=lines)
        answers: list[dict[str, Any]] = response["responses"]
        result: dict[str, list[str]] = {}
        for i, mid in enumerate(sources):
            around: list[str] = []
            for answer in answers[2 * i : 2 * i + 2]:
                if "error" in answer:
                    raise_item_error(answer, "neighbour search")
                around += [hit["_id"] for hit in answer["hits"]["hits"] if hit["_id"] not in around]
            result[mid] = around
        return result

    def _search(self, body: dict[str, Any], action: str) -> list[dict[str, Any]]:
        with translated(action):
            response = self._client.search(index=self.index_name, body=body)
        hits: list[dict[str, Any]] = response["hits"]["hits"]
        return hits

    def _check_vector(self, vector: Sequence[float]) -> None:
        if len(vector) != self.dimensions:
            raise ValidationError("vector", f"expected {self.dimensions} dimensions, got {len(vector)}")


def _source(doc: IndexDoc) -> dict[str, Any]:
    source: dict[str, Any] = {
        "memory_id": doc.id,
        "tenant_id": doc.tenant_id,
        "user_id": doc.user_id,
        "memory_bank": doc.memory_bank,
        "metadata": doc.metadata,
        "text": doc.text,
        "created_at": doc.created_at.isoformat(),
        "vector": [float(x) for x in doc.vector],
    }
    if doc.agent_id is not None:
        source["agent_id"] = doc.agent_id
    if doc.run_id is not None:
        source["run_id"] = doc.run_id
    if isinstance(said := doc.metadata.get(SPEAKER_KEY), str):
        source[SPEAKER_FIELD] = said
    return source | stated_fields(doc.statements)
