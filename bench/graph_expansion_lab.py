"""Graph-expanded retrieval (issue 26), measured: each haystack ingested once in pipeline mode
(infer=true, offline extractor, episodes and graph on: the only mode with relations), then every
question searched with the expansion off and at each share, on the same stores in the same process.

    .venv/bin/python -m bench.graph_expansion_lab --lme 12 --locomo 2

LongMemEval: the stratified quick subset (bench/longmemeval.py), turn recall by question type.
LoCoMo: the `offline` mode of bench/locomo_infer.py (one add per turn), recall by category.
Also: how many questions name an entity that has relations, and MemoryService.search wall time.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from bench.engram_env import EngramEnv, VectorCache, engram_env
from bench.locomo_data import load as load_locomo
from bench.locomo_infer import ingest as locomo_ingest
from bench.locomo_recall import KS, _scores
from bench.longmemeval import MODES, TOP_K, ingest
from bench.longmemeval_data import TYPES, load, stratified
from bench.longmemeval_score import hit_of, score, summarise
from bench.procs import MotoProcess
from engram.domain.models import SearchQuery
from engram.graph.search import named
from engram.search.graph_expansion import GraphExpansion

SHARES = (0.0, 0.2, 0.35, 0.5)


def _with_share(env: EngramEnv, share: float) -> None:
    c = env.container
    c.memories.expansion = GraphExpansion(c.graph_store, c.entity_index, share) if share > 0 else None


def _searches(env: EngramEnv, query: SearchQuery) -> dict[float, tuple[list[Any], float]]:
    _with_share(env, 0.0)
    env.container.memories.search(env.tenant_id, query)  # untimed: the query's embedding is cached after it
    out = {}
    for share in SHARES:
        _with_share(env, share)
        began = time.perf_counter()
        hits = env.container.memories.search(env.tenant_id, query)
        out[share] = (hits, (time.perf_counter() - began) * 1000)
    return out


def _linked(env: EngramEnv, user_id: str, question: str) -> int:
    c = env.container
    seeds = named(c.graph_store, c.entity_index, env.tenant_id, user_id, question)
    relations = c.graph_store.relations_of(env.tenant_id, sorted(seeds)) if seeds else []
    return len({i for r in relations if r.current for i in r.memory_ids})


def lme(n: int, cache: VectorCache) -> dict[str, Any]:
    chosen = stratified(load(), n)
    rows: list[dict[str, Any]] = []

    def group(questions: Sequence[Any]) -> list[dict[str, Any]]:
        out = []
        with MotoProcess() as moto:
            for q in questions:
                env = engram_env(moto.endpoint, embedder=cache)
                ingest(env, q, MODES["pipeline"])
                user = f"lme-{q.question_id}"
                query = SearchQuery(user_id=user, query=q.question, top_k=TOP_K, now=q.question_date)
                linked = _linked(env, user, q.question)
                for share, (hits, ms) in _searches(env, query).items():
                    row = {"type": q.question_type, "share": share, "ms": ms, "linked": linked}
                    if not q.abstention and q.evidence():
                        row |= score(q.evidence(), [hit_of(f) for f, _ in hits])
                    out.append(row)
                print(f"  lme {q.question_id} {q.question_type} linked={linked}", flush=True)
        return out

    with ThreadPoolExecutor(max_workers=2) as pool:
        for part in pool.map(group, [chosen[i::2] for i in range(2)]):
            rows += part
    result: dict[str, Any] = {}
    for share in SHARES:
        mine = [r for r in rows if r["share"] == share]
        scored = [r for r in mine if "turn_recall@10" in r]
        block = {"overall": summarise(scored)} | {t: summarise(r for r in scored if r["type"] == t) for t in TYPES}
        block["search_p50_ms"] = round(statistics.median(r["ms"] for r in mine), 2)
        result[str(share)] = block
    result["questions_with_links"] = sum(1 for r in rows if r["share"] == 0.0 and r["linked"])
    result["questions"] = len(chosen)
    return result


def locomo(n: int, cache: VectorCache) -> dict[str, Any]:
    convs = load_locomo()[:n]

    def one(conv: Any) -> tuple[dict[float, list[Any]], list[float], int]:
        with MotoProcess() as moto:
            env = engram_env(moto.endpoint, embedder=cache)
            env.container.pipeline.keep_episodes = True
            locomo_ingest(env, conv)
            ranked: dict[float, list[Any]] = {s: [] for s in SHARES}
            ms: dict[float, list[float]] = {s: [] for s in SHARES}
            with_links = 0
            for q in conv.questions:
                if not q.evidence:
                    continue
                with_links += bool(_linked(env, conv.user_id, q.question))
                query = SearchQuery(user_id=conv.user_id, query=q.question, top_k=max(KS))
                for share, (hits, took) in _searches(env, query).items():
                    ranked[share].append(
                        (q.category, [str(f.metadata.get("dia_id", "?")) for f, _ in hits], q.evidence)
                    )
                    ms[share].append(took)
            print(f"  locomo {conv.sample_id}: questions naming a linked entity {with_links}", flush=True)
            return ranked, [statistics.median(ms[s]) for s in SHARES], with_links

    rows: dict[float, list[Any]] = {s: [] for s in SHARES}
    p50s: list[list[float]] = []
    links = 0
    with ThreadPoolExecutor(max_workers=2) as pool:
        for ranked, p50, with_links in pool.map(one, convs):
            for share in SHARES:
                rows[share] += ranked[share]
            p50s.append(p50)
            links += with_links
    out: dict[str, Any] = {
        str(s): _scores(rows[s]) | {"search_p50_ms": round(statistics.median(p[i] for p in p50s), 2)}
        for i, s in enumerate(SHARES)
    }
    return out | {"questions_with_links": links}


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--lme", type=int, default=12)
    parser.add_argument("--locomo", type=int, default=2)
    args = parser.parse_args()
    vectors = VectorCache()
    report: dict[str, Any] = {}
    if args.locomo:
        report["locomo"] = locomo(args.locomo, vectors)
        print(json.dumps(report["locomo"], indent=1), flush=True)
    if args.lme:
        report["longmemeval"] = lme(args.lme, vectors)
        print(json.dumps(report["longmemeval"], indent=1), flush=True)
    print(json.dumps(report))
