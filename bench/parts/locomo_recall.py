"""Part 1: LoCoMo evidence recall through Engram's real ingestion and search.

Every turn of a conversation is one add (infer=false: stored as given, no LLM; deduplicate=false:
a raw turn such as "Thanks!" repeated later is still a turn of its own): the message's text is
"Speaker: turn", its `name` the speaker and its `created_at` the session's date and time (a second
per turn of the session, in order) - no date in the text - with the speaker, session date, session and
dia_id as metadata. The adds go through MemoryService.submit (task stored, message
queued on SQS) and the worker runs them in FIFO batches of ten, as the extraction function receives
them. One user per conversation, each conversation in its own tables on its own moto server. Questions of categories 1-4
go through MemoryService.search (top_k=20; recall@5/10 read the first 5/10 of that ranking).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from bench.data.locomo_data import CATEGORIES, Conversation, Turn, load
from bench.rig.engram_env import EngramEnv, VectorCache, engram_env
from bench.rig.procs import MotoProcess
from bench.rig.stats import all_at, recall_at
from engram.domain.models import AddRequest, SearchQuery
from engram.search.hybrid import HybridSearcher

KS = (5, 10, 20)
WORKER_BATCH = 10  # the extraction function's SQS batch size (template.yaml)


def said_at(turn: Turn) -> datetime | None:
    """When the turn was said: its session's date and time plus a second per turn before it in the
    session (LoCoMo dates sessions, not turns), so the turns keep their order."""
    if turn.said_at is None:
        return None
    return turn.said_at + timedelta(seconds=int(turn.dia_id.rsplit(":", 1)[1]) - 1)


def turn_request(conv: Conversation, turn: Turn) -> dict[str, Any]:
    """The add a client following the README sends for one turn (docs/api.md): the speaker as the message's
    `name`, the time it was said as `created_at`, stored as given. The metadata is the bench's own
    bookkeeping (Engram reads none of it: tests/unit/bench/test_bench_clients.py)."""
    said = said_at(turn)
    message: dict[str, Any] = {"role": "user", "content": turn.memory_text(dated=False), "name": turn.speaker}
    if said is not None:
        message["created_at"] = said.isoformat()
    return {
        "user_id": conv.user_id,
        "messages": [message],
        "metadata": turn.metadata(),
        "infer": False,
        "deduplicate": False,
    }


def ingest(env: EngramEnv, conv: Conversation) -> dict[str, str]:
    """Adds every turn through the real path; returns memory id -> dia_id."""
    memories = env.container.memories
    task_ids = [
        memories.submit(env.tenant_id, AddRequest.model_validate(turn_request(conv, turn))).task_id
        for turn in conv.turns
    ]
    by_memory: dict[str, str] = {}
    turns = iter(conv.turns)
    for start in range(0, len(task_ids), WORKER_BATCH):
        for task in env.container.worker.process_many(env.tenant_id, task_ids[start : start + WORKER_BATCH]):
            turn = next(turns)
            if task.status.value != "completed" or len(task.results) != 1:
                raise RuntimeError(f"turn {turn.dia_id} was not stored: {task.status} {task.error}")
            by_memory[task.results[0].id] = turn.dia_id
    return by_memory


def _scores(rankings: list[tuple[int, list[str], Sequence[str]]]) -> dict[str, Any]:
    """recall@k and all@k per category and overall from (category, ranked dia_ids, evidence)."""

    def block(rows: list[tuple[int, list[str], Sequence[str]]]) -> dict[str, float]:
        out: dict[str, float] = {"questions": len(rows)}
        for k in KS:
            out[f"recall@{k}"] = round(statistics.fmean(recall_at(r, e, k) for _, r, e in rows), 4) if rows else 0.0
            out[f"all@{k}"] = round(statistics.fmean(all_at(r, e, k) for _, r, e in rows), 4) if rows else 0.0
        return out

    result: dict[str, Any] = {"overall": block(rankings)}
    for category, name in CATEGORIES.items():
        result[f"{category} {name}"] = block([row for row in rankings if row[0] == category])
    return result


def run(
    conversations: Sequence[Conversation] | None = None,
    cache: VectorCache | None = None,
    ablations: bool = True,
    parallel: int = 2,
) -> dict[str, Any]:
    convs = list(conversations) if conversations is not None else load()
    embedder = cache or VectorCache()
    variants = {"engram": "MemoryService.search (the real path)"}
    ranked: dict[str, list[tuple[int, list[str], Sequence[str]]]] = {name: [] for name in variants}
    if ablations:
        variants.update(
            {
                "cosine only": "MiniLM k-NN of the embedded index",
                "bm25 only": "BM25 of the embedded index, raw question",
                "fusion, no context": "HybridSearcher with context_weight=0",
                "100 candidates": "MemoryService.search with ENGRAM_SEARCH_MIN_CANDIDATES=100 (default 200)",
            }
        )
        ranked.update({name: [] for name in variants if name not in ranked})
    timings: dict[str, float] = {"ingest_s": 0.0, "search_s": 0.0, "turns": 0, "questions": 0}
    timings.update({"evidence_in_top10": 0, "evidence_dated_that_day": 0})  # summed like the timings
    malformed: list[dict[str, Any]] = []

    def one(conv: Conversation) -> tuple[dict[str, list[Any]], dict[str, float], list[dict[str, Any]]]:
        part: dict[str, list[Any]] = {name: [] for name in ranked}
        spent = dict.fromkeys(timings, 0.0)
        odd: list[dict[str, Any]] = []
        # A moto server per conversation: moto deep-copies a table on every TransactWriteItems (each
        # fact add), so time and memory grow with everything a long-lived server has seen.
        with MotoProcess() as moto:
            _conversation(moto.endpoint, conv, embedder, ablations, part, spent, odd)
        return part, spent, odd

    # Two conversations at a time: each waits mostly on its own moto server.
    with ThreadPoolExecutor(max_workers=parallel) as pool:
        for part, spent, odd in pool.map(one, convs):
            for name, rows in part.items():
                ranked[name].extend(rows)
            for key, value in spent.items():
                timings[key] += value
            malformed.extend(odd)
    unanswerable = sum(1 for conv in convs for q in conv.questions if not q.evidence)
    found, dated = int(timings.pop("evidence_in_top10")), int(timings.pop("evidence_dated_that_day"))
    return {
        "method": {
            "memory_text": "Speaker: turn text [shares a photo: caption] (no date: the message's created_at)",
            "created_at": "the session's date and time (UTC) + 1 s per turn before it in the session",
            "metadata": ["session", "session_date", "dia_id"],
            "ingest": "MemoryService.submit + ExtractionWorker.process_many (batches of 10), infer=false",
            "search": "MemoryService.search(top_k=20)",
            "variants": variants,
        },
        "conversations": len(convs),
        "questions_scored": len(ranked["engram"]),
        "questions_without_evidence": unanswerable,
        "malformed_evidence": malformed,
        "results": {name: _scores(rows) for name, rows in ranked.items()},
        # Of the evidence turns MemoryService.search put in a question's top 10 (counted per question),
        # the share whose memory's valid_from falls on the day the turn was said (goal 1.0).
        "evidence_valid_from": {
            "in_top10": found,
            "on_the_day_said": dated,
            "share": round(dated / found, 4) if found else None,
        },
        "timings": {k: round(v, 2) if k.endswith("_s") else int(v) for k, v in timings.items()},  # summed
        "conversations_in_parallel": parallel,
    }


def _ablate(
    env: EngramEnv,
    conv: Conversation,
    question: str,
    category: int,
    evidence: Sequence[str],
    by_memory: dict[str, str],
    ranked: dict[str, list[tuple[int, list[str], Sequence[str]]]],
) -> None:
    """The same question through the index alone and the searcher without context, for comparison."""
    index, embedder = env.container.index, env.container.embedder
    k = max(KS)
    vector = embedder.embed([question])[0]
    rows = {
        "cosine only": index.knn(env.tenant_id, conv.user_id, vector, k),
        "bm25 only": index.text_search(env.tenant_id, conv.user_id, question, k),
        "fusion, no context": HybridSearcher(index, embedder, context_weight=0.0).search(
            env.tenant_id, conv.user_id, question, k
        ),
    }
    for name, hits in rows.items():
        ranked[name].append((category, [by_memory.get(h.id, "?") for h in hits], evidence))
    first = env.container.search_pipeline
    wider_pipeline = replace(first, searcher=replace(first.searcher, min_candidates=100))
    wider = replace(env.container.memories, search_pipeline=wider_pipeline)
    found = wider.search(env.tenant_id, SearchQuery(user_id=conv.user_id, query=question, top_k=k))
    ranked["100 candidates"].append((category, [by_memory.get(f.id, "?") for f, _ in found], evidence))


def _conversation(
    moto_endpoint: str,
    conv: Conversation,
    embedder: VectorCache,
    ablations: bool,
    ranked: dict[str, list[tuple[int, list[str], Sequence[str]]]],
    timings: dict[str, float],
    malformed: list[dict[str, Any]],
) -> None:
    env = engram_env(moto_endpoint, embedder=embedder)
    began = time.perf_counter()
    by_memory = ingest(env, conv)
    turns = {turn.dia_id: turn for turn in conv.turns}
    timings["ingest_s"] += time.perf_counter() - began
    timings["turns"] += len(conv.turns)
    began = time.perf_counter()
    for q in conv.questions:
        if q.dropped:
            malformed.append({"conversation": conv.sample_id, "question": q.question, "raw": list(q.raw_evidence)})
        if not q.evidence:
            continue
        hits = env.container.memories.search(
            env.tenant_id, SearchQuery(user_id=conv.user_id, query=q.question, top_k=max(KS))
        )
        ranked["engram"].append((q.category, [by_memory.get(f.id, "?") for f, _ in hits], q.evidence))
        timings["questions"] += 1
        for fact, _ in hits[:10]:
            turn = turns.get(by_memory.get(fact.id, "?"))
            if turn is not None and turn.dia_id in q.evidence:
                timings["evidence_in_top10"] += 1
                timings["evidence_dated_that_day"] += fact.valid_from.date() == turn.session_date
        if ablations:
            _ablate(env, conv, q.question, q.category, q.evidence, by_memory, ranked)
    timings["search_s"] += time.perf_counter() - began
