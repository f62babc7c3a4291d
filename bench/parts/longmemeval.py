"""LongMemEval_S retrieval through Engram's real ingestion and search (`--parts longmemeval`).

Per question, a fresh user and fresh tables: every haystack session, in the order said, is one add
of its turns (user and assistant, their roles kept) with `created_at` the session's date and time
plus a second per turn, and metadata {"session_id", "session"}. Adds go through MemoryService.submit
and ExtractionWorker.process_many in batches of ten, as the extraction function receives them. Two
modes: raw turns (infer=false, deduplicate=false, as the LoCoMo recall part) and the default
pipeline (infer=true with the offline extractor, deduplication on, episodes and graph on: what
`make run` does). Then the question goes through MemoryService.search(top_k=20) and the hits are
mapped back to turns (bench/parts/longmemeval_score.py). Abstention questions (`_abs`) have no evidence to
find: they are counted, not scored. Embeddings are shared across questions and modes
(VectorCache): a turn said in two haystacks, or stored raw and kept as an episode, is embedded once.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any

from bench.data.longmemeval_data import TYPES, Question, Session, load, stratified
from bench.parts.longmemeval_score import hit_of, score, summarise
from bench.rig.engram_env import EngramEnv, VectorCache, engram_env
from bench.rig.procs import ROOT, MotoProcess, git_commit
from bench.rig.stats import percentile
from engram.domain.models import AddRequest, Message, SearchQuery

MODES = {
    "raw turns": {"infer": False, "deduplicate": False},
    "pipeline": {"infer": True, "deduplicate": True},
}
WORKER_BATCH = 10  # the extraction function's SQS batch size (template.yaml)
TOP_K = 20
QUICK = 12  # two questions of each type
# The full part: a fixed stratified subset (by a hash of question_id, bench/data/longmemeval_data.py).
# All 184 questions are ~91k turns per mode at ~30 ms of CPU per raw turn (22 ms of it MiniLM on
# turns up to 256 tokens): over an hour on 2 cores. 24 questions took 501 s at load 3-6.
FULL = 48
PER_MOTO = 8  # questions per moto server (moto's memory grows with everything it has seen)


def _add(session: Session, position: int, user_id: str, mode: dict[str, bool]) -> AddRequest:
    messages = [
        Message(role=t.role, content=t.content, created_at=session.turn_said_at(i))  # type: ignore[arg-type]
        for i, t in enumerate(session.turns)
        if t.content.strip()
    ]
    metadata = {"session_id": session.session_id, "session": position}
    return AddRequest(user_id=user_id, messages=messages, metadata=metadata, **mode)


def ingest(env: EngramEnv, q: Question, mode: dict[str, bool]) -> tuple[int, dict[str, str]]:
    """Every session of the haystack through submit and the worker; returns the memories stored and the
    session of each add's task (a memory's `source.task_id` names its add even where an update kept an
    older memory's metadata)."""
    user_id = f"lme-{q.question_id}"
    memories = env.container.memories
    sessions = {
        memories.submit(env.tenant_id, _add(s, i, user_id, mode)).task_id: s.session_id
        for i, s in enumerate(q.sessions)
        if s.turns
    }
    task_ids = list(sessions)
    stored = 0
    for start in range(0, len(task_ids), WORKER_BATCH):
        for task in env.container.worker.process_many(env.tenant_id, task_ids[start : start + WORKER_BATCH]):
            if task.status.value != "completed":
                raise RuntimeError(f"{q.question_id}: a session was not stored: {task.status} {task.error}")
            stored += sum(r.event.value == "ADD" for r in task.results)
    return stored, sessions


def search(env: EngramEnv, q: Question, sessions: dict[str, str]) -> tuple[list[Any], float]:
    # NOW: when SearchQuery gains a `now` field (time-aware search), it is the question's date; the
    # results record whether it was passed ("search_now").
    extra: dict[str, Any] = {"now": q.question_date} if "now" in SearchQuery.model_fields else {}
    query = SearchQuery(user_id=f"lme-{q.question_id}", query=q.question, top_k=TOP_K, **extra)
    began = time.perf_counter()
    hits = env.container.memories.search(env.tenant_id, query)
    return [hit_of(fact, sessions) for fact, _ in hits], (time.perf_counter() - began) * 1000


