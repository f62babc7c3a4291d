"""Checks on an LLM's reconciliation plan before it is applied.

A weak model's plan (a small local model's above all) is not trusted as it is: each decision that
would change or close a memory, or add one, is checked against the new facts and the memory it
names, and downgraded when it fails, with the reason in the decision's note (the task result):

- an UPDATE of a memory that no new fact concerns: the memory stays; the facts are added as they are;
- an UPDATE whose text drops details of the old memory that no new fact speaks to: the old memory
  stays and the update's text is added beside it;
- a DELETE that no new fact contradicts (no negation, no retraction, no replacing detail): the memory
  stays (NONE);
- a DELETE of a memory the new facts contradict only in part ("likes tea and coffee" beside "doesn't
  drink coffee anymore"): the memory keeps the clauses no new fact ends (UPDATE "likes tea"), or
  stays when they cannot be cut apart cleanly;
- an ADD that a current memory already holds: NONE on that memory;
- an ADD of a new home, employer, job, partner or diet beside a memory the plan keeps that states
  another one: the older is superseded (reconcile/supersede_check.py).

Before them, a change of state that the new fact's statements and the memory's show (a new value of a
one-at-a-time attribute, an ending, a hedge, an older value) is resolved from the statements by event time,
whatever event the model chose (reconcile/statement_plan.py); the checks then run on the rest of the plan.

"Concerns" is the cosine of the local embedder's vectors (or shared content words when there is no
embedder); "drops" compares light-stemmed content words, clause by clause; "contradicts" is a
change of polarity, a retraction word, or a replaced name, place or number. All linear in the text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt
from aws_lambda_powertools import Logger

from engram.domain.models import Event, Fact
from engram.domain.ports import Embedder
from engram.domain.steps import CandidateFact, Decision
from engram.reconcile.statement_change import SameAttribute
from engram.reconcile.statement_plan import by_statements
from engram.reconcile.supersede_check import SingleValues, Supersede, joined, pieces
from engram.text.match import content_tokens, content_words, looks_negated, protected_details, values_match

logger = Logger(child=True)

NOTE = "plan check"
# Where one memory's text joins separate statements: each clause is checked on its own.
_CLAUSE = re.compile(r"[,;:()]|\s(?:and|but|with|who|which|where|while|plus|also)\s", re.IGNORECASE)
_RETRACT = re.compile(r"\b(forget|delete|remove|erase|cancel|drop|wrong|mistaken|incorrect)\b", re.IGNORECASE)
# Words that end what a memory says of a thing the fact names ("left Google", "moved out of Leeds").
_ENDED = re.compile(
    r"\b(left|leaving|quit|stopped|resigned|retired|sold|gave\s+up|moved\s+(?:out|away)|broke\s+up|former|ex|"
    r"no\s+longer|anymore|used\s+to)\b",
    re.IGNORECASE,
)
_SUFFIXES = ("ing", "ed", "es", "s", "e")
# Words that say how, not what: dropping them loses nothing.
_FILLER = frozenset(
    "currently still really just only actually recently usually always often lot much many some "
    "enjoys enjoy likes like loves love being been is am are has have had does do did would will can "
    "i me my we our you your who which what when where there here so then than too".split()
)


def stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


# The checks hold one decision's text against every current memory, and the same memories again on the next
# add: 47 readings of a few texts an add (cProfile, dedup mode). Bounded: a cached text is kept alive.
@lru_cache(maxsize=512)
def stems(text: str) -> frozenset[str]:
    return frozenset(stem(w) for w in content_tokens(text) if w not in _FILLER)


def clauses(text: str) -> list[str]:
    return [part.strip() for part in _CLAUSE.split(text) if part and part.strip()]


def _note(decision: Decision, reason: str) -> Decision:
    text = f"{NOTE}: {reason}"
    decision.note = f"{decision.note}; {text}" if decision.note else text
    return decision


@dataclass
class PlanChecks:
    """Validates a reconciliation plan; `concern` and `same` are cosines of the embedder's vectors.
    `aspects` reads single-valued aspects (AspectReader.single_values) for supersession; without it
    a plan's half-done move is left as the model gave it."""

    embedder: Embedder | None = None
    concern: float = 0.5  # a new fact at least this close to a memory (or a clause of it) is about it
    same: float = 0.85  # an ADD this close to a current memory (and naming nothing it lacks) repeats it
    aspects: SingleValues | None = None
    attributes: SameAttribute | None = None  # two attributes as named are one, by meaning (state/attributes.py)

    def __call__(
        self, decisions: Sequence[Decision], facts: Sequence[CandidateFact], existing: Sequence[Fact]
    ) -> list[Decision]:
        planned = by_statements(decisions, facts, existing, self.attributes)
        by_id = {f.id: f for f in existing}
        fact_texts = [f.text for f in facts]
        whole = [*fact_texts, *(f.text for f in existing), *(d.text for d, _ in planned if d.text)]
        sim = _Similarity(self.embedder, whole, [c for f in existing for c in clauses(f.text)])
        changed = {d.memory_id for d, _ in planned if d.event in (Event.UPDATE, Event.DELETE) and d.memory_id}
        out: list[Decision] = []
        for d, settled in planned:
            old = by_id.get(d.memory_id or "")
            if settled and d.event is not Event.ADD:  # resolved from statements; its new fact is still checked
                out.append(d)
            elif d.event is Event.UPDATE and old is not None:
                out += self._update(d, old, facts, sim)
            elif d.event is Event.DELETE and old is not None:
                out.append(self._delete(d, old, facts, sim))
            elif d.event is Event.ADD:
                out.append(self._add(d, [f for f in existing if f.id not in changed], sim))
            elif d.event is Event.NONE and old is not None and d.note is None and d.attachment_ids is None:
                out.append(self._kept(d, old, facts, sim))
            else:
                out.append(d)
        return Supersede(self.aspects)(out, existing) if self.aspects is not None else out

    def _kept(self, d: Decision, old: Fact, facts: Sequence[CandidateFact], sim: _Similarity) -> Decision:
        """A NONE stands for a new fact only when the memory holds all of it: one that adds to the
        memory ("Max is a labrador" beside "has a dog named Max") must not count as covered, so the
        missing-fact cover adds it."""
        if any(self._holds(old.text, f.text, sim) for f in facts):
            return d
        return d.model_copy(update={"text": ""})

    def _concerning(self, memory: str, facts: Sequence[CandidateFact], sim: _Similarity) -> list[CandidateFact]:
        parts = [memory, *clauses(memory)]
        return [f for f in facts if max(sim(f.text, p) for p in parts) >= self.concern]

    def _update(self, d: Decision, old: Fact, facts: Sequence[CandidateFact], sim: _Similarity) -> list[Decision]:
        if _same_text(d.text, old.text):  # an UPDATE that changes nothing is a NONE
            none = Decision(
                event=Event.NONE, text=d.text, memory_id=old.id, attachment_ids=d.attachment_ids, note=d.note
            )
            return [self._kept(none, old, facts, sim)]
        about = self._concerning(old.text, facts, sim)
        if not about:
            logger.warning("UPDATE of a memory the new facts do not concern", extra={"memory_id": old.id})
            reason = f'UPDATE of "{old.text}" not applied: no new fact concerns it'
            kept = Decision(event=Event.NONE, text="", memory_id=old.id, note=d.note)  # covers no fact
            return [_note(kept, reason), *self._facts_of(d, facts, reason)]
        lost = self.dropped(old.text, d.text, about, sim)
        if lost:
            logger.warning("UPDATE would lose details", extra={"memory_id": old.id, "lost": sorted(lost)})
            return [beside(d, old.text, lost)]
        return [d]

    def dropped(self, old: str, new: str, about: Sequence[CandidateFact], sim: _Similarity) -> set[str]:
        """Words of `old` that `new` loses, in clauses that no new fact speaks to."""
        kept = stems(new)
        lost: set[str] = set()
        for clause in clauses(old) or [old]:
            missing = stems(clause) - kept
            if not missing:
                continue
            if any(sim(f.text, clause) >= self.concern and _replaces(f.text, clause) for f in about):
                continue  # a new fact restates this part of the memory: its words may change
            lost |= {w for w in content_tokens(clause) if stem(w) in missing}
        return lost

    def _facts_of(self, d: Decision, facts: Sequence[CandidateFact], reason: str) -> list[Decision]:
        """The facts an unapplied UPDATE carried, as new memories (each names the reason)."""
        mine = [i for i, f in enumerate(facts) if stems(f.text) & stems(d.text)]
        if d.fact_index is not None and d.fact_index < len(facts) and d.fact_index not in mine:
            mine.append(d.fact_index)
        return [
            _note(Decision(event=Event.ADD, text=facts[i].text, fact_index=i, importance=facts[i].importance), reason)
            for i in mine
        ]

    def _delete(self, d: Decision, old: Fact, facts: Sequence[CandidateFact], sim: _Similarity) -> Decision:
        about = self._concerning(old.text, facts, sim)
        kept = Decision(event=Event.NONE, text="", memory_id=old.id, note=d.note)  # covers no fact
        if not any(_contradicts(f, old.text) for f in about):
            logger.warning("DELETE without a contradicting statement", extra={"memory_id": old.id})
            return _note(kept, f'DELETE of "{old.text}" not applied: no new fact contradicts it')
        parts = pieces(old.text)
        left = [(j, c) for j, c in parts if not any(self._ends(f, c, sim) for f in facts)]
        if not left:
            return d
        lost = sorted({w for _, c in left for w in content_tokens(c) if stem(w) in stems(c)})
        logger.warning("DELETE would lose details", extra={"memory_id": old.id, "lost": lost})
        if len(left) < len(parts) and not left[0][0]:  # the first clause stays: the rest can be cut off
            text = joined(left, old.text)
            cut = Decision(
                event=Event.UPDATE, text=text, memory_id=old.id, attachment_ids=d.attachment_ids, note=d.note
            )
            return _note(cut, f'DELETE of "{old.text}" would drop {", ".join(lost)}: kept "{text}"')
        return _note(kept, f'DELETE of "{old.text}" not applied: it would drop {", ".join(lost)}')

    def _ends(self, fact: CandidateFact, clause: str, sim: _Similarity) -> bool:
        """Whether a new fact ends or replaces what a clause of a memory says: it holds all of the
        clause's words, gives other names or places in its stead ("moved to Berlin" for "lives in
        Hamburg"), or negates, retracts or ends the thing the clause names last ("stopped playing
        basketball" ends "basketball", not "plays football")."""
        words = stems(clause)
        if words <= stems(fact.text):
            return True
        theirs, mine = protected_details(clause), protected_details(fact.text)
        if theirs and mine and not theirs & mine and sim(fact.text, clause) >= self.concern:
            return True
        if self.aspects is not None:  # another value of the same single-valued aspect ("nurse" for "teacher")
            was, now = self.aspects([clause, fact.text])
            if any(a == b and not values_match(v, w) for a, v in was for b, w in now):
                return True
        named = [stem(w) for w in content_words(clause) if w not in _FILLER]
        ending = (
            fact.negated or looks_negated(fact.text) or bool(_RETRACT.search(fact.text) or _ENDED.search(fact.text))
        )
        return ending and bool(named) and any(_akin(named[-1], w) for w in stems(fact.text))

    def _holds(self, memory: str, text: str, sim: _Similarity) -> bool:
        """Whether `memory` already says all of `text`: its words, or a close paraphrase naming nothing else."""
        if looks_negated(memory) != looks_negated(text):
            return False
        words = stems(text)
        if words and words <= stems(memory):
            return True
        return sim.as_said(text, memory) >= self.same and _details(text) <= _details(memory)

    def _add(self, d: Decision, current: Sequence[Fact], sim: _Similarity) -> Decision:
        for memory in current:
            if self._holds(memory.text, d.text, sim):
                logger.warning("ADD repeats a current memory", extra={"memory_id": memory.id})
                kept = Decision(
                    event=Event.NONE, text=d.text, memory_id=memory.id, fact_index=d.fact_index, note=d.note
                )
                return _note(kept, f'ADD of "{d.text}" not applied: "{memory.text}" already holds it')
        return d


