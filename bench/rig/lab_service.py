"""The product's search for the fast labs: MemoryService as the container wires it (bench/doubles/in_memory.py),
over an EmbeddedIndex whose documents carry their memories (so the fact store is never read), with the
search settings read from the environment as the bootstrap reads them (ENGRAM_SEARCH_RERANKER, ...).
The labs thus measure MemoryService.search (HybridSearcher + rank_by_time + intent rerank + the
optional reranker), not a copy of it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bench.doubles.in_memory import in_memory_product
from engram.adapters.embedded.index import EmbeddedIndex
from engram.domain.models import Fact
from engram.domain.ports import Embedder
from engram.search.hybrid import hybrid_searcher
from engram.services.memory import MemoryService
from engram.writes.unit_of_work import index_doc


def lab_service(
    facts: Sequence[Fact], vectors: Sequence[Sequence[float]], embedder: Embedder, **searcher_fields: Any
) -> MemoryService:
    """A MemoryService holding these memories (one vector each), searched as `make run` searches."""
    index = EmbeddedIndex(None, len(vectors[0]) if vectors else 384)
    index.upsert([index_doc(f, v) for f, v in zip(facts, vectors, strict=True)])
    engram = in_memory_product(embedder, None, index=index)
    if searcher_fields:  # the lab's key=value fields on top of the ENGRAM_SEARCH_* settings
        engram.replace(searcher=hybrid_searcher(index, embedder, engram.settings, **searcher_fields))
    return engram.memories
