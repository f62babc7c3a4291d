"""Which memory banks and free topics a clause is about, by meaning: the local embedder against each
topic's description (pipeline/topic_descriptions.py for the seven banks; a free topic is its own
description, with the examples the tenant's config gives and, for a topic tenants often name, the example
statements of pipeline/topic_catalogue.json).

A clause's score for a topic is its best cosine to the topic's statements. A bank is decided on the
clause's reading of it (below), relative to the other banks (a clause is about the bank it reads nearest,
or within the bank's margin of it),
above the bank's floor under which a clause is about nothing in particular, or outright from a score
sure to be about it; a free topic, which may lie inside any bank, on its own contrast score (below). Each bank has its
own constants: the banks are not equally distinct (health talk is far from the rest; interests, events
and personal details run into each other), and one setting for all would make every bank pay for the
vaguest. They were chosen by bench/parts/policy_leaks.py on two thirds of a labelled set of chat clauses
(bench/data/policy_clauses.json) for the all-MiniLM-L6-v2 embedder, and are reported with the
held-aside third in docs/policy.md. Exclusion and inclusion read the same scores
differently: a close call excludes (a clause near an excluded bank goes, even when another bank is a
little nearer) and does not include (a clause is kept by `include` only when the bank is clearly its
nearest), so privacy errs toward not storing.

A free topic is read by contrast, not by the raw cosine: MiniLM places sentences of the same shape near
each other whatever they are about ("I went to a protest" is as near "we went to the zoo" as a protest
clause is), and a few short examples given by a tenant make that worse. A clause's score for a topic
statement is 2 cos(clause, statement) - r(clause) - r(statement), where r is the mean cosine of a
sentence to its CONTRAST_K nearest statements of the banks' descriptions, a background of ordinary chat
(cross-domain similarity local scaling, Conneau et al. 2018, "Word translation without parallel data"):
a statement or clause that is near everything counts for less.

A bank is read the same way, by the mean over the clause's BANK_K nearest statements of the bank of
cos(clause, statement) - (r(clause) + r(statement)) / 2 (half the contrast score: on a cosine's scale;
a bank statement's r leaves the statement itself out). The mean of a few rather than the best one: one
statement that happens to share a clause's shape ("I have a meeting on Tuesday" for any clause with a
day in it) decides less, and a clause near several of a bank's statements reads nearer than one near a
single one. Measured by bench/parts/policy_leaks.py on the tuning two thirds, by two-fold
cross-validation inside them, against the best raw cosine: fewer leaks and fewer false exclusions
(docs/policy.md). A catalogue topic is read the same way, by its statements, and compared with the banks'
readings, except the bank it lies in ("medication" in Health): that bank is not its rival, since a clause
reading nearest Health is, if anything, more likely about medication. The raw best cosines are kept beside
it (`banks`: what a free topic's catalogue and a vague clause are measured against, and what the policy test
route shows).
"""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from engram.domain.models import MemoryBank
from engram.domain.policy import topic_words
from engram.domain.ports import Embedder
from engram.pipeline.topic_descriptions import BANK_DESCRIPTIONS


@dataclass(frozen=True)
class BankRule:
    """When a clause is about one bank."""

    floor: float  # the bank's reading below this: not about it, whatever the other banks read
    margin: float  # excluded when the bank reads within this of the clause's nearest bank
    sure: float  # reading this high: excluded whatever else the clause touches


@dataclass(frozen=True)
class Thresholds:
    banks: Mapping[MemoryBank, BankRule]
    topic_floor: float  # a free topic's contrast score (its name and examples) from which a clause is about it
    # A topic's catalogue statements (topic_catalogue.json) are broad: a clause is about the topic by them
    # when their contrast score reaches catalogue_floor and the topic's reading by them (read as a bank is)
    # is within catalogue_margin of the clause's nearest bank's, as a bank is decided relative to the others
    # (so "I work as a nurse" is not about religion because "I don't believe in God" is a statement about one).
    catalogue_margin: float = 0.10
    vague: float = 0.30  # a clause whose nearest bank scores below this says nothing on its own
    catalogue_floor: float = 0.02


