"""The search bodies of the OpenSearch index, and what lets one search cost one round trip.

HybridSearcher asks for k-NN and BM25 candidates, then the neighbours of the best ones
(ports.Timeline). Sent one by one that was four requests per search: knn, match, the sources'
recording times, the neighbours. `OpenSearchIndex.hybrid` sends knn and match as one _msearch whose
hits carry created_at, and `CandidatePools` keeps that answer: the neighbours of the best hits are
then looked for among the candidates themselves (the nearest recorded before and after each), with
no second request. On LoCoMo that ranks as well as the true neighbours of the whole index (recall@10
0.724 against 0.722 with OpenSearch's ranking, bench/README.md). A neighbour question about ids that
no recent candidate search returned still asks OpenSearch; a memory keeps its created_at for life,
so `RecordingTimes` answers that question's first half.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from engram.domain.errors import EngramError, IndexUnavailableError
from engram.domain.models import SearchFilters
from engram.domain.statements import Statement
from engram.text.terms import filter_value

TIMES_KEPT = 20_000  # recording times remembered per process (~3 MB)
# What memories state: keyword fields added to the mapping of indexes made before them (ensure_index), where
# documents written earlier simply lack them.
STATED_ATTRIBUTES, STATED_SUBJECTS, STATED = "statement_attributes", "statement_subjects", "statement_keys"
STATED_MAPPING: dict[str, Any] = {field: {"type": "keyword"} for field in (STATED_ATTRIBUTES, STATED_SUBJECTS, STATED)}
POOLS_KEPT = 64  # candidate searches remembered per process (one per user and filters)


def filter_clauses(tenant_id: str, user_id: str, filters: SearchFilters | None) -> list[dict[str, Any]]:
    clauses: list[dict[str, Any]] = [{"term": {"tenant_id": tenant_id}}, {"term": {"user_id": user_id}}]
    if filters is not None:
        for field in ("agent_id", "run_id", "memory_bank"):
            value = getattr(filters, field)
            if value is not None:
                clauses.append({"term": {field: value}})
        for name, value in filters.metadata.items():
            # flat_object holds every leaf as a string; the embedded index compares the same form.
            clauses.append({"term": {f"metadata.{name}": filter_value(value)}})
        if filters.attribute is not None and filters.subject is not None:
            clauses.append({"term": {STATED: stated_key(filters.subject, filters.attribute)}})
        elif filters.attribute is not None:
            clauses.append({"term": {STATED_ATTRIBUTES: filters.attribute}})
        elif filters.subject is not None:
            clauses.append({"term": {STATED_SUBJECTS: filters.subject}})
    return clauses


def stated_key(subject: str, attribute: str) -> str:
    return f"{subject}\x1f{attribute}"


def stated_fields(statements: Sequence[Statement]) -> dict[str, list[str]]:
    """What a document holds of the memory's statements (domain/statements.py): each one's attribute and
    subject, and the two together, so a filter of both asks for one statement. Left out when it states nothing."""
    if not statements:
        return {}
    return {
        STATED_ATTRIBUTES: list(dict.fromkeys(s.attribute for s in statements)),
        STATED_SUBJECTS: list(dict.fromkeys(s.subject for s in statements)),
        STATED: list(dict.fromkeys(stated_key(s.subject, s.attribute) for s in statements)),
    }


def knn_body(
    tenant_id: str, user_id: str, vector: Sequence[float], k: int, filters: SearchFilters | None, source: Any = False
) -> dict[str, Any]:
    clause = {
        "vector": [float(x) for x in vector],
        "k": k,
        # Efficient filtering: the filter runs inside the k-NN search, so k matches come back.
        "filter": {"bool": {"filter": filter_clauses(tenant_id, user_id, filters)}},
    }
    return {"size": k, "_source": source, "query": {"knn": {"vector": clause}}}


def text_body(
    tenant_id: str, user_id: str, query: str, k: int, filters: SearchFilters | None, source: Any = False
) -> dict[str, Any]:
    return {
        "size": k,
        "_source": source,
        "query": {
            "bool": {
                "must": [{"match": {"text": {"query": query}}}],
                "filter": filter_clauses(tenant_id, user_id, filters),
            }
        },
    }


def raise_item_error(item: dict[str, Any], action: str) -> None:
    """One failed search of an msearch, translated like a failed request."""
    status = item.get("status")
    error = item["error"]
    reason = error.get("reason", error) if isinstance(error, dict) else error
    if isinstance(status, int) and (status == 429 or status >= 500):
        raise IndexUnavailableError(f"OpenSearch {action} failed ({status}): {reason}")
    raise EngramError(f"OpenSearch {action} failed ({status}): {reason}")


class RecordingTimes:
    """created_at of memories seen in search answers, per (tenant, user, id); bounded, thread-safe."""

    def __init__(self, size: int = TIMES_KEPT) -> None:
        self._size = size
        self._times: OrderedDict[tuple[str, str, str], datetime] = OrderedDict()
        self._lock = threading.Lock()

    def remember(self, tenant_id: str, user_id: str, hits: Sequence[dict[str, Any]]) -> dict[str, datetime]:
        """Keeps the hits' recording times; returns them (id -> created_at)."""
        seen = {
            hit["_id"]: datetime.fromisoformat(created)
            for hit in hits
            if (created := (hit.get("_source") or {}).get("created_at"))
        }
        with self._lock:
            for memory_id, created_at in seen.items():
                self._times[(tenant_id, user_id, memory_id)] = created_at
            while len(self._times) > self._size:
                self._times.popitem(last=False)
        return seen

    def known(self, tenant_id: str, user_id: str, memory_ids: Sequence[str]) -> dict[str, datetime]:
        with self._lock:
            return {m: t for m in memory_ids if (t := self._times.get((tenant_id, user_id, m))) is not None}


