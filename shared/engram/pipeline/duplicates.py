"""When a new fact is the same as a current memory and is skipped before any decision.

Two rules: cosine alone (the default: at or above 0.95 it is the same fact), or cosine and text
together (at or above 0.9 and text similarity at or above 0.85), which also keeps apart short facts
that embed alike but say different things ("Likes tea" / "Likes green tea").

The same rules hold within one run: a new fact that repeats one said earlier in the run (tasks of
one user merged into one run, or one add saying a thing twice) is skipped, as it would be had the
earlier one been stored first."""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from engram.domain.steps import CandidateFact

_SPACE = re.compile(r"\s+")


def text_similarity(a: str, b: str) -> float:
    """Character-level similarity in [0, 1] (difflib's ratio) of the case- and space-folded texts:
    it sees a changed word, where word sets would miss "Likes tea" / "Likes green tea"."""
    fold = (_SPACE.sub(" ", a).strip().casefold(), _SPACE.sub(" ", b).strip().casefold())
    return difflib.SequenceMatcher(None, *fold, autojunk=False).ratio()


@dataclass(frozen=True)
class DuplicateRule:
    cosine: float = 0.95
    text: float | None = None  # None: cosine alone decides

    def needs_text(self, cosine: float) -> bool:
        return self.text is not None and cosine >= self.cosine

    def same(self, cosine: float, new: str, old: str | None = None) -> bool:
        if cosine < self.cosine:
            return False
        if self.text is None:
            return True
        return old is not None and text_similarity(new, old) >= self.text

    def repeats(
        self, candidate: CandidateFact, earlier: Sequence[CandidateFact], vectors: Mapping[str, Sequence[float]]
    ) -> bool:
        """True when an earlier new fact of the same run says the same (a fact only repeats a fact,
        an episode anything; a retraction repeats nothing and is repeated by nothing)."""
        if candidate.negated:
            return False
        mine = vectors[candidate.text]
        for other in earlier:
            if other.negated or (candidate.kind == "fact" and other.kind != "fact"):
                continue
            if candidate.span and other.span and candidate.message_index == other.message_index:
                continue  # two parts of one long message say different things, however alike
            if self.same(cosine(mine, vectors[other.text]), candidate.text, other.text):
                return True
        return False


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    norms = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return sum(x * y for x, y in zip(a, b, strict=True)) / norms if norms else 0.0