# Chosen by bench/parts/policy_leaks.py on two thirds of the labelled set (MiniLM int8), scored piece by piece
# as the screen cuts clauses, each bank and the topics for the fewest leaks weighed five times a false
# exclusion, then the widest margin and lowest floors, widened by the slack cross-validation inside those two
# thirds picks: docs/policy.md gives the rates. The topics' three were chosen again when a catalogue topic came
# to be read as a bank is (its reading against the banks', not its best cosine against the nearest bank's), on
# int8 arithmetic that is exact on every x86 CPU (adapters/onnx/embedder.py), widened by the banks' slack; the
# cross-validated slack is now a tie (0.0 and 0.01 within 5 of ~1,060 weighted errors), so the banks' stay.
THRESHOLDS = Thresholds(
    banks={
        MemoryBank.PERSONAL: BankRule(floor=-0.05, margin=0.06, sure=0.05),
        MemoryBank.WORK: BankRule(floor=-0.31, margin=0.03, sure=0.0),
        MemoryBank.RELATIONSHIPS: BankRule(floor=-0.07, margin=0.17, sure=-0.05),
        MemoryBank.HEALTH: BankRule(floor=-0.07, margin=0.14, sure=0.0),
        MemoryBank.INTERESTS: BankRule(floor=-0.07, margin=0.03, sure=0.05),
        MemoryBank.EVENTS: BankRule(floor=-0.09, margin=0.13, sure=-0.05),
        MemoryBank.GENERAL: BankRule(floor=-0.05, margin=0.09, sure=0.0),
    },
    topic_floor=0.07,
    vague=0.4,
    catalogue_margin=0.05,
    catalogue_floor=-0.01,
)
CONTRAST_K = 10  # background statements a sentence's usual nearness is the mean of
# A topic named with nothing else to read it by (no examples, not in the catalogue: "my career", what a person
# asks in chat not to be remembered) is read by the statements of the banks and the catalogue nearest its name
# as well, as a catalogue topic is by its statements: the NEAR_K nearest whose contrast score with the name
# (the module's docstring) reaches NEAR_FLOOR.
NEAR_K = 5
NEAR_FLOOR = 0.15
BANK_K = 3  # a bank's nearest statements a clause's reading of the bank is the mean of

# The model the constants were chosen for; another embedder's scores are on another scale.
TUNED_FOR = "all-MiniLM-L6-v2"


