"""Which memory banks and free topics a clause is about, by meaning: the local embedder against each
topic's description (pipeline/topic_descriptions.py for the seven banks; a free topic is its own
description, with the examples the tenant's config gives).

A clause's score for a topic is its best cosine to the topic's statements. A bank is decided relative
to the other banks (a clause is about the bank it is nearest to, or within a margin of it), above a
floor under which a clause is about nothing in particular; a free topic, which may lie inside any bank,
on its own score. The constants were chosen by bench/policy_screen.py on two thirds of a
labelled set of chat clauses (bench/data/policy_clauses.json) for the all-MiniLM-L6-v2 embedder, and are
reported with the held-aside third in docs/policy.md. Exclusion and inclusion read the same scores
differently: a close call excludes (a clause near an excluded bank goes, even when another bank is a
little nearer) and does not include (a clause is kept by `include` only when the bank is clearly its
nearest), so privacy errs toward not storing.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from engram.domain.models import MemoryBank
from engram.domain.ports import Embedder
from engram.pipeline.topic_descriptions import BANK_DESCRIPTIONS


@dataclass(frozen=True)
class Thresholds:
    floor: float  # a bank's score below this: the clause is not about it, whatever the other banks score
    margin: float  # excluded when the bank scores within this of the clause's nearest bank
    sure: float  # a bank scoring this high is excluded whatever else the clause touches
    topic_floor: float  # a free topic's score from which a clause is about it
    include_margin: float = 0.0  # included only when the bank is nearer than any other by this


# Chosen by bench/policy_screen.py (two thirds of the labelled set, MiniLM int8): see docs/policy.md.
THRESHOLDS = Thresholds(floor=0.20, margin=0.06, sure=0.45, topic_floor=0.40)

# The model the constants were chosen for; another embedder's scores are on another scale.
TUNED_FOR = "all-MiniLM-L6-v2"


@dataclass(frozen=True)
class Scores:
    """One clause's score per bank and per free topic asked about."""

    banks: Mapping[MemoryBank, float]
    topics: Mapping[str, float]

    @property
    def nearest(self) -> float:
        return max(self.banks.values(), default=0.0)

    def excluded_by(self, bank: MemoryBank, t: Thresholds = THRESHOLDS) -> bool:
        score = self.banks[bank]
        return score >= t.sure or (score >= t.floor and score >= self.nearest - t.margin)

    def included_by(self, bank: MemoryBank, t: Thresholds = THRESHOLDS) -> bool:
        score = self.banks[bank]
        others = max((s for b, s in self.banks.items() if b is not bank), default=0.0)
        return score >= t.floor and score > others + t.include_margin

    def about_topic(self, topic: str, t: Thresholds = THRESHOLDS) -> bool:
        return self.topics.get(topic.lower(), 0.0) >= t.topic_floor


Matrix = npt.NDArray[np.float32]


class TopicMeaning:
    """Scores clauses against the banks' descriptions and free topics, with one embedder.

    The descriptions are embedded once per instance (on first use), a free topic once per phrasing;
    clauses go to the embedder in one call per screen (the pipeline's cached embedder answers a clause
    it has embedded for storage without running the model again)."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self._banks: dict[MemoryBank, Matrix] | None = None
        self._topics: dict[tuple[str, ...], Matrix] = {}
        self._lock = threading.Lock()

    def _bank_vectors(self) -> dict[MemoryBank, Matrix]:
        if self._banks is None:
            banks = {bank: _matrix(self.embedder.embed(list(lines))) for bank, lines in BANK_DESCRIPTIONS.items()}
            with self._lock:
                self._banks = banks
        return self._banks

    def _topic_vectors(self, topic: str, examples: Sequence[str]) -> Matrix:
        key = (topic.lower(), *examples)
        with self._lock:
            found = self._topics.get(key)
        if found is None:
            found = _matrix(self.embedder.embed([topic, f"talking about {topic}", *examples]))
            with self._lock:
                if len(self._topics) > 1_000:  # tenants' topics change rarely; never grow without bound
                    self._topics.clear()
                self._topics[key] = found
        return found

    def score(
        self, clauses: Sequence[str], topics: Mapping[str, Sequence[str]] | None = None
    ) -> list[Scores]:
        """Each clause's scores; `topics`: the free topics asked about, each with its examples."""
        if not clauses:
            return []
        banks = self._bank_vectors()
        wanted = {t.lower(): self._topic_vectors(t, examples) for t, examples in (topics or {}).items()}
        vectors = _matrix(self.embedder.embed(list(clauses)))
        bank_best = {bank: (vectors @ protos.T).max(axis=1) for bank, protos in banks.items()}
        topic_best = {topic: (vectors @ protos.T).max(axis=1) for topic, protos in wanted.items()}
        return [
            Scores(
                {bank: float(best[row]) for bank, best in bank_best.items()},
                {topic: float(best[row]) for topic, best in topic_best.items()},
            )
            for row in range(len(clauses))
        ]


def _matrix(vectors: Sequence[Sequence[float]]) -> Matrix:
    return np.asarray(vectors, dtype=np.float32)
