"""Attributes by meaning: the noun a person names an attribute by ("mobile", "handset", "GP") made canonical,
and two attributes told the same or apart.

A noun is the catalogue's attribute when it is its name or one of its words (state/catalogue.json: "mobile" is
the phone), else when the local embedder finds it close to one of them. Two attributes outside the catalogue
are one when their nouns are as close ("bike" and "bicycle"); "gym" and "school", "car" and "bike", "manager"
and "doctor" stay apart. The resolver compares a new statement's attribute with its neighbours' this way, so
the user's own attributes are matched without a list of them (state/supersede.py)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from engram.domain.ports import Embedder
from engram.state.aspects import ASPECTS, Aspect

# How close a value named with no attribute is to a held value, each said as one's own ("my Garmin Venu 3", "my
# Apple Watch Series 6": 0.40; "my Pixel 8", "my iPhone 15": 0.65; a person 0.15, a provider 0.25), for it to be
# of that value's attribute, and how much closer than the next attribute's value. Bare names are weak evidence of
# a kind on this embedder: the bar errs toward keeping.
KIN, KIN_MARGIN = 0.40, 0.05
# Kinds of value a switch with no attribute named may be of: things and providers, never a home or a person.
_THINGS = frozenset({"product", "provider"})
_GENERIC = frozenset({"thing", "provider"})  # the open reader's attributes of a thing or provider named bare
SAME = 0.66  # cosine of two bare nouns read as one attribute (bike/bicycle 0.92, gym/school 0.57, car/bike 0.55)
ANY = "*"  # the attribute of a change that names only the old value ("switched from EE to Vodafone")


class AttributeMeaning:
    def __init__(self, embedder: Embedder, aspects: Sequence[Aspect] = ASPECTS) -> None:
        self.embedder = embedder
        self.aspects = {a.name: a for a in aspects}
        self._word = {a.name: a.name for a in aspects}
        for aspect in aspects:  # the catalogue's words of an aspect ("mobile", "handset")
            for word in aspect.terms:
                self._word.setdefault(word, aspect.name)
        self._vectors: dict[str, np.ndarray] = {}

    def _vector(self, nouns: Sequence[str]) -> list[np.ndarray]:
        unseen = [n for n in dict.fromkeys(nouns) if n not in self._vectors]
        if unseen:
            for noun, vector in zip(unseen, self.embedder.embed(unseen), strict=True):
                self._vectors[noun] = np.asarray(vector, dtype=np.float32)
        return [self._vectors[n] for n in nouns]

    def canonical(self, noun: str) -> str:
        """The catalogue's attribute the noun names, else the noun itself (lower case, singular as said)."""
        word = " ".join(noun.lower().split())
        if word in self._word:
            return self._word[word]
        names = list(self._word)
        mine, *theirs = self._vector([word, *names])
        scores = [float(mine @ v) for v in theirs]
        best = int(np.argmax(scores))
        return self._word[names[best]] if scores[best] >= SAME else word

    def single(self, attribute: str) -> bool | None:
        """The catalogue's cardinality of an attribute; None outside it (the language decides)."""
        aspect = self.aspects.get(attribute)
        return aspect.single if aspect is not None else None

    def of_things(self, attribute: str) -> bool:
        """Whether an attribute's values are things or providers: the catalogue's kind, else outside it."""
        aspect = self.aspects.get(attribute)
        return aspect.kind in _THINGS if aspect is not None else attribute in _GENERIC or attribute not in self._word

    def kin(self, value: str, held: Sequence[tuple[str, str]]) -> str | None:
        """The attribute, among `held` (attribute, value) pairs, whose value is of the kind of `value`: the
        closest, close enough and clearly closer than any other attribute's."""
        if not held:
            return None
        mine, *theirs = self._vector([f"my {value}", *(f"my {v}" for _, v in held)])
        best: dict[str, float] = {}
        for (attribute, _), vector in zip(held, theirs, strict=True):
            best[attribute] = max(best.get(attribute, -1.0), float(mine @ vector))
        ranked = sorted(best.items(), key=lambda p: -p[1])
        runner_up = ranked[1][1] if len(ranked) > 1 else -1.0
        attribute, score = ranked[0]
        return attribute if score >= KIN and score - runner_up >= KIN_MARGIN else None

    def one(self, a: str, b: str) -> bool:
        """Whether two attributes as named ("mobile", "phone") are one: canonical, then by meaning. The
        resolution's room rules hold: a catalogue aspect is never another ("home" is not "employer")."""
        if ANY in (a, b):  # a named attribute is never "any" here: only the offline reader's changes are
            return a == b
        return self.same(self.canonical(a), self.canonical(b))

    def same(self, a: str, b: str) -> bool:
        """Whether two canonical attributes are one (ANY, a change naming only its old value, is any)."""
        if a == b or ANY in (a, b):
            return True
        if a in self.aspects and b in self.aspects:
            return False
        first, second = self._vector([a, b])
        return float(first @ second) >= SAME