@dataclass(frozen=True)
class Scores:
    """One clause's score per bank and per free topic asked about."""

    banks: Mapping[MemoryBank, float]  # best cosine to the bank's statements
    topics: Mapping[str, float]  # by the topic's name and the tenant's examples: best cosine
    thresholds: Thresholds = THRESHOLDS  # what the decisions below use unless given others
    catalogue: Mapping[str, float] = field(default_factory=dict)  # by the topic's catalogue statements: cosine
    # the same, by contrast (the module's docstring): what a topic is decided by
    topic_contrast: Mapping[str, float] = field(default_factory=dict)
    catalogue_contrast: Mapping[str, float] = field(default_factory=dict)
    # each bank's reading (the module's docstring): what a bank is decided by (empty: the cosines)
    reading: Mapping[MemoryBank, float] = field(default_factory=dict)
    # each catalogue topic's reading, as a bank's, by its catalogue statements: what it is compared with the banks by
    catalogue_reading: Mapping[str, float] = field(default_factory=dict)
    # the bank each catalogue topic lies in (TopicMeaning._home): not a rival of the topic
    catalogue_home: Mapping[str, MemoryBank] = field(default_factory=dict)

    @property
    def nearest(self) -> float:
        return max(self.banks.values(), default=0.0)

    @property
    def vague(self) -> bool:
        """About no bank in particular ("saw them twice", "the winter started tbh")."""
        return self.nearest < self.thresholds.vague

    @property
    def read(self) -> Mapping[MemoryBank, float]:
        return self.reading or self.banks

    def margin(self, bank: MemoryBank) -> float:
        """The bank's reading minus the nearest bank's (0: the clause reads nearest to it)."""
        return self.read[bank] - max(self.read.values())

    def catalogue_margin(self, topic: str) -> float | None:
        """A catalogue topic's reading minus the nearest bank's, as a bank's margin (None: no catalogue reading).
        The bank the topic lies in is not its rival: a clause reading nearest Health is, if anything, more
        likely about medication ("My GP put me on metformin"), so the topic is measured against the other banks."""
        topic = topic.lower()
        read, home = self.catalogue_reading.get(topic), self.catalogue_home.get(topic)
        rivals = [score for bank, score in self.read.items() if bank is not home]
        return None if read is None else read - max(rivals, default=read)

    def excluded_by(self, bank: MemoryBank, t: Thresholds | None = None) -> bool:
        score, rule = self.read[bank], (t or self.thresholds).banks[bank]
        return score >= rule.sure or (score >= rule.floor and self.margin(bank) >= -rule.margin)

    def included_by(self, bank: MemoryBank, t: Thresholds | None = None) -> bool:
        """Kept by `include` only when the bank is the clause's nearest (a close call is not kept)."""
        score = self.read[bank]
        others = max((s for b, s in self.read.items() if b is not bank), default=-1.0)
        return score >= (t or self.thresholds).banks[bank].floor and score > others

    def about_topic(self, topic: str, t: Thresholds | None = None) -> bool:
        t, topic = t or self.thresholds, topic.lower()
        if self.topic_contrast.get(topic, -1.0) >= t.topic_floor:
            return True
        margin = self.catalogue_margin(topic)
        return (
            margin is not None
            and self.catalogue_contrast.get(topic, -1.0) >= t.catalogue_floor
            and margin >= -t.catalogue_margin
        )


Matrix = npt.NDArray[np.float32]
Vector = npt.NDArray[np.float32]


class _Statements(NamedTuple):
    """A topic's statements (its name twice, then its examples): their vectors, each one's usual nearness, and the
    bank the topic lies in, if any (`_home`)."""

    vectors: Matrix
    usual: Vector
    home: MemoryBank | None


