"""Part `facts`: fact-level ranking over the fact-retrieval set (bench/data/fact_set.py).

Every statement of every user is one add through the offline pipeline (rule-based extractor, key
reconciler, episodes on) into the embedded index with the MiniLM embedder, as the container wires it
with its stores in memory (bench/doubles/in_memory.py: the ranking is what is measured, not DynamoDB). Each
question is then searched as that user; it is answered when a memory made from its statement is first
(top-1) or among the first three (R@3).
Also reported: the same searches without the intent re-ranking (HybridSearcher alone).
"""

from __future__ import annotations

import statistics
import time
from typing import Any

from bench.data.fact_set import users
from bench.doubles.in_memory import in_memory_product
from bench.rig.engram_env import shared_embedder
from engram.domain.models import AddRequest, Event, Message, Scope, SearchQuery
from engram.settings import Settings

TENANT = "bench"


def run(count: int = 42) -> dict[str, Any]:
    embedder = shared_embedder()
    engram = in_memory_product(embedder, None, Settings(keep_episodes=True))
    facts, pipeline, service = engram.facts, engram.pipeline, engram.memories
    assert service.search_pipeline is not None
    people = users(count)
    began = time.perf_counter()
    asked: list[tuple[str, str, set[str]]] = []  # user, question, ids of the memories its statement made
    no_memory = 0
    for user in people:
        scope = Scope(tenant_id=TENANT, user_id=user.user_id)
        for n, item in enumerate(user.items):
            request = AddRequest(user_id=user.user_id, messages=[Message(role="user", content=item.statement)])
            results = pipeline.run(scope, request, f"{user.user_id}-{n}").results
            made = {r.id for r in results if r.event in (Event.ADD, Event.UPDATE, Event.NONE)}
            if not made:
                no_memory += 1
            asked += [(user.user_id, q, made) for q in item.questions]
    ingest_s = time.perf_counter() - began
    kept = sum(1 for u in people for _ in facts.list_current(TENANT, u.user_id, limit=1000).items)
    began = time.perf_counter()
    full: list[tuple[bool, bool]] = []
    plain: list[tuple[bool, bool]] = []
    for user_id, question, made in asked:
        hits = service.search(TENANT, SearchQuery(user_id=user_id, query=question, top_k=3))
        ids = [f.id for f, _ in hits]
        full.append((ids[:1] != [] and ids[0] in made, bool(made & set(ids[:3]))))
        raw = [h.id for h in service.search_pipeline.searcher.search(TENANT, user_id, question, 3)]
        plain.append((raw[:1] != [] and raw[0] in made, bool(made & set(raw[:3]))))
    search_s = time.perf_counter() - began

    def score(rows: list[tuple[bool, bool]]) -> dict[str, float]:
        return {
            "top1": round(statistics.fmean(a for a, _ in rows), 4),
            "recall@3": round(statistics.fmean(b for _, b in rows), 4),
        }

    return {
        "users": len(people),
        "statements": sum(len(u.items) for u in people),
        "statements_without_memory": no_memory,
        "memories": kept,
        "questions": len(asked),
        "results": {"engram (intent re-ranking)": score(full), "hybrid search alone": score(plain)},
        "timings": {"ingest_s": round(ingest_s, 1), "search_s": round(search_s, 1)},
    }
