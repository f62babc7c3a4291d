"""The polarity of a clause, read by meaning: whether it asserts a value now held, ends one, denies one, hedges
or tells the past (domain/statements.py).

A labelled set (state/polarity.json: example clauses per polarity, each ending with the attribute it ends) is
compared by the local embedder with the clause, as the catalogue is for attributes: the clause takes the
polarity of its closest example when that is close enough and clearly closer than any other polarity's. A few
linear-time cues of the language (a modal, a negation, "used to") keep a clause from being read as asserted
when it hedges, denies or tells the past, whatever its closest example: a wrong statement is worse than none.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engram.domain.ports import Embedder
from engram.domain.statements import Polarity
from engram.text.match import content_words

LABELLED = Path(__file__).with_name("polarity.json")
POLARITIES: tuple[Polarity, ...] = ("asserted", "ended", "denied", "hedged", "past")
MARGIN = 0.05  # over the closest example of another polarity

# Cues of the language that say a clause does not assert a value held now ("might", "used to", "not").
_HEDGE = re.compile(
    r"\b(?:might|maybe|perhaps|possibly|probably|thinking\s+(?:about|of)|considering|planning|plan\s+to|hope|"
    r"hoping|wish|would|could|should|(?-i:may)|if|someday|looking\s+at|going\s+to|gonna|want\s+to|tempted)\b",
    re.I,
)
# Told as the past whatever the verb: "used to", "years ago".
_LONG_AGO = re.compile(
    r"\b(?:used\s+to|back\s+then|back\s+when|years\s+ago|as\s+a\s+(?:kid|child|student)|when\s+i\s+was|"
    r"grew\s+up|visit\w*|last\s+(?:year|summer|winter))\b",
    re.I,
)
# A value of another time ("my old phone was a Nokia"), read only against a clause asserting a value.
_THEN = re.compile(r"\b(?:was|were|first|previous|previously|formerly|former|old)\b", re.I)
_ENDED = re.compile(r"\b(?:no\s+longer|any\s*more|no\s+more(?!\s+than))\b", re.I)
_ENDED_AFTER = re.compile(r"\b(?:no\s+longer|any\s*more)\b", re.I)  # after the value: "not with EE any more"
_DENY = re.compile("\\b(?:not|never|no)\\b|n['\u2019]t\\b", re.I)  # "n't" ends its word: "don't", "won't"
_STEM = re.compile(r"(?:ing|led|ed|es|s|d)$")
_NAME = re.compile(r"\b(?!I\b)[A-Z]\w*")  # the examples are written in lower case but for "I" and names


@dataclass(frozen=True)
class Sense:
    polarity: Polarity
    attribute: str | None  # the attribute an ending ends, as its closest example names it
    score: float


class PolarityReader:
    def __init__(self, embedder: Embedder, path: Path = LABELLED) -> None:
        self.embedder = embedder
        data = json.loads(path.read_text(encoding="utf-8"))
        self._examples = [(p, e["text"], e.get("attribute")) for p in POLARITIES for e in data[p]]
        self._vectors: np.ndarray | None = None
        self._ending_words = ending_words(data)

    def may_end(self, clause: str) -> bool:
        """Whether a clause says a word only the labelled endings say ("sold", "quit", "died", "away"): only
        then is its meaning asked whether it ends something. Conversation is mostly other things ("Keep it
        up!"), which no ending example is closest to for the right reason, and each meaning asked is a model run."""
        return not self._ending_words.isdisjoint(_stems(clause))

    def _prototypes(self) -> np.ndarray:
        if self._vectors is None:
            self._vectors = np.asarray(self.embedder.embed([t for _, t, _ in self._examples]), dtype=np.float32)
        return self._vectors

    def sense(self, vector: list[float]) -> Sense | None:
        """The clause's polarity by meaning, with the attribute an ending ends and its closeness; None when no
        polarity is clearly closer than the others. How close is close enough is the caller's: a clause that
        names its value ("Miso died": a name blurs its meaning) needs less than one that names nothing."""
        cosines = self._prototypes() @ np.asarray(vector, dtype=np.float32)
        best: dict[Polarity, tuple[float, str | None]] = {}
        for (polarity, _, attribute), score in zip(self._examples, cosines.tolist(), strict=True):
            if score > best.get(polarity, (-1.0, None))[0]:
                best[polarity] = (score, attribute)
        ranked = sorted(best.items(), key=lambda p: -p[1][0])
        (polarity, (score, attribute)), runner_up = ranked[0], ranked[1][1][0]
        if score - runner_up < MARGIN:
            return None
        return Sense(polarity, attribute, score)


def ending_words(data: dict[str, list[dict[str, str]]]) -> frozenset[str]:
    """The content word stems of the ending examples that no asserting example says ("broke", "sold", "rid",
    "died", "away"; not "my", "got"), nor a name ("Netflix", "Biscuit": the value an ending ends is no sign
    of one: "we pay for Netflix"). Derived from the labelled set, so adding an example adds its words."""
    asserting = {w for e in data["asserted"] for w in _stems(e["text"])}
    names = {w for e in data["ended"] for w in _stems(" ".join(_NAME.findall(e["text"])))}
    # Nor the attribute an ending ends ("account", "subscription"): "my account is at Itaú" ends nothing.
    held = {w for e in data["ended"] for w in _stems(e.get("attribute") or "")}
    return frozenset(w for e in data["ended"] for w in _stems(e["text"]) if w not in asserting | names | held)


def _stems(text: str) -> set[str]:
    """Content words, lower-case, with a regular ending taken off ("cancelled", "cancels", "cancel" alike)."""
    return {_STEM.sub("", w) if len(w) > 4 else w for w in content_words(text) if len(w) > 2}


def cue(clause: str, asserting: bool = True) -> Polarity | None:
    """The polarity the clause's own words give, before its meaning: a hedge, the past, an ending ("no
    longer"), a denial. `asserting`: the clause gives a value as now held ("my phone is a Pixel"), where a
    "was" already tells another time; an ending is said in the past tense ("I was laid off")."""
    if _HEDGE.search(clause):
        return "hedged"
    if _LONG_AGO.search(clause) or (asserting and _THEN.search(clause)):
        return "past"
    if _ENDED.search(clause):
        return "ended"
    if _DENY.search(clause):
        return "denied"
    return None


def lowered_ending_cues(clause: str) -> str:
    """The clause with its cues of an ending ("no more", "no longer") in lower case: none is taken for a name."""
    return _ENDED.sub(lambda m: m.group(0).lower(), clause)


def said_of(clause: str, value: str | None) -> Polarity | None:
    """The polarity a clause's words give a value it names: its cues up to the value, and an ending after it
    ("I'm not with Vodafone any more"). What follows the value is most often said of it, not of holding it:
    "our landlord Gary still hasn't sorted the damp" denies nothing of Gary being the landlord, "my Corolla don
    old" tells no other time."""
    at = clause.find(value) if value else -1
    if at < 0:
        return cue(clause)
    end = at + len(value or "")
    # From the comma-separated part that names it ("the flat was sold, the new landlord is Grainger": the
    # "was" is said of the flat), or the part before when it names only the value ("a trainer, Sade").
    parts = [m.end() for m in re.finditer(r"[,;]\s*", clause[:at])]
    start = parts[-1] if parts else 0
    if start == at and len(parts) > 1:
        start = parts[-2]
    elif start == at:
        start = 0
    return cue(clause[start:end]) or ("ended" if _ENDED_AFTER.search(clause[end:]) else None)
