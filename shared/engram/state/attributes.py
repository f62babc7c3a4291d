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

    def same(self, a: str, b: str) -> bool:
        """Whether two canonical attributes are one (ANY, a change naming only its old value, is any)."""
        if a == b or ANY in (a, b):
            return True
        if a in self.aspects and b in self.aspects:
            return False
        first, second = self._vector([a, b])
        return float(first @ second) >= SAME
