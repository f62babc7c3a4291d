"""Which memory banks and free topics a clause is about, by meaning: the local embedder against each
topic's description (pipeline/topic_descriptions.py for the seven banks; a free topic is its own
description, with the examples the tenant's config gives and, for a topic tenants often name, the example
statements of pipeline/topic_catalogue.json).

A clause's score for a topic is its best cosine to the topic's statements. A bank is decided relative
to the other banks (a clause is about the bank it is nearest to, or within the bank's margin of it),
above the bank's floor under which a clause is about nothing in particular, or outright from a score
sure to be about it; a free topic, which may lie inside any bank, on its own score. Each bank has its
own constants: the banks are not equally distinct (health talk is far from the rest; interests, events
and personal details run into each other), and one setting for all would make every bank pay for the
vaguest. They were chosen by bench/parts/policy_leaks.py on two thirds of a labelled set of chat clauses
(bench/data/policy_clauses.json) for the all-MiniLM-L6-v2 embedder, and are reported with the
held-aside third in docs/policy.md. Exclusion and inclusion read the same scores
differently: a close call excludes (a clause near an excluded bank goes, even when another bank is a
little nearer) and does not include (a clause is kept by `include` only when the bank is clearly its
nearest), so privacy errs toward not storing.
"""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources

import numpy as np
import numpy.typing as npt

from engram.domain.models import MemoryBank
from engram.domain.ports import Embedder
from engram.pipeline.topic_descriptions import BANK_DESCRIPTIONS


@dataclass(frozen=True)
class BankRule:
    """When a clause is about one bank."""

    floor: float  # the bank's score below this: not about it, whatever the other banks score
    margin: float  # excluded when the bank scores within this of the clause's nearest bank
    sure: float  # scoring this high: excluded whatever else the clause touches


@dataclass(frozen=True)
class Thresholds:
    banks: Mapping[MemoryBank, BankRule]
    topic_floor: float  # a free topic's score from which a clause is about it
    # A topic's catalogue statements (topic_catalogue.json) are broad: a clause is about the topic by them
    # only when they score within this of the clause's nearest bank, as a bank is decided relative to the
    # others (so "I work as a nurse" is not about religion because "I'm an atheist" is a statement about one).
    catalogue_margin: float = 0.05
    vague: float = 0.30  # a clause whose nearest bank scores below this says nothing on its own


# Chosen by bench/parts/policy_leaks.py on two thirds of the labelled set (MiniLM int8), scored piece by piece
# as the screen cuts clauses, each bank for no leak, then fewest false exclusions, then the widest margin,
# widened by the slack cross-validation inside those two thirds picks: docs/policy.md gives the rates.
THRESHOLDS = Thresholds(
    banks={
        MemoryBank.PERSONAL: BankRule(floor=0.28, margin=0.04, sure=0.45),
        MemoryBank.WORK: BankRule(floor=0.28, margin=0.14, sure=0.4),
        MemoryBank.RELATIONSHIPS: BankRule(floor=0.24, margin=0.11, sure=0.4),
        MemoryBank.HEALTH: BankRule(floor=0.28, margin=0.03, sure=0.45),
        MemoryBank.INTERESTS: BankRule(floor=0.28, margin=0.2, sure=0.4),
        MemoryBank.EVENTS: BankRule(floor=0.28, margin=0.18, sure=0.5),
        MemoryBank.GENERAL: BankRule(floor=0.28, margin=0.11, sure=0.4),
    },
    topic_floor=0.3,
    vague=0.4,
)

# The model the constants were chosen for; another embedder's scores are on another scale.
TUNED_FOR = "all-MiniLM-L6-v2"


