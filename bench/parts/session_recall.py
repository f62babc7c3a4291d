"""The field's session-level retrieval figures on the whole sets (`--parts sessions`; no LLM).

    .venv/bin/python -m bench.parts.session_recall [--cached] [--lme-only | --locomo-only] [--sum] [key=value ...]

--sum: sessions ranked by the summed scores of their retrieved turns instead of their best turn (tried for
the goals; results in session_recall_sum.json).

- LongMemEval_S, every non-abstention question of the bench's third (184 questions):
  recall_any@5/@10, recall_all@5/@10 and NDCG@5/@10 over distinct sessions, the official shape
  (LongMemEval's src/retrieval/eval_utils.py, evaluate_retrieval_turn2session: a session ranks at its
  best-ranked turn, repeats dropped, the first k distinct sessions read). Figures over every scored
  question, and over the official subset: LongMemEval indexes user turns only and skips a question
  with no evidence in a user turn (single-session-assistant questions, mostly).
- LoCoMo, all ten conversations, categories 1-4: recall@10 over distinct sessions (the share of a
  question's evidence sessions among the first 10 distinct sessions retrieved) and all@10.

Both beside the turn-level figures of the same searches. The memories are the raw turns as the
recall labs store them (bench/lme_lab.memories; bench/qa.locomo_memories: "Speaker: text", no date
in the text, valid from when said), searched by MemoryService.search (bench/rig/lab_service.py: the
product's search with the ENGRAM_SEARCH_* settings, key=value HybridSearcher fields on top); turn
figures read a top_k=20 search as the recall parts do, session figures a top_k=50 search (20 turns
often hold fewer than 10 distinct sessions; LongMemEval ranks the whole haystack).
Vectors: bench/.cache (the LongMemEval lab's file, ~110k texts for the 184 questions: about an hour
of CPU the first time; LoCoMo's undated turns a file of their own). --cached: only the LongMemEval
questions whose turns are all cached (the output says how many).
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections.abc import Iterable, Sequence
from typing import Any

from bench.rig.stats import distinct, recall_at, session_metrics, sessions_by_sum

TURN_K = 20
SESSION_K = 50
GOALS = {"longmemeval recall_all@5": 0.95, "locomo session recall@10": 0.96}
REFERENCES = {
    "longmemeval": "recall_all@5 0.928 / recall_all@10 0.971 with a cross-encoder; recall_any@5 0.978",
    "locomo": "distinct-session recall@10 0.889 hybrid, 0.914 with +-2-turn context expansion, 0.958 cross-encoder",
}
SESSION_KEYS = ("recall_any@5", "recall_any@10", "recall_all@5", "recall_all@10", "ndcg@5", "ndcg@10")


def _means(rows: Sequence[dict[str, Any]], keys: Iterable[str]) -> dict[str, Any]:
    out: dict[str, Any] = {"questions": len(rows)}
    for key in keys:
        out[key] = round(statistics.fmean(r[key] for r in rows), 4) if rows else None
    return out


def longmemeval(argv: Sequence[str], fields: dict[str, Any], summed: bool = False) -> dict[str, Any]:
    from bench.data.longmemeval_data import TYPES
    from bench.data.longmemeval_turns import TENANT, CachedVectors, build_cache, cache_file, memories, questions
    from bench.parts.longmemeval_score import hit_of, score
    from bench.rig.engram_env import shared_model_id
    from bench.rig.lab_service import lab_service
    from engram.domain.models import SearchQuery

    cache = CachedVectors(cache_file(shared_model_id()))
    every = questions(["--all"], None)
    chosen = questions(["--all", *argv], cache)
    if "--cached" not in argv:
        build_cache(chosen, cache)
    rows: list[dict[str, Any]] = []
    began = time.perf_counter()
    for q in chosen:
        evidence = q.evidence()
        if q.abstention or not evidence:
            continue
        facts = memories(q)
        service = lab_service(facts, cache.embed([f.text for f in facts]), cache, **fields)

        def search(top_k: int, q: Any = q, service: Any = service) -> list[tuple[Any, float]]:
            query = SearchQuery(user_id=f"lme-{q.question_id}", query=q.question, top_k=top_k, now=q.question_date)
            return [(hit_of(fact), s) for fact, s in service.search(TENANT, query)]

        turns = score(evidence, [h for h, _ in search(TURN_K)])
        sessions = _sessions([(h.session, s) for h, s in search(SESSION_K) if h.session != "?"], summed)
        user_evidence = any(t.has_answer and t.role == "user" for s in q.sessions for t in s.turns)
        rows.append(
            {
                "question_id": q.question_id,
                "type": q.question_type,
                "user_evidence": user_evidence,
                "turn_recall@10": turns["turn_recall@10"],
                "turn_all@10": turns["turn_all@10"],
                "distinct_sessions_in_50": len(distinct(sessions)),
                **session_metrics(sessions, q.evidence_sessions()),
            }
        )
    keys = ("turn_recall@10", "turn_all@10", *SESSION_KEYS)
    official = [r for r in rows if r["user_evidence"]]
    out: dict[str, Any] = {
        "questions_in_third": len(every),
        "abstention": sum(q.abstention for q in every),
        "measured": "all non-abstention questions" if len(chosen) == len(every) else f"{len(chosen)} cached questions",
        "overall": _means(rows, keys),
        "official_subset": _means(official, keys),
        "by_type": {t: _means([r for r in rows if r["type"] == t], keys) for t in TYPES},
        "wall_s": round(time.perf_counter() - began, 1),
        "rows": rows,
    }
    return out


def locomo(fields: dict[str, Any], summed: bool = False) -> dict[str, Any]:
    from bench.data.locomo_data import CATEGORIES, load
    from bench.data.longmemeval_turns import CACHE_DIR, CachedVectors
    from bench.parts.qa import locomo_memories
    from bench.rig.engram_env import shared_model_id
    from bench.rig.lab_service import lab_service

    cache = CachedVectors(CACHE_DIR / f"qa_locomo_vectors-{shared_model_id()}.npz")
    rows: list[dict[str, Any]] = []
    began = time.perf_counter()
    for conv in load():
        facts = locomo_memories(conv)
        known = len(cache.keyed)
        service = lab_service(facts, cache.embed([f.text for f in facts]), cache, **fields)
        if len(cache.keyed) > known:
            cache.save()
        dia = {f.id: f.id.split("/", 1)[1] for f in facts}
        for q in conv.questions:
            if not q.evidence:
                continue
            gold = {e.split(":")[0] for e in q.evidence}
            hits = [(d.split(":")[0], score) for d, score in _ranked(service, conv.user_id, q.question, SESSION_K, dia)]
            top = _sessions(hits, summed)[:10]
            rows.append(
                {
                    "conversation": conv.sample_id,
                    "category": q.category,
                    "turn_recall@10": recall_at(
                        [d for d, _ in _ranked(service, conv.user_id, q.question, TURN_K, dia)], q.evidence, 10
                    ),
                    "session_recall@10": len(gold & set(top)) / len(gold),
                    "session_all@10": 1.0 if gold <= set(top) else 0.0,
                    "session_recall@5": len(gold & set(top[:5])) / len(gold),
                }
            )
    keys = ("turn_recall@10", "session_recall@5", "session_recall@10", "session_all@10")
    return {
        "conversations": len({r["conversation"] for r in rows}),
        "overall": _means(rows, keys),
        "by_category": {
            f"{c} {n}": _means([r for r in rows if r["category"] == c], keys) for c, n in CATEGORIES.items()
        },
        "wall_s": round(time.perf_counter() - began, 1),
    }


def _ranked(service: Any, user_id: str, question: str, top_k: int, dia: dict[str, str]) -> list[tuple[str, float]]:
    """The dia_ids of MemoryService.search's hits, with their scores."""
    from bench.parts.qa import TENANT
    from engram.domain.models import SearchQuery

    query = SearchQuery(user_id=user_id, query=question, top_k=top_k)
    return [(dia[f.id], score) for f, score in service.search(TENANT, query)]