class TopicMeaning:
    """Scores clauses against the banks' descriptions and free topics, with one embedder.

    The descriptions are embedded once per instance (on first use), a free topic once per phrasing;
    clauses go to the embedder in one call per screen (the pipeline's cached embedder answers a clause
    it has embedded for storage without running the model again)."""

    def __init__(self, embedder: Embedder, thresholds: Thresholds = THRESHOLDS) -> None:
        self.embedder = embedder
        self.thresholds = thresholds
        self._banks: dict[MemoryBank, tuple[Matrix, Vector]] | None = None  # statements, their usual nearness
        self._background: Matrix | None = None
        self._topics: dict[tuple[str, ...], _Statements] = {}
        self._pool: tuple[Matrix, Vector] | None = None  # _pool()'s vectors and their usual nearness
        self._lock = threading.Lock()

    def _bank_vectors(self) -> dict[MemoryBank, tuple[Matrix, Vector]]:
        if self._banks is None:
            protos = {bank: _matrix(self.embedder.embed(list(lines))) for bank, lines in BANK_DESCRIPTIONS.items()}
            background = _background(protos)
            banks, at = {}, 0
            for bank, vectors in protos.items():
                # rows 1.. are the background's rows at..: a statement is not its own background
                own = np.full((len(vectors), len(background)), False)
                own[np.arange(1, len(vectors)), at + np.arange(len(vectors) - 1)] = True
                banks[bank] = (vectors, _usual(vectors, background, own))
                at += len(vectors) - 1
            with self._lock:
                self._banks, self._background = banks, background
        return self._banks

    def _usual(self, vectors: Matrix) -> Vector:
        """Each sentence's mean cosine to its CONTRAST_K nearest background statements."""
        self._bank_vectors()
        assert self._background is not None  # noqa: S101 - type narrowing: set with the banks
        return _usual(vectors, self._background)

    def _topic_vectors(self, topic: str, examples: Sequence[str]) -> _Statements:
        key = (topic.lower(), *examples)
        with self._lock:
            found = self._topics.get(key)
        if found is None:
            name = topic_words(topic)[0]  # "daughter (Isla)": the words in brackets are matched, not embedded
            vectors = _matrix(self.embedder.embed([name, f"talking about {name}", *examples]))
            usual = self._usual(vectors)
            found = _Statements(vectors, usual, self._home(vectors, usual))
            with self._lock:
                if len(self._topics) > 1_000:  # tenants' topics change rarely; never grow without bound
                    self._topics.clear()
                self._topics[key] = found
        return found

    def _home(self, vectors: Matrix, usual: Vector) -> MemoryBank | None:
        """The bank a topic lies in: the one its name (both lines) and most of its examples read nearest, if
        any ("medication" in Health, "old job" in Work; "location", named in no bank's words and said in every
        bank's, lies in none)."""
        banks = self._bank_vectors()
        read = np.stack([_reading(vectors @ protos.T, usual, r) for protos, r in banks.values()], axis=1)
        nearest = read.argmax(axis=1)
        named, said = nearest[:2], np.bincount(nearest[2:], minlength=len(banks))
        if named[0] != named[1] or 2 * said[named[0]] <= len(nearest) - 2:
            return None
        return list(banks)[int(named[0])]

    def nearest_statements(self, topic: str) -> tuple[str, ...]:
        """The statements of the banks and of the catalogue nearest a topic's name by contrast (at most NEAR_K,
        from NEAR_FLOOR): what a topic with no examples and no catalogue entry is read by besides its name
        ("my meds" by what people say of medication, "career" by what they say of switching careers). By
        contrast, as a clause is read against a topic: a statement that merely shares a word of the name
        ("I live in a flat in the city" for "flat purchase") is near everything of its shape and does not
        count."""
        names, usual, _ = self._topic_vectors(topic, ())
        with self._lock:
            pool = self._pool
        if pool is None:
            vectors = _matrix(self.embedder.embed(list(_pool())))
            pool = (vectors, self._usual(vectors))
            with self._lock:
                self._pool = pool
        contrast = (2 * (names @ pool[0].T) - usual[:, None] - pool[1][None, :]).max(axis=0)
        best = np.argsort(-contrast, kind="stable")[:NEAR_K]
        return tuple(_pool()[i] for i in best if contrast[i] >= NEAR_FLOOR)

    def score(self, clauses: Sequence[str], topics: Mapping[str, Sequence[str]] | None = None) -> list[Scores]:
        """Each clause's scores; `topics`: the free topics asked about, each with its examples."""
        if not clauses:
            return []
        banks = self._bank_vectors()
        wanted = {t.lower(): self._topic_vectors(t, examples) for t, examples in (topics or {}).items()}
        broad = {
            t.lower(): self._topic_vectors(t, found)
            for t, examples in (topics or {}).items()
            if (found := catalogue_examples(t) or (() if examples else self.nearest_statements(t)))
        }
        vectors = _matrix(self.embedder.embed(list(clauses)))
        usual = self._usual(vectors)
        bank_cosines = {bank: vectors @ protos.T for bank, (protos, _) in banks.items()}
        bank_best = {bank: c.max(axis=1) for bank, c in bank_cosines.items()}
        reading = {bank: _reading(c, usual, banks[bank][1]) for bank, c in bank_cosines.items()}

        def best(cosines: dict[str, Matrix], of: dict[str, _Statements]) -> tuple[dict[str, Vector], dict[str, Vector]]:
            contrast = {t: (2 * c - usual[:, None] - of[t].usual[None, :]).max(axis=1) for t, c in cosines.items()}
            return {t: c.max(axis=1) for t, c in cosines.items()}, contrast

        broad_cosines = {topic: vectors @ found.vectors.T for topic, found in broad.items()}
        topic_best, topic_contrast = best({topic: vectors @ found.vectors.T for topic, found in wanted.items()}, wanted)
        broad_best, broad_contrast = best(broad_cosines, broad)
        broad_reading = {t: _reading(c, usual, broad[t].usual) for t, c in broad_cosines.items()}
        return [
            Scores(
                {bank: float(best[row]) for bank, best in bank_best.items()},
                {topic: float(best[row]) for topic, best in topic_best.items()},
                self.thresholds,
                {topic: float(best[row]) for topic, best in broad_best.items()},
                {topic: float(best[row]) for topic, best in topic_contrast.items()},
                {topic: float(best[row]) for topic, best in broad_contrast.items()},
                {bank: float(read[row]) for bank, read in reading.items()},
                {topic: float(read[row]) for topic, read in broad_reading.items()},
                {topic: found.home for topic, found in broad.items() if found.home is not None},
            )
            for row in range(len(clauses))
        ]


