"""When a new fact is the same as a current memory and is skipped before any decision.

Two rules: cosine alone (the default: at or above 0.95 it is the same fact), or cosine and text
together (at or above 0.9 and text similarity at or above 0.85), which also keeps apart short facts
that embed alike but say different things ("Likes tea" / "Likes green tea")."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

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