def neighbours_among(times: dict[str, datetime], memory_ids: Sequence[str], window: timedelta) -> dict[str, list[str]]:
    """For each id in `times`, the ids of `times` recorded just before and just after it, at most
    `window` apart; equal times count on both sides, ties broken by id as the index's sort does."""
    order = sorted(times, key=lambda i: (times[i], i))
    position = {memory_id: n for n, memory_id in enumerate(order)}
    found: dict[str, list[str]] = {}
    for memory_id in memory_ids:
        if memory_id not in position:
            continue
        at, n = times[memory_id], position[memory_id]
        around = [order[j] for j in (n - 1, n + 1) if 0 <= j < len(order) and abs(times[order[j]] - at) <= window]
        found[memory_id] = around
    return found


class CandidatePools:
    """The recording times of the last candidate search per (tenant, user, filters); bounded, thread-safe."""

    def __init__(self, size: int = POOLS_KEPT) -> None:
        self._size = size
        self._pools: OrderedDict[tuple[str, str, str], dict[str, datetime]] = OrderedDict()
        self._lock = threading.Lock()

    def remember(self, key: tuple[str, str, str], times: dict[str, datetime]) -> None:
        """`times`: every candidate of the search and its recording time (RecordingTimes.remember's answer)."""
        with self._lock:
            self._pools[key] = times
            self._pools.move_to_end(key)
            while len(self._pools) > self._size:
                self._pools.popitem(last=False)

    def neighbours(
        self, key: tuple[str, str, str], memory_ids: Sequence[str], window: timedelta
    ) -> dict[str, list[str]] | None:
        """Neighbours among the pool's candidates; None when some id is not among them."""
        with self._lock:
            times = self._pools.get(key)
        if times is None or any(memory_id not in times for memory_id in memory_ids):
            return None
        return neighbours_among(times, memory_ids, window)


def pool_key(tenant_id: str, user_id: str, filters: SearchFilters | None) -> tuple[str, str, str]:
    return tenant_id, user_id, json.dumps(filter_clauses(tenant_id, user_id, filters), sort_keys=True)
