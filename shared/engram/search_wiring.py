"""The Container's search parts (the hybrid searcher, the optional reranker, the scratch
index of "as of" searches), kept beside bootstrap.py so that the wiring module stays readable. Container
inherits them; each is built once, on first use, from the ENGRAM_SEARCH_* settings."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the parts are imported when first built
    from engram.domain.ports import Embedder, Reranker, VectorIndex
    from engram.search.hybrid import HybridSearcher
    from engram.settings import Settings


class SearchWiring:
    if TYPE_CHECKING:  # what these parts use of the Container (bootstrap.py builds them)
        settings: Settings

        @property
        def index(self) -> VectorIndex: ...
        @property
        def embedder(self) -> Embedder: ...

    @cached_property
    def searcher(self) -> HybridSearcher:
        return hybrid_searcher(self.index, self.embedder, self.settings)

    @cached_property
    def reranker(self) -> Reranker | None:
        from engram.adapters.onnx.maxsim_reranker import from_settings

        return from_settings(self.settings)

    def scratch_index(self) -> VectorIndex:
        """An empty in-memory index (for ranking the versions of an "as of" search)."""
        from engram.adapters.embedded.index import EmbeddedIndex

        return EmbeddedIndex(None, self.embedder.dimensions)


def hybrid_searcher(index: VectorIndex, embedder: Embedder, settings: Settings, **fields: Any) -> HybridSearcher:
    """HybridSearcher with the ENGRAM_SEARCH_* weights; `fields` on top (the bench labs try other values)."""
    from engram.search.hybrid import HybridSearcher

    s = settings
    configured: dict[str, Any] = {
        "semantic_weight": s.search_semantic_weight,
        "speaker_lift": s.search_speaker_lift,
        "vector_context": s.search_vector_context,
        "min_candidates": s.search_min_candidates,
        "context_weight": s.search_context_weight,
        "context_window_s": s.search_context_window_s,
    }
    return HybridSearcher(index, embedder, **(configured | fields))
