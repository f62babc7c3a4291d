"""The Container's search parts (the hybrid searcher, the optional reranker and graph expansion, the scratch
index of "as of" searches), kept beside bootstrap.py so that the wiring module stays readable. Container
inherits them; each is built once, on first use, from the ENGRAM_SEARCH_* settings."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the parts are imported when first built
    from engram.domain.ports import Embedder, GraphStore, Reranker, VectorIndex
    from engram.graph.service import GraphService
    from engram.services.graph_expansion import GraphExpansion
    from engram.services.search import HybridSearcher
    from engram.settings import Settings


class SearchWiring:
    if TYPE_CHECKING:  # what these parts use of the Container (bootstrap.py builds them)
        settings: Settings

        @property
        def index(self) -> VectorIndex: ...
        @property
        def embedder(self) -> Embedder: ...
        @property
        def graph(self) -> GraphService | None: ...
        @property
        def graph_store(self) -> GraphStore: ...
        @property
        def entity_index(self) -> VectorIndex: ...

    @cached_property
    def searcher(self) -> HybridSearcher:
        from engram.services.search import HybridSearcher

        s = self.settings
        return HybridSearcher(
            self.index,
            self.embedder,
            semantic_weight=s.search_semantic_weight,
            speaker_lift=s.search_speaker_lift,
            vector_context=s.search_vector_context,
            min_candidates=s.search_min_candidates,
            context_weight=s.search_context_weight,
            context_window_s=s.search_context_window_s,
        )

    @cached_property
    def reranker(self) -> Reranker | None:
        from engram.adapters.onnx.maxsim_reranker import from_settings

        return from_settings(self.settings)

    def graph_expansion(self) -> GraphExpansion | None:
        if self.graph is None or self.settings.search_graph_expansion <= 0:
            return None
        from engram.services.graph_expansion import GraphExpansion

        return GraphExpansion(self.graph_store, self.entity_index, self.settings.search_graph_expansion)

    def scratch_index(self) -> VectorIndex:
        """An empty in-memory index (for ranking the versions of an "as of" search)."""
        from engram.adapters.embedded.index import EmbeddedIndex

        return EmbeddedIndex(None, self.embedder.dimensions)
