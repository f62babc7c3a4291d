"""LongMemEval_S raw turns as memories (as the raw-turns mode stores them), and their vectors cached in
bench/.cache/ (a file per model): what the LongMemEval lab (bench/labs/lme_lab.py) and the session and
answer parts (bench/parts/session_recall.py, bench/parts/qa.py) search."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from bench.data.longmemeval_data import Question, load, stratified
from bench.rig.engram_env import MINILM_ID, VectorCache
from engram.domain.models import Fact, MemorySource, Message
from engram.pipeline.episodes import as_given

CACHE_DIR = Path(__file__).resolve().parents[1] / ".cache"
TENANT = "lab"
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
