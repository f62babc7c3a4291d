"""A fast loop for ranking experiments on LongMemEval_S raw turns (a minute instead of the part's 20).

    .venv/bin/python -m bench.labs.lme_lab [--quick | --all] [--cached] [--per-question] [key=value ...]

key=value: HybridSearcher fields (bench/rig/lab_service.py).

The same fixed stratified subset as bench/parts/longmemeval.py (48 questions; --quick 12, --all 184).
Every turn is stored as the raw-turns mode stores it (one memory per message, or parts of a message
over 2,000 characters cut by the product's splitter, pipeline/episodes.as_given; role and message
index in `source`, metadata {session_id, session}, valid_from = created_at = the session's date + 1 s
per turn). The texts are embedded once with the product's embedder and cached in bench/.cache/
(a file per model; the first build of the 48 questions is ~15 minutes of CPU). Each question then gets
a fresh MemoryService (bench/rig/lab_service.py) and is searched with now = the question's date, top_k 20,
and scored by bench/parts/longmemeval_score.py. Search settings come from the environment
(ENGRAM_SEARCH_DIVERSITY=0.1 ...).

Differences from the real part: memories are not written through DynamoDB and the worker (the
ranking reads the same fields), and `created_at` is when the turn was said, where the real part stores
a memory's `created_at` as the time it was stored (recording order is the same: sessions in the order
said, turns in order; only the 30-minute context window then links turns of different sessions).
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from bench.data.longmemeval_data import TYPES, Question
from bench.data.longmemeval_turns import TENANT, CachedVectors, build_cache, cache_file, memories, questions
from bench.parts.longmemeval_score import Hit, hit_of, score, summarise
from bench.rig.engram_env import shared_model_id
from engram.domain.models import Fact, SearchQuery
from engram.services.memory import MemoryService

TOP_K = 20


Service = Callable[[Sequence[Fact], Sequence[Sequence[float]], CachedVectors], MemoryService]


def rank(service: MemoryService, q: Question) -> list[Hit]:
    query = SearchQuery(user_id=f"lme-{q.question_id}", query=q.question, top_k=TOP_K, now=q.question_date)
    return [hit_of(fact) for fact, _ in service.search(TENANT, query)]


def evaluate(
    chosen: Sequence[Question], cache: CachedVectors, service: Service
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    rows: list[dict[str, Any]] = []
    ms: list[float] = []
    for q in chosen:
        evidence = q.evidence()
        if q.abstention or not evidence:
            continue
        facts = memories(q)
        svc = service(facts, cache.embed([f.text for f in facts]), cache)
        began = time.perf_counter()
        hits = rank(svc, q)
        ms.append((time.perf_counter() - began) * 1000)
        rows.append({"question_id": q.question_id, "type": q.question_type, **score(evidence, hits)})
    out: dict[str, Any] = {"overall": summarise(rows)}
    for kind in TYPES:
        out[kind] = summarise(r for r in rows if r["type"] == kind)
    out["search_p50_ms"] = round(statistics.median(ms), 2) if ms else None
    return out, rows


def table(result: dict[str, Any]) -> str:
    """One line per type: turn r@5 / r@10 / all@10, session r@5 / r@10."""
    lines = ["type                       n  t@5   t@10  all10 s@5   s@10"]
    for kind in ("overall", *TYPES):
        r = result[kind]
        if not r["questions"]:
            continue
        figures = " ".join(f"{r[k]:.3f}" for k in ("turn_recall@5", "turn_recall@10", "turn_all@10"))
        sessions = " ".join(f"{r[k]:.3f}" for k in ("session_recall@5", "session_recall@10"))
        lines.append(f"{kind:25s} {r['questions']:2d}  {figures} {sessions}")
    ku = result["overall"]["newest_first"]
    lines.append(f"KU newest first: {ku['share']} of {ku['questions']}; search p50 {result['search_p50_ms']} ms")
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    from bench.rig.lab_service import lab_service

    cache = CachedVectors(cache_file(shared_model_id()))
    chosen = questions(argv, cache)
    build_cache(chosen, cache)
    fields = {k: _value(v) for k, _, v in (a.partition("=") for a in argv if not a.startswith("--"))}
    result, rows = evaluate(chosen, cache, lambda f, v, e: lab_service(f, v, e, **fields))
    print(fields or "default", f"({len(chosen)} questions)")
    print(table(result))
    if "--per-question" in argv:
        for row in rows:
            print(row["question_id"], row["type"], row["turn_recall@10"], row["session_recall@10"])


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


if __name__ == "__main__":
    main(sys.argv[1:])
