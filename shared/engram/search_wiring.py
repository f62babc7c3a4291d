"""The Container's search parts (the hybrid searcher, the optional reranker and graph expansion, the scratch
index of "as of" searches), kept beside bootstrap.py so that the wiring module stays readable. Container
inherits them; each is built once, on first use, from the ENGRAM_SEARCH_* settings."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the parts are imported when first built
    from engram.domain.ports import LLM, Embedder, GraphStore, Reranker, VectorIndex
    from engram.graph.service import GraphService
    from engram.operations.accounting import Accounting
    from engram.search.graph_expansion import GraphExpansion
    from engram.search.hybrid import HybridSearcher, Searcher
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
        @property
        def llm(self) -> LLM | None: ...
        @property
        def accounting(self) -> Accounting: ...

    @cached_property
    def searcher(self) -> HybridSearcher:
        return hybrid_searcher(self.index, self.embedder, self.settings)

    def ranked_searcher(self) -> Searcher:
        """The hybrid searcher, wrapped to search a question's sub-queries too when configured: split
        offline (ENGRAM_SEARCH_DECOMPOSE) or by the LLM (ENGRAM_SEARCH_REWRITE=llm, share 0.9 unless set)."""
        from engram.search.decompose import decomposing

        s = self.settings
        if s.search_rewrite != "llm" or self.llm is None:
            return decomposing(self.searcher, s.search_decompose, s.search_decompose_head)
        from engram.search.query_rewrite import LLMQueryRewriter

        rewriter = LLMQueryRewriter(self.llm, self.accounting.search_llm)
        return decomposing(self.searcher, s.search_decompose or 0.9, s.search_decompose_head, rewriter)

    @cached_property
    def reranker(self) -> Reranker | None:
        from engram.adapters.onnx.maxsim_reranker import from_settings

        return from_settings(self.settings)

    def graph_expansion(self) -> GraphExpansion | None:
        if self.graph is None or self.settings.search_graph_expansion <= 0:
            return None
        from engram.search.graph_expansion import GraphExpansion

        return GraphExpansion(self.graph_store, self.entity_index, self.settings.search_graph_expansion)

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
