"""An Embedder that remembers the vectors of its last few one-text calls.

One search embeds its query twice: for the memory ranking and for the graph's entity lookup (each
asks the embedder on its own). The second is a dictionary lookup here instead of a model run (about
5 ms of a search on this machine). Batches (extraction, indexing) pass straight through.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

from engram.domain.ports import Embedder


class RecentEmbeddings:
    def __init__(self, inner: Embedder, size: int = 64) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.dimensions = inner.dimensions
        self._size = size
        self._recent: OrderedDict[str, list[float]] = OrderedDict()
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if len(texts) != 1:
            return self.inner.embed(texts)
        text = texts[0]
        with self._lock:
            vector = self._recent.get(text)
            if vector is not None:
                self._recent.move_to_end(text)
                return [list(vector)]  # a copy: callers may change theirs
        vector = self.inner.embed(texts)[0]
        with self._lock:
            self._recent[text] = vector
            if len(self._recent) > self._size:
                self._recent.popitem(last=False)
        return [list(vector)]
