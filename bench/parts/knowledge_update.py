"""LongMemEval_S knowledge updates through Engram's real ingestion and search (`--parts updates`): issue 42's
"the latest evidence ranks above the older evidence, and the older evidence is marked outdated".

The questions: every knowledge-update question of the bench's third with evidence said at two or more
times, and the temporal-reasoning questions where a value changed (bench/data/longmemeval_updates.py).
Per question and mode, a fresh user in fresh tables, ingested as the LongMemEval part does it
(bench/parts/longmemeval.py: one add per session in the order said, `created_at` the session's date,
through MemoryService.submit and the worker; search with the question, `now` = the question's date).
Then every stored version of the user's memories is read (FactStore.list_versions) to see what became of
the older evidence turn's memories, and bench/parts/knowledge_update_score.py scores it. Modes: the
pipeline first (infer=true, the offline extractor: facts, statements and supersession run), then raw
turns (infer=false). Vectors come from the LongMemEval turn cache (bench/.cache, bench/data/longmemeval_turns.py),
saved at the end, so a second run embeds only what is new.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any

from bench.data.longmemeval_data import Question, load
from bench.data.longmemeval_turns import CachedVectors, cache_file
from bench.data.longmemeval_updates import CHANGED, KNOWLEDGE_UPDATE, TEMPORAL, candidates, updates
from bench.parts import knowledge_update_score as ku
from bench.parts.longmemeval import MODES, PER_MOTO, TOP_K, ingest
from bench.rig.engram_env import EngramEnv, engram_env, shared_model_id
from bench.rig.procs import ROOT, MotoProcess, git_commit
from engram.domain.models import Fact, SearchQuery

ORDER = ("pipeline", "raw turns")  # infer=true first: where statements and supersession run
KINDS = {KNOWLEDGE_UPDATE: "knowledge-update", TEMPORAL: "temporal-reasoning (a value changed)"}
QUICK = 6


def versions(env: EngramEnv, user_id: str) -> list[Fact]:
    """Every stored version of the user's memories, current and closed."""
    out: list[Fact] = []
    cursor: str | None = None
    while True:
        page = env.container.facts.list_versions(env.tenant_id, user_id, 100, cursor)
        out += page.items
        if not (cursor := page.next_cursor):
            return out


def search(env: EngramEnv, q: Question) -> list[Fact]:
    query = SearchQuery(user_id=f"lme-{q.question_id}", query=q.question, top_k=TOP_K, now=q.question_date)
    return [fact for fact, _ in env.container.memories.search(env.tenant_id, query)]


def _group(questions: Sequence[Question], cache: CachedVectors, modes: Sequence[str]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    with MotoProcess() as moto:
        for q in questions:
            for name in modes:
                env = engram_env(moto.endpoint, embedder=cache)
                began = time.perf_counter()
                stored, sessions = ingest(env, q, MODES[name])
                ingest_s = time.perf_counter() - began
                hits = [ku.hit_of(fact, sessions) for fact in search(env, q)]
                memories = ku.kept(versions(env, f"lme-{q.question_id}"), sessions)
                row = {
                    "question_id": q.question_id,
                    "type": q.question_type,
                    "mode": name,
                    "question": q.question,
                    "memories": stored,
                    "ingest_s": round(ingest_s, 1),
                    **ku.score(q.evidence(), hits, memories),
                }
                rows.append(row)
                print(
                    f"  {q.question_id} {name}: latest rank {row['latest_rank']}, older {row['older_ranks']}, "
                    f"outdated {row['older_memories_outdated']} of {row['older_memories']}",
                    flush=True,
                )
    return rows


def _summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"overall": ku.summarise(rows)}
    for kind, label in KINDS.items():
        out[label] = ku.summarise(r for r in rows if r["type"] == kind)
    return out


def run(
    quick: bool = False,
    questions: Sequence[Question] | None = None,
    parallel: int = 2,
    modes: Sequence[str] = ORDER,
) -> dict[str, Any]:
    every = list(questions) if questions is not None else load()
    chosen = updates(every)
    if quick:
        chosen = chosen[:QUICK]
    cache = CachedVectors(cache_file(shared_model_id()))
    groups = [chosen[i : i + PER_MOTO] for i in range(0, len(chosen), PER_MOTO)]
    began, started = time.perf_counter(), datetime.now(UTC).isoformat(timespec="seconds")
    load_at_start = round(os.getloadavg()[0], 1)
    rows: list[dict[str, Any]] = []
    with ThreadPoolExecutor(max_workers=parallel) as pool:
        for name in modes:  # one mode over every question, then the next: the pipeline's figures come first
            for part in pool.map(lambda g, m=name: _group(g, cache, (m,)), groups):
                rows.extend(part)
                cache.save()  # after each group: a run cut short keeps what it embedded
    n_ku = sum(q.question_type == KNOWLEDGE_UPDATE for q in every)
    n_chosen = sum(q.question_type == KNOWLEDGE_UPDATE for q in chosen)
    return {
        "started": started,
        "commit": git_commit(ROOT),
        "load_at_start": load_at_start,
        "method": {
            "data": "LongMemEval_S, the 184-question third (../shared/bench/longmemeval_s_dev.json.gz); "
            "no held-aside split on this machine",
            "questions": f"{n_chosen} of {n_ku} knowledge-update "
            "questions (evidence said at two or more times; the abstention one has none); "
            f"{sum(q.question_type == TEMPORAL for q in chosen)} temporal-reasoning questions where a value changed, "
            f"read among the {len(candidates(every))} the rule finds: {CHANGED}",
            "add": "as the longmemeval part: one add per session in the order said, created_at = the session's date",
            "modes": {name: MODES[name] for name in modes},
            "search": f"MemoryService.search(top_k={TOP_K}), the question alone, now = the question's date",
            "latest_first": "the latest-dated evidence turn is among the hits and above every older evidence turn",
            "older_outdated": "each older evidence turn has a memory closed, or with outdated_by (its own or a "
            "statement's), or whose current version a later statement replaced",
        },
        "questions": len(chosen),
        "results": {name: _summary([r for r in rows if r["mode"] == name]) for name in modes},
        "wall_s": round(time.perf_counter() - began, 1),
        "per_question": rows,
    }


if __name__ == "__main__":
    import json
    import sys

    print(json.dumps({k: v for k, v in run(quick="--quick" in sys.argv).items() if k != "per_question"}, indent=2))
