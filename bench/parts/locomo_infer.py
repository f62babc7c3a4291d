"""Part `infer`: LoCoMo evidence recall through the default path, an add with infer=true.

Each turn is one add of one user message (the turn's text, photo caption and session date, with the
speaker as the message's name) and the turn's metadata, deduplicated as a client's adds are. Whatever
the pipeline keeps (facts, episodes) carries that metadata, so a question's evidence is found when a
memory of an evidence turn is among the first k results. Modes:
- offline: no LLM configured (what `make run` runs): rule-based extractor, key reconciler, episodes;
- offline, no episodes: the same with ENGRAM_KEEP_EPISODES off (the facts alone);
- stub LLM: the LLM path against bench/doubles/stub_llm.py (one fact per declarative sentence), episodes on.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from bench.data.locomo_data import Conversation, Turn, load
from bench.parts.locomo_recall import KS, WORKER_BATCH, _scores
from bench.rig.engram_env import EngramEnv, VectorCache, engram_env
from bench.rig.procs import ModelServer, MotoProcess
from engram.domain.models import AddRequest, Message, SearchQuery

MODES = ("offline", "offline, no episodes", "stub LLM")


def message_text(turn: Turn) -> str:
    photo = f" [shares a photo: {turn.caption}]" if turn.caption else ""
    when = f" ({turn.session_date.day} {turn.session_date:%B %Y})" if turn.session_date else ""
    return f"{turn.text}{photo}{when}"


def ingest(env: EngramEnv, conv: Conversation) -> dict[str, int]:
    """Adds every turn with infer=true; returns counts of what was kept."""
    memories = env.container.memories
    task_ids = [
        memories.submit(
            env.tenant_id,
            AddRequest(
                user_id=conv.user_id,
                messages=[Message(role="user", content=message_text(turn), name=turn.speaker)],
                metadata=turn.metadata(),
            ),
        ).task_id
        for turn in conv.turns
    ]
    for start in range(0, len(task_ids), WORKER_BATCH):
        for task in env.container.worker.process_many(env.tenant_id, task_ids[start : start + WORKER_BATCH]):
            if task.status.value != "completed":
                raise RuntimeError(f"task {task.task_id} did not complete: {task.status} {task.error}")
    kept = {"fact": 0, "episode": 0, "instruction": 0}  # every kind a memory may be (domain.models.MemoryKind)
    cursor: str | None = None
    while True:
        page = env.container.facts.list_current(env.tenant_id, conv.user_id, 200, cursor)
        for fact in page.items:
            kept[fact.kind] += 1
        if not (cursor := page.next_cursor):
            return kept


def _conversation(
    endpoint: str, llm_url: str | None, episodes: bool, conv: Conversation, cache: VectorCache
) -> tuple[list[tuple[int, list[str], Sequence[str]]], dict[str, Any]]:
    env = engram_env(endpoint, llm_base_url=llm_url, embedder=cache)
    env.container.pipeline.keep_episodes = episodes
    began = time.perf_counter()
    kept = ingest(env, conv)
    ingest_s = time.perf_counter() - began
    rows: list[tuple[int, list[str], Sequence[str]]] = []
    for q in conv.questions:
        if not q.evidence:
            continue
        hits = env.container.memories.search(
            env.tenant_id, SearchQuery(user_id=conv.user_id, query=q.question, top_k=max(KS))
        )
        rows.append((q.category, [str(f.metadata.get("dia_id", "?")) for f, _ in hits], q.evidence))
    info = {"conversation": conv.sample_id, "turns": len(conv.turns), **kept, "ingest_s": round(ingest_s, 1)}
    return rows, info


def run(
    conversations: Sequence[Conversation] | None = None, cache: VectorCache | None = None, parallel: int = 2
) -> dict[str, Any]:
    convs = list(conversations) if conversations is not None else load()
    vectors = cache or VectorCache()
    out: dict[str, Any] = {
        "method": {
            "message": "turn text [shares a photo: caption] (D Month YYYY), role user, name = speaker",
            "metadata": ["session", "session_date", "dia_id"],
            "ingest": "MemoryService.submit + ExtractionWorker.process_many (batches of 10), infer=true",
            "search": "MemoryService.search(top_k=20); a hit counts for its memory's dia_id",
        },
        "conversations": len(convs),
        "results": {},
        "kept": {},
    }
    with ModelServer() as llm:
        for mode in MODES:
            llm_url = llm.base_url if mode == "stub LLM" else None
            episodes = mode != "offline, no episodes"

            def one(conv: Conversation, url: str | None = llm_url, keep: bool = episodes) -> Any:
                with MotoProcess() as moto:
                    return _conversation(moto.endpoint, url, keep, conv, vectors)

            rows: list[tuple[int, list[str], Sequence[str]]] = []
            infos: list[dict[str, Any]] = []
            with ThreadPoolExecutor(max_workers=parallel) as pool:
                for part, info in pool.map(one, convs):
                    rows += part
                    infos.append(info)
            out["results"][mode] = _scores(rows)
            out["kept"][mode] = infos
            print(f"  {mode}: recall@10 {out['results'][mode]['overall']['recall@10']} kept {infos}", flush=True)
    return out