@dataclass(frozen=True)
class Scores:
    """One clause's score per bank and per free topic asked about."""

    banks: Mapping[MemoryBank, float]
    topics: Mapping[str, float]  # by the topic's name and the tenant's examples
    thresholds: Thresholds = THRESHOLDS  # what the decisions below use unless given others
    catalogue: Mapping[str, float] = field(default_factory=dict)  # by the topic's catalogue statements

    @property
    def nearest(self) -> float:
        return max(self.banks.values(), default=0.0)

    @property
    def vague(self) -> bool:
        """About no bank in particular ("saw them twice", "the winter started tbh")."""
        return self.nearest < self.thresholds.vague

    def excluded_by(self, bank: MemoryBank, t: Thresholds | None = None) -> bool:
        score, rule = self.banks[bank], (t or self.thresholds).banks[bank]
        return score >= rule.sure or (score >= rule.floor and score >= self.nearest - rule.margin)

    def included_by(self, bank: MemoryBank, t: Thresholds | None = None) -> bool:
        """Kept by `include` only when the bank is the clause's nearest (a close call is not kept)."""
        score = self.banks[bank]
        others = max((s for b, s in self.banks.items() if b is not bank), default=0.0)
        return score >= (t or self.thresholds).banks[bank].floor and score > others

    def about_topic(self, topic: str, t: Thresholds | None = None) -> bool:
        t = t or self.thresholds
        if self.topics.get(topic.lower(), 0.0) >= t.topic_floor:
            return True
        broad = self.catalogue.get(topic.lower(), 0.0)
        return broad >= t.topic_floor and broad >= self.nearest - t.catalogue_margin


Matrix = npt.NDArray[np.float32]


class TopicMeaning:
    """Scores clauses against the banks' descriptions and free topics, with one embedder.

    The descriptions are embedded once per instance (on first use), a free topic once per phrasing;
    clauses go to the embedder in one call per screen (the pipeline's cached embedder answers a clause
    it has embedded for storage without running the model again)."""

    def __init__(self, embedder: Embedder, thresholds: Thresholds = THRESHOLDS) -> None:
        self.embedder = embedder
        self.thresholds = thresholds
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

    def score(self, clauses: Sequence[str], topics: Mapping[str, Sequence[str]] | None = None) -> list[Scores]:
        """Each clause's scores; `topics`: the free topics asked about, each with its examples."""
        if not clauses:
            return []
        banks = self._bank_vectors()
        wanted = {t.lower(): self._topic_vectors(t, examples) for t, examples in (topics or {}).items()}
        broad = {t.lower(): self._topic_vectors(t, found) for t in topics or {} if (found := catalogue_examples(t))}
        vectors = _matrix(self.embedder.embed(list(clauses)))
        bank_best = {bank: (vectors @ protos.T).max(axis=1) for bank, protos in banks.items()}
        topic_best = {topic: (vectors @ protos.T).max(axis=1) for topic, protos in wanted.items()}
        broad_best = {topic: (vectors @ protos.T).max(axis=1) for topic, protos in broad.items()}
        return [
            Scores(
                {bank: float(best[row]) for bank, best in bank_best.items()},
                {topic: float(best[row]) for topic, best in topic_best.items()},
                self.thresholds,
                {topic: float(best[row]) for topic, best in broad_best.items()},
            )
            for row in range(len(clauses))
        ]


@functools.cache
def _catalogue() -> dict[str, tuple[str, ...]]:
    """Each name and alias of topic_catalogue.json, folded, with its topic's example statements."""
    data = json.loads(resources.files("engram.pipeline").joinpath("topic_catalogue.json").read_text("utf-8"))
    out: dict[str, tuple[str, ...]] = {}
    for name, entry in data["topics"].items():
        for alias in (name, *entry["aliases"]):
            out[_fold(alias)] = tuple(entry["examples"])
    return out


def _fold(topic: str) -> str:
    return " ".join(topic.lower().split())


def catalogue_examples(topic: str) -> tuple[str, ...]:
    """A free topic's built-in statements: a tenant's "religion" is read as what people say of religion,
    not only as the word (none for a topic the catalogue does not know)."""
    folded = _fold(topic)
    return _catalogue().get(folded) or _catalogue().get(folded.removesuffix("s"), ())


def _matrix(vectors: Sequence[Sequence[float]]) -> Matrix:
    return np.asarray(vectors, dtype=np.float32)
