"""Large memory collections for the speed parts, made from LoCoMo turns and their real MiniLM vectors.

Embedding 100,000 texts would take a quarter of an hour here, so collection i holds LoCoMo turn
i mod 5,882 with a copy number appended (a unique BM25 term, as real memories have) and the turn's
vector plus a little noise (so copies are not exact ties). Text lengths, vocabulary and vector
geometry stay those of real conversation memories; queries are LoCoMo questions.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from bench.data.locomo_data import Conversation, load
from bench.rig.engram_env import VectorCache
from engram.search.hybrid import named_candidates, without_names

NOISE = 0.02


@dataclass(frozen=True)
class Memory:
    user_id: str
    text: str
    vector: list[float]
    metadata: dict[str, object]


class Corpus:
    def __init__(self, cache: VectorCache, conversations: list[Conversation] | None = None) -> None:
        convs = conversations if conversations is not None else load()
        self.turns = [t for c in convs for t in c.turns]
        self.questions = [q.question for c in convs for q in c.questions]
        texts = [t.memory_text() for t in self.turns]
        self.cache = cache
        vectors = cache.embed(texts)
        self.base = np.asarray(vectors, dtype=np.float32)
        self.texts = texts
        # Query vectors for the runs "without the query embedding": each question as asked and as the
        # searcher embeds it when it names a speaker (the name left out, search/hybrid.py).
        speakers = {t.speaker for t in self.turns}
        cache.embed(self.questions + [without_names(q, named_candidates(q) & speakers) for q in self.questions])

    def memories(self, total: int, users: int = 1, seed: int = 7) -> Iterator[Memory]:
        """`total` memories spread round-robin over `users` users ("bench-user-<n>")."""
        rng = np.random.default_rng(seed)
        n = len(self.texts)
        for i in range(total):
            base = i % n
            copy = i // n
            if copy:
                noisy = self.base[base] + rng.standard_normal(self.base.shape[1]).astype(np.float32) * NOISE
                vector = (noisy / np.linalg.norm(noisy)).tolist()
                text = f"{self.texts[base]} #{copy}"
            else:
                vector, text = self.base[base].tolist(), self.texts[base]
            turn = self.turns[base]
            yield Memory(f"bench-user-{i % users}", text, vector, {"speaker": turn.speaker, "session": turn.session})

    def queries(self, count: int, seed: int = 11) -> list[str]:
        rng = random.Random(seed)
        return [rng.choice(self.questions) for _ in range(count)]