def _group(questions: Sequence[Question], cache: VectorCache) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    with MotoProcess() as moto:
        for q in questions:
            for name, mode in MODES.items():
                env = engram_env(moto.endpoint, embedder=cache)
                # This thread's CPU (the process's would count the other group's too): boto3, the
                # worker and MiniLM (one intra-op thread) all run in it.
                began, cpu = time.perf_counter(), time.thread_time()
                stored, sessions = ingest(env, q, mode)
                ingest_s, ingest_cpu = time.perf_counter() - began, time.thread_time() - cpu
                hits, ms = search(env, q, sessions)
                row: dict[str, Any] = {
                    "question_id": q.question_id,
                    "type": q.question_type,
                    "mode": name,
                    "abstention": q.abstention,
                    "turns": sum(len(s.turns) for s in q.sessions),
                    "memories": stored,
                    "ingest_s": ingest_s,
                    "ingest_cpu_s": ingest_cpu,
                    "search_ms": ms,
                }
                evidence = q.evidence()
                if not q.abstention and evidence:
                    row.update(score(evidence, hits))
                rows.append(row)
            print(f"  {q.question_id} {q.question_type}: {[r.get('turn_recall@10') for r in rows[-2:]]}", flush=True)
    return rows


def _summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    scored = [r for r in rows if "turn_recall@10" in r]
    out: dict[str, Any] = {"overall": summarise(scored)}
    for kind in TYPES:
        out[kind] = summarise(r for r in scored if r["type"] == kind)
    ms = [r["search_ms"] for r in rows]
    out["search_p50_ms"] = round(percentile(ms, 50), 2)
    turns = sum(r["turns"] for r in rows)
    out["ingest"] = {
        "turns": turns,
        "memories": sum(r["memories"] for r in rows),
        "wall_s": round(sum(r["ingest_s"] for r in rows), 1),
        "cpu_ms_per_turn": round(1000 * sum(r["ingest_cpu_s"] for r in rows) / turns, 2),
    }
    return out


def run(quick: bool = False, questions: Sequence[Question] | None = None, parallel: int = 2) -> dict[str, Any]:
    every = list(questions) if questions is not None else load()
    chosen = stratified(every, QUICK if quick else FULL)
    cache = VectorCache()
    groups = [chosen[i : i + PER_MOTO] for i in range(0, len(chosen), PER_MOTO)]
    began, started = time.perf_counter(), datetime.now(UTC).isoformat(timespec="seconds")
    load_at_start = round(os.getloadavg()[0], 1)
    rows: list[dict[str, Any]] = []
    # Two groups at a time: each waits on its own moto server part of the time.
    with ThreadPoolExecutor(max_workers=parallel) as pool:
        for part in pool.map(lambda g: _group(g, cache), groups):
            rows.extend(part)
    abstention = [q for q in chosen if q.abstention]
    return {
        "started": started,
        "commit": git_commit(ROOT),
        "load_at_start": load_at_start,
        "method": {
            "data": "LongMemEval_S, 184-question dev third (../shared/bench/longmemeval_s_dev.json.gz)",
            "subset": f"{len(chosen)} of {len(every)} questions, stratified by type, by a hash of question_id",
            "add": "one add per session, turns as messages (roles kept), created_at = session date + 1 s per turn",
            "modes": MODES,
            "search": f"MemoryService.search(top_k={TOP_K}), the question alone",
            "search_now": "now" in SearchQuery.model_fields,
            "mapping": "the session of source.task_id's add (else metadata.session_id) + source.message_index -> turn",
        },
        "questions": len(chosen),
        "by_type": {kind: sum(q.question_type == kind for q in chosen) for kind in TYPES},
        "abstention_not_scored": len(abstention),
        "no_evidence_not_scored": sum(1 for q in chosen if not q.abstention and not q.evidence()),
        "results": {name: _summary([r for r in rows if r["mode"] == name]) for name in MODES},
        "wall_s": round(time.perf_counter() - began, 1),
        "embedded_texts": len(cache.vectors),
        "per_question": rows,
    }


if __name__ == "__main__":
    import json
    import sys

    print(json.dumps({k: v for k, v in run(quick="--quick" in sys.argv).items() if k != "per_question"}, indent=2))
