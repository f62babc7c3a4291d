"""A fast loop for ranking experiments on LongMemEval_S raw turns (a minute instead of the part's 20).

    .venv/bin/python -m bench.labs.lme_lab [--quick | --all] [--cached] [--per-question] [key=value ...]

key=value: HybridSearcher fields (bench/labs/lab_service.py).

The same fixed stratified subset as bench/parts/longmemeval.py (48 questions; --quick 12, --all 184).
Every turn is stored as the raw-turns mode stores it (one memory per message, or parts of a message
over 2,000 characters cut by the product's splitter, pipeline/episodes.as_given; role and message
index in `source`, metadata {session_id, session}, valid_from = created_at = the session's date + 1 s
per turn). The texts are embedded once with the product's embedder and cached in bench/.cache/
(a file per model; the first build of the 48 questions is ~15 minutes of CPU). Each question then gets
a fresh MemoryService (bench/labs/lab_service.py) and is searched with now = the question's date, top_k 20,
and scored by bench/parts/longmemeval_score.py. Search settings come from the environment
(ENGRAM_SEARCH_DIVERSITY=0.1 ...).

Differences from the real part: memories are not written through DynamoDB and the worker (the
ranking reads the same fields), and `created_at` is when the turn was said, where the real part stores
a memory's `created_at` as the time it was stored (recording order is the same: sessions in the order
said, turns in order; only the 30-minute context window then links turns of different sessions).
"""

from __future__ import annotations

import hashlib
import json
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench.data.longmemeval_data import TYPES, Question, load, stratified
from bench.parts.longmemeval_score import Hit, hit_of, score, summarise
from bench.rig.engram_env import MINILM_ID, VectorCache, shared_model_id
from engram.domain.models import Fact, MemorySource, Message, SearchQuery
from engram.pipeline.episodes import as_given
from engram.services.memory import MemoryService

CACHE_DIR = Path(__file__).resolve().parents[1] / ".cache"
TENANT = "lab"
TOP_K = 20
FULL, QUICK = 48, 12


def cache_file(model_id: str) -> Path:
    name = "lme_vectors" if model_id == MINILM_ID else f"lme_vectors-{model_id}"
    return CACHE_DIR / f"{name}.npz"


def _key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


class CachedVectors(VectorCache):
    """VectorCache keyed by a hash of the text, saved as one float32 array (the 48 questions hold ~30k
    texts: too many for a JSON file of floats)."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path
        self.keyed: dict[str, list[float]] = {}
        if path.is_file():
            data = np.load(path)
            self.keyed = dict(zip(data["keys"].tolist(), data["vectors"].tolist(), strict=True))

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        missing = [t for t in dict.fromkeys(texts) if _key(t) not in self.keyed]
        if missing:
            self.keyed.update(zip(map(_key, missing), VectorCache().embed(missing), strict=True))
        return [self.keyed[_key(t)] for t in texts]

    def save(self) -> None:
        self.path.parent.mkdir(exist_ok=True)
        keys = list(self.keyed)
        vectors = np.asarray([self.keyed[k] for k in keys], dtype=np.float32)
        tmp = self.path.with_suffix(".tmp.npz")
        np.savez(tmp, keys=np.asarray(keys), vectors=vectors)
        tmp.replace(self.path)


def memories(q: Question) -> list[Fact]:
    """The question's haystack as the raw-turns mode stores it."""
    user_id = f"lme-{q.question_id}"
    out: list[Fact] = []
    for position, session in enumerate(q.sessions):
        for i, turn in enumerate(session.turns):
            if not turn.content.strip() or turn.role == "system":
                continue
            said = session.turn_said_at(i)
            message = Message(role=turn.role, content=turn.content, created_at=said)
            for part in as_given(message, i):
                source = MemorySource(task_id=f"t{position}", message_index=i, role=turn.role, span=part.span)
                out.append(
                    Fact(
                        tenant_id=TENANT,
                        user_id=user_id,
                        text=part.text,
                        metadata={"session_id": session.session_id, "session": position},
                        valid_from=said,
                        created_at=said,
                        updated_at=said,
                        source=source,
                    )
                )
    return out


def questions(argv: Sequence[str], cache: CachedVectors | None = None) -> list[Question]:
    """The subset asked for; with --cached (and a cache), only its questions whose turns are all
    cached (a question itself is embedded when missing). The first build embeds question by question
    in file order, so this is a fixed subset, not chosen by results, to measure on while it goes on."""
    every = load()
    chosen = every if "--all" in argv else stratified(every, QUICK if "--quick" in argv else FULL)
    if "--cached" in argv and cache is not None:
        chosen = [q for q in chosen if all(_key(f.text) in cache.keyed for f in memories(q))]
    return chosen


def build_cache(chosen: Sequence[Question], cache: CachedVectors, batch: int = 2000) -> None:
    """Embed every text not cached yet, saving every `batch` texts (a long first build can be resumed)."""
    texts = list(dict.fromkeys([f.text for q in chosen for f in memories(q)] + [q.question for q in chosen]))
    missing = [t for t in texts if _key(t) not in cache.keyed]
    for start in range(0, len(missing), batch):
        cache.embed(missing[start : start + batch])
        cache.save()
        print(f"  embedded {min(start + batch, len(missing))} of {len(missing)}", flush=True)


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
    from bench.labs.lab_service import lab_service

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
