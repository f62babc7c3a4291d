"""An add's vectors, each text embedded once per run: a one-sentence message is both a query for the
memories shown to the single call and, kept as an episode, a memory of its own; candidates repeat."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from engram.domain.ports import Embedder


@dataclass
class RunVectors:
    embedder: Embedder
    _known: dict[str, list[float]] = field(default_factory=dict)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        missing = [t for t in dict.fromkeys(texts) if t not in self._known]
        if missing:
            self._known.update(zip(missing, self.embedder.embed(missing), strict=True))
        return [self._known[t] for t in texts]