def beside(d: Decision, old: str, lost: set[str]) -> Decision:
    """A lossy UPDATE as a new memory beside the one it would have rewritten, saying why."""
    added = Decision(
        event=Event.ADD,
        text=d.text,
        fact_index=d.fact_index,
        importance=d.importance,
        attachment_ids=d.attachment_ids,
        note=d.note,
    )
    return _note(
        added, f'UPDATE of "{old}" would drop {", ".join(sorted(lost))}: kept it, added the new text beside it'
    )


def _replaces(fact: str, clause: str) -> bool:
    """Whether a fact close to a clause restates it: it shares a word with it, or gives a detail
    (name, place, number) or negation in its place."""
    if stems(fact) & stems(clause):
        return True
    return bool(protected_details(fact)) or looks_negated(fact) != looks_negated(clause)


def _akin(a: str, b: str) -> bool:
    """The same word or one grown from the other ("teach", "teacher")."""
    return a == b or (min(len(a), len(b)) >= 4 and (a.startswith(b) or b.startswith(a)))


def _contradicts(fact: CandidateFact, memory: str) -> bool:
    if fact.negated or looks_negated(fact.text) != looks_negated(memory) or _RETRACT.search(fact.text):
        return True
    theirs, mine = protected_details(memory), protected_details(fact.text)
    if _ENDED.search(fact.text) and theirs & mine:  # "left Google last month for Microsoft"
        return True
    return bool(theirs and mine and not theirs & mine)


