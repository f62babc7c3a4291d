"""The product's search for the fast labs: a real MemoryService over an EmbeddedIndex whose documents
carry their memories (so the fact store is never read), with in-memory fakes for the other ports and
the search settings read from the environment as the bootstrap reads them (ENGRAM_SEARCH_RERANKER,
...). The labs thus measure MemoryService.search (HybridSearcher + rank_by_time + intent rerank + the
optional reranker), not a copy of it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engram.adapters.embedded.index import EmbeddedIndex
from engram.adapters.onnx.maxsim_reranker import from_settings
from engram.domain.models import Fact
from engram.domain.ports import Embedder
from engram.search.hybrid import hybrid_searcher
from engram.search.pipeline import SearchPipeline, stages_from_settings
from engram.services.memory import MemoryService
from engram.settings import Settings
from engram.writes.unit_of_work import index_doc
from tests.fakes import MemoryFactStore, MemoryQueue, MemoryTaskStore


def lab_service(
    facts: Sequence[Fact], vectors: Sequence[Sequence[float]], embedder: Embedder, **searcher_fields: Any
) -> MemoryService:
    """A MemoryService holding these memories (one vector each), searched as `make run` searches."""
    index = EmbeddedIndex(None, len(vectors[0]) if vectors else 384)
    index.upsert([index_doc(f, v) for f, v in zip(facts, vectors, strict=True)])
    s = Settings()
    # As the bootstrap builds it (the ENGRAM_SEARCH_* settings), key=value fields of the lab on top.
    searcher = hybrid_searcher(index, embedder, s, **searcher_fields)
    return MemoryService(
        facts=MemoryFactStore(),
        index=index,
        embedder=embedder,
        tasks=MemoryTaskStore(),
        queue=MemoryQueue(),
        search_pipeline=SearchPipeline(searcher, stages_from_settings(s, from_settings(s))),
    )
