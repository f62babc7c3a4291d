"""When a new fact is the same as a current memory and is skipped before any decision: a cosine at or
above the threshold (0.95 by default, ENGRAM_DUPLICATE_THRESHOLD).

The same rules hold within one run: a new fact that repeats one said earlier in the run (tasks of
one user merged into one run, or one add saying a thing twice) is skipped, as it would be had the
earlier one been stored first."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from engram.domain.steps import CandidateFact


@dataclass(frozen=True)
class DuplicateRule:
    cosine: float = 0.95

    def same(self, cosine: float) -> bool:
        return cosine >= self.cosine

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
            if self.same(cosine(mine, vectors[other.text])):
                return True
        return False


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if x.shape != y.shape:
        raise ValueError(f"vectors of {x.shape} and {y.shape} dimensions")
    norms = math.sqrt(float(x @ x)) * math.sqrt(float(y @ y))
    return float(x @ y) / norms if norms else 0.0