def _sessions(hits: Sequence[tuple[str, float]], summed: bool) -> list[str]:
    """Distinct sessions, best first: at their best-ranked turn (the official shape), or --sum."""
    return sessions_by_sum(hits) if summed else distinct(s for s, _ in hits)


def run(argv: Sequence[str] = ()) -> dict[str, Any]:
    fields = {k: _value(v) for k, _, v in (a.partition("=") for a in argv if not a.startswith("--"))}
    out: dict[str, Any] = {"method": {"turn_top_k": TURN_K, "session_top_k": SESSION_K, "fields": fields}}
    out["method"]["session_order"] = "summed turn scores (--sum)" if "--sum" in argv else "best-ranked turn (official)"
    out["goals"], out["references"] = GOALS, REFERENCES
    if "--lme-only" not in argv:
        out["locomo"] = locomo(fields, "--sum" in argv)
        print("locomo", json.dumps(out["locomo"]["overall"]), flush=True)
    if "--locomo-only" not in argv:
        out["longmemeval"] = longmemeval([a for a in argv if a == "--cached"], fields, "--sum" in argv)
        print("longmemeval", json.dumps(out["longmemeval"]["overall"]), flush=True)
        print("  official subset", json.dumps(out["longmemeval"]["official_subset"]), flush=True)
    return out


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def main(argv: list[str]) -> int:
    from bench.report import report

    result = run(argv)
    report.save("session_recall_sum" if "--sum" in argv else "session_recall", result)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