def _same_text(a: str, b: str) -> bool:
    return " ".join(a.casefold().split()).rstrip(".") == " ".join(b.casefold().split()).rstrip(".")


Vector = npt.NDArray[np.float64]


class _Similarity:
    """The larger of two cosines of the embedder's vectors: of the texts, and of the texts without
    their names, places and numbers ("started a job at Microsoft" is about "works at Google": 0.37
    as said, 0.61 without the names). Texts of a plan only; each kind embedded in one call when first
    compared (the texts as said; the parts of memories and the texts without names, which only an
    UPDATE or DELETE compares), so a plan of ADDs never embeds what it does not compare. Without an
    embedder, or for a text outside the plan, the share of content words the two texts have in common."""

    def __init__(self, embedder: Embedder | None, whole: Sequence[str], parts: Sequence[str]) -> None:
        self._embedder = embedder
        self._whole = list(dict.fromkeys(whole))
        self._texts = set(self._whole) | set(parts)
        self._vectors: dict[str, Vector] = {}
        self._plain: dict[str, Vector] | None = None

    def as_said(self, a: str, b: str) -> float:
        """The cosine of the texts as they are (names and numbers count)."""
        if self._embedder is None or a not in self._texts or b not in self._texts:
            return _lexical(a, b)
        vectors = self._as_said([a, b])
        return _dot(vectors[a], vectors[b])

    def __call__(self, a: str, b: str) -> float:
        if self._embedder is None or a not in self._texts or b not in self._texts:
            return _lexical(a, b)
        plain = self._without_details()
        vectors = self._as_said([a, b])
        return max(_dot(vectors[a], vectors[b]), _dot(plain[a], plain[b]))

    def _as_said(self, texts: Sequence[str]) -> dict[str, Vector]:
        if any(t not in self._vectors for t in texts):
            wanted = [t for t in dict.fromkeys([*self._whole, *texts]) if t not in self._vectors]
            self._embed(wanted)
        return self._vectors

    def _without_details(self) -> dict[str, Vector]:
        if self._plain is None:
            plain = {t: _without_details(t) for t in self._texts}
            self._embed([t for t in dict.fromkeys([*self._texts, *plain.values()]) if t not in self._vectors])
            self._plain = {t: self._vectors[p] for t, p in plain.items()}
        return self._plain

    def _embed(self, texts: Sequence[str]) -> None:
        if texts and self._embedder is not None:
            found = self._embedder.embed(texts)
            self._vectors.update((t, np.asarray(v, dtype=np.float64)) for t, v in zip(texts, found, strict=True))


def _lexical(a: str, b: str) -> float:
    sa, sb = stems(a), stems(b)
    return len(sa & sb) / min(len(sa), len(sb)) if sa and sb else 0.0


_NUMBERS = frozenset("one two three four five six seven eight nine ten eleven twelve first second third".split())


def _details(text: str) -> set[str]:
    """Names, places and numbers (as digits or words): what a near-duplicate must not differ in."""
    return protected_details(text) | {w for w in content_tokens(text) if w in _NUMBERS}


def _dot(a: Vector, b: Vector) -> float:
    return float(a @ b)


def _without_details(text: str) -> str:
    details = protected_details(text)
    if not details:
        return text
    kept = [w for w in text.split() if "".join(ch for ch in w if ch.isalnum()).lower() not in details]
    return " ".join(kept) or text
