"""An Embedder that remembers the vectors of the texts it embedded last.

Texts come back within moments: one search embeds its query for the memory ranking and again for the
graph's entity lookup, and one add embeds a one-sentence message as a query for the memories shown to
the single call and again as its episode. Those repeats are dictionary lookups here instead of model
runs (about 2-5 ms each on this machine). A batch is answered from what is known and the rest embedded
in one call; duplicates within a batch are embedded once.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

from engram.domain.ports import Embedder


class RecentEmbeddings:
    def __init__(self, inner: Embedder, size: int = 256) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.dimensions = inner.dimensions
        self._size = size
        self._recent: OrderedDict[str, list[float]] = OrderedDict()
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        wanted = list(dict.fromkeys(texts))
        with self._lock:
            found = {t: self._recent[t] for t in wanted if t in self._recent}
            for text in found:
                self._recent.move_to_end(text)
        missing = [t for t in wanted if t not in found]
        if missing:
            fresh = dict(zip(missing, self.inner.embed(missing), strict=True))
            with self._lock:
                self._recent.update(fresh)
                while len(self._recent) > self._size:
                    self._recent.popitem(last=False)
            found.update(fresh)
        return [list(found[t]) for t in texts]  # copies: callers may change theirs