@functools.cache
def _catalogue() -> dict[str, tuple[str, ...]]:
    """Each name and alias of topic_catalogue.json, folded, with its topic's example statements and those of
    the topics it takes in (`includes`: an immigration status is a legal matter, so "legal matters" reads a
    visa clause by what people say of visas too)."""
    data = json.loads(resources.files("engram.pipeline").joinpath("topic_catalogue.json").read_text("utf-8"))
    topics = data["topics"]
    out: dict[str, tuple[str, ...]] = {}
    for name, entry in topics.items():
        said = [*entry["examples"], *(e for part in entry.get("includes", ()) for e in topics[part]["examples"])]
        for alias in (name, *entry["aliases"]):
            out[_fold(alias)] = tuple(dict.fromkeys(said))
    return out


def _fold(topic: str) -> str:
    return " ".join(topic.lower().split())


def catalogue_examples(topic: str) -> tuple[str, ...]:
    """A free topic's built-in statements: a tenant's "religion" is read as what people say of religion,
    not only as the word (none for a topic the catalogue does not know)."""
    folded = _fold(topic_words(topic)[0])
    return _catalogue().get(folded) or _catalogue().get(folded.removesuffix("s"), ())


@functools.cache
def _pool() -> tuple[str, ...]:
    """What a topic named with nothing else is read by: the banks' statements and the catalogue's."""
    data = json.loads(resources.files("engram.pipeline").joinpath("topic_catalogue.json").read_text("utf-8"))
    banks = [line for lines in BANK_DESCRIPTIONS.values() for line in lines[1:]]
    return tuple(dict.fromkeys([*banks, *(e for entry in data["topics"].values() for e in entry["examples"])]))


def _reading(cosines: Matrix, usual: Vector, statements_usual: Vector) -> Vector:
    """Each clause's reading of a set of statements (the module's docstring): the mean over its BANK_K nearest of
    the cosine less the two sentences' mean usual nearness."""
    read: Vector = np.sort(cosines - (usual[:, None] + statements_usual[None, :]) / 2, axis=1)[:, -BANK_K:].mean(axis=1)
    return read


def _background(banks: Mapping[MemoryBank, Matrix]) -> Matrix:
    """The banks' statements (not their one-line descriptions): ordinary chat on every subject."""
    return np.concatenate([vectors[1:] for vectors in banks.values()])


def _usual(vectors: Matrix, background: Matrix, own: npt.NDArray[np.bool_] | None = None) -> Vector:
    """Each sentence's mean cosine to its CONTRAST_K nearest background statements (`own`: cells left out)."""
    cosines = vectors @ background.T
    if own is not None:
        cosines = np.where(own, -1.0, cosines)
    usual: Vector = np.sort(cosines, axis=1)[:, -CONTRAST_K:].mean(axis=1)
    return usual


def _matrix(vectors: Sequence[Sequence[float]]) -> Matrix:
    return np.asarray(vectors, dtype=np.float32)
