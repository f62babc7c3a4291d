"""Search: the memories' vector index and the ranking MemoryService searches with (ENGRAM_SEARCH_*)."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from engram.bootstrap.models import Models
from engram.settings import Settings

if TYPE_CHECKING:
    from engram.domain.ports import Embedder, VectorIndex
    from engram.search.hybrid import HybridSearcher
    from engram.search.pipeline import SearchPipeline


def vector_index(settings: Settings, embedder: Embedder, opensearch_index: str, local_file: str) -> VectorIndex:
    """An OpenSearch index, or the embedded one in the data folder (memories and entities each have
    their own, so memory search never sees an entity)."""
    if settings.index_backend == "opensearch":
        from engram.adapters.opensearch.index import OpenSearchIndex, build_client

        index = OpenSearchIndex(
            build_client(settings), opensearch_index, embedder.dimensions, engine=settings.opensearch_knn_engine
        )
        index.ensure_index()
        return index
    from engram.adapters.embedded.index import EmbeddedIndex

    settings.data_dir.mkdir(parents=True, exist_ok=True)
    return EmbeddedIndex(settings.data_dir / local_file, embedder.dimensions)


class Search:
    def __init__(self, settings: Settings, models: Models) -> None:
        self.settings = settings
        self.models = models

    @cached_property
    def index(self) -> VectorIndex:
        return vector_index(self.settings, self.models.embedder, self.settings.opensearch_index, "index.sqlite3")

    def scratch_index(self) -> VectorIndex:
        """An empty in-memory index (for ranking the versions of an "as of" search)."""
        from engram.adapters.embedded.index import EmbeddedIndex

        return EmbeddedIndex(None, self.models.embedder.dimensions)

    @cached_property
    def searcher(self) -> HybridSearcher:
        from engram.search.hybrid import hybrid_searcher

        return hybrid_searcher(self.index, self.models.embedder, self.settings)

    @cached_property
    def search_pipeline(self) -> SearchPipeline:
        """The hybrid searcher and the stages after it, as the settings name them (search/pipeline.py)."""
        from engram.search.pipeline import SearchPipeline, stages_from_settings

        return SearchPipeline(self.searcher, stages_from_settings(self.settings, self.models.reranker))
