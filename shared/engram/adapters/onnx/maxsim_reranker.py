"""Late-interaction reranking on the embedding model itself: MaxSim over MiniLM's token vectors.

No package on the registries this project can reach ships cross-encoder weights (bench/README.md,
"Reranker (issue 26)", lists the ones inspected), but the packaged all-MiniLM-L6-v2 already computes
a contextual vector per token before it averages them. ColBERT's MaxSim reads those: each query
token is matched to its closest memory token and the matches are averaged, so "guitar" in the
question finds "guitar" in a long turn whose averaged vector is about something else. MiniLM was
not trained for this, and alone it ranks below the hybrid search; blended into the fused score over
the top few candidates it lifted LoCoMo recall@10 (bench/README.md has the numbers).

The price is a model run per candidate (~5 ms for a chat turn, int8, one thread): the token vectors
of recent candidates are kept in a small in-process LRU table, in float16, so a memory that keeps
coming up is read once per container.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from engram.settings import Settings

# ~40 tokens x 384 dims x 2 bytes = ~30 KB per chat turn: 1,024 turns are ~30 MB at most.
CACHE_TEXTS = 1024


class TokenVectors(Protocol):
    model_id: str

    def token_vectors(self, text: str) -> npt.NDArray[np.float32]:
        """Unit-length contextual vectors, one per token of the text (special tokens left out)."""
        ...


class MaxSimReranker:
    """Reranker port: the mean over query tokens of the best cosine with any memory token, in [0, 1]."""

    def __init__(self, model: TokenVectors, cache_texts: int = CACHE_TEXTS) -> None:
        self._model = model
        self.model_id = f"maxsim-{model.model_id}"
        self._cache_texts = cache_texts
        self._cache: OrderedDict[str, npt.NDArray[np.float16]] = OrderedDict()
        self._lock = threading.Lock()

    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        if not texts:
            return []
        asked = self._model.token_vectors(query)  # questions rarely repeat: not cached
        scores: list[float] = []
        for text in texts:
            said = self._vectors(text)
            best = (asked @ said.T.astype(asked.dtype)).max(axis=1)
            scores.append(min(1.0, max(0.0, float(best.mean()))))
        return scores

    def _vectors(self, text: str) -> npt.NDArray[np.float16]:
        with self._lock:
            cached = self._cache.get(text)
            if cached is not None:
                self._cache.move_to_end(text)
                return cached
        vectors = self._model.token_vectors(text).astype("float16")
        with self._lock:
            self._cache[text] = vectors
            while len(self._cache) > self._cache_texts:
                self._cache.popitem(last=False)
        return vectors


def from_settings(settings: Settings) -> MaxSimReranker | None:
    """The reranker ENGRAM_SEARCH_RERANKER names, or None when it is off."""
    if settings.search_reranker == "off":
        return None
    from engram.adapters.onnx.embedder import OnnxEmbedder

    # MiniLM whichever model embeds (the weights measured); with the local embedder's settings it
    # shares that embedder's loaded session.
    model = OnnxEmbedder(
        settings.local_model_path, precision=settings.local_model_precision, cache_dir=settings.model_cache_dir
    )
    return MaxSimReranker(model)
