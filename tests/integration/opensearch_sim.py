"""An in-memory OpenSearch behind opensearch-py's Connection: the real OpenSearchIndex adapter sends its real
requests, this answers them from documents it keeps, and every request is recorded (path and bytes).

It understands only what the adapter sends (adapters/opensearch/: index.py, queries.py,
speakers.py): bulk index/delete, term/range/ids filters, knn (cosine), match (shared
tokens), the speakers aggregation, sort with search_after, and _msearch of those. Enough for the
pipeline, search and maintenance to run as on AWS, so that the request accounting counts what the
adapter really sends; not a search engine (scores are crude).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

from opensearchpy import Connection


@dataclass
class SentRequest:
    method: str
    path: str
    request_bytes: int
    response_bytes: int


@dataclass
class SimIndex:
    """Documents by index name and id, and the requests sent, in order."""

    docs: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    requests: list[SentRequest] = field(default_factory=list)


def _value(source: dict[str, Any], dotted: str) -> Any:
    value: Any = source
    for part in dotted.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


_COMPARE: dict[str, Any] = {
    "gte": lambda a, b: a >= b,
    "lte": lambda a, b: a <= b,
    "gt": lambda a, b: a > b,
    "lt": lambda a, b: a < b,
}


def _matches(doc_id: str, source: dict[str, Any], clause: dict[str, Any]) -> bool:
    kind, spec = next(iter(clause.items()))
    if kind == "term":
        name, wanted = next(iter(spec.items()))
        return bool(_value(source, name) == wanted)
    if kind == "ids":
        return doc_id in spec["values"]
    if kind == "range":
        name, bounds = next(iter(spec.items()))
        value = _value(source, name)
        return value is not None and all(_COMPARE[op](value, bound) for op, bound in bounds.items())
    if kind == "bool":
        return all(_matches(doc_id, source, c) for c in spec.get("filter", [])) and not any(
            _matches(doc_id, source, c) for c in spec.get("must_not", [])
        )
    raise ValueError(f"the simulated OpenSearch does not know the clause {kind}")


def _tokens(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


def _cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=False))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


def _hit(doc_id: str, source: dict[str, Any], score: float, wanted: Any) -> dict[str, Any]:
    hit: dict[str, Any] = {"_id": doc_id, "_score": score}
    if wanted:
        hit["_source"] = {k: source[k] for k in wanted if k in source} if isinstance(wanted, list) else source
    return hit


def search(docs: dict[str, dict[str, Any]], body: dict[str, Any]) -> dict[str, Any]:
    query = body.get("query", {})
    scored: list[tuple[float, str]] = []
    if "knn" in query:
        clause = query["knn"]["vector"]
        filters = clause.get("filter", {"bool": {}})
        for doc_id, source in docs.items():
            if _matches(doc_id, source, filters):
                scored.append(((1.0 + _cosine(clause["vector"], source["vector"])) / 2.0, doc_id))
    else:
        spec = query.get("bool", {})
        must = [c["match"]["text"]["query"] for c in spec.get("must", [])]
        for doc_id, source in docs.items():
            if not _matches(doc_id, source, {"bool": spec}):
                continue
            score = float(sum(len(_tokens(q) & _tokens(source.get("text", ""))) for q in must)) if must else 0.0
            if not must or score > 0:
                scored.append((score, doc_id))
    if body.get("sort"):
        for key in reversed(body["sort"]):
            name, order = next(iter(key.items()))
            scored.sort(key=lambda pair: str(_value(docs[pair[1]], name)), reverse=order == "desc")
        if "search_after" in body:
            after = body["search_after"][0]
            scored = [p for p in scored if str(_value(docs[p[1]], next(iter(body["sort"][0])))) > after]
    else:
        scored.sort(key=lambda pair: -pair[0])
    found = scored[: int(body.get("size", 10))]
    hits = [_hit(i, docs[i], s, body.get("_source")) for s, i in found]
    if body.get("sort"):
        for (_, doc_id), hit in zip(found, hits, strict=True):
            hit["sort"] = [str(_value(docs[doc_id], next(iter(k)))) for k in body["sort"]]
    answer: dict[str, Any] = {"hits": {"total": {"value": len(scored)}, "hits": hits}}
    if "aggs" in body:
        name = body["aggs"]["speakers"]["terms"]["field"]
        counts: dict[str, int] = {}
        for _, doc_id in scored:
            if isinstance(said := _value(docs[doc_id], name), str):
                counts[said] = counts.get(said, 0) + 1
        answer["aggregations"] = {"speakers": {"buckets": [{"key": k, "doc_count": n} for k, n in counts.items()]}}
    return answer


class SimulatedConnection(Connection):
    """Answers the adapter's requests from `sim` (pass sim=... to OpenSearch(...)) and records them."""

    def __init__(self, sim: SimIndex, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.sim = sim

    def perform_request(  # type: ignore[override]
        self, method: str, url: str, params: Any = None, body: Any = None, ignore: Any = (), **_: Any
    ) -> tuple[int, dict[str, str], str]:
        raw = body if isinstance(body, bytes) else (body or "").encode()
        lines = [json.loads(line) for line in raw.decode().strip().split("\n") if line]
        status, answer = self._answer(method, url.split("?")[0], lines)
        text = json.dumps(answer)
        self.sim.requests.append(SentRequest(method, url.split("?")[0], len(raw), len(text.encode())))
        if status >= 300 and status not in ignore:
            self._raise_error(status, text, "application/json")
        return status, {"content-type": "application/json"}, text

    def _answer(self, method: str, path: str, lines: list[dict[str, Any]]) -> tuple[int, Any]:
        parts = [p for p in path.split("/") if p]
        if method == "HEAD":
            return (200 if parts[0] in self.sim.docs else 404), {}
        if method == "PUT" and len(parts) == 1:
            self.sim.docs.setdefault(parts[0], {})
            return 200, {"acknowledged": True}
        if path.endswith("/_bulk"):
            return 200, self._bulk(lines)
        if path.endswith("/_msearch"):
            pairs = zip(lines[::2], lines[1::2], strict=True)
            return 200, {"responses": [search(self.sim.docs.get(h["index"], {}), b) for h, b in pairs]}
        if path.endswith("/_search"):
            return 200, search(self.sim.docs.get(parts[0], {}), lines[0] if lines else {})
        if path.endswith("/_mapping"):
            return 200, {"acknowledged": True}
        raise ValueError(f"the simulated OpenSearch does not know {method} {path}")

    def _bulk(self, lines: list[dict[str, Any]]) -> dict[str, Any]:
        items: list[dict[str, Any]] = []
        i = 0
        while i < len(lines):
            action, meta = next(iter(lines[i].items()))
            docs = self.sim.docs.setdefault(meta["_index"], {})
            if action == "index":
                docs[meta["_id"]] = lines[i + 1]
                items.append({"index": {"_id": meta["_id"], "status": 201}})
                i += 2
            else:
                found = docs.pop(meta["_id"], None) is not None
                items.append({"delete": {"_id": meta["_id"], "status": 200 if found else 404}})
                i += 1
        return {"errors": False, "items": items}
