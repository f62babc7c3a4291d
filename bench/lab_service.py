"""The product's search for the fast labs: a real MemoryService over an EmbeddedIndex whose documents
carry their memories (so the fact store is never read), with in-memory fakes for the other ports and
the search settings read from the environment as the bootstrap reads them (ENGRAM_SEARCH_DIVERSITY,
...). The labs thus measure MemoryService.search (HybridSearcher + rank_by_time + intent rerank +
diversify), not a copy of it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engram.adapters.embedded_index import EmbeddedIndex
from engram.domain.models import Fact
from engram.domain.ports import Embedder
from engram.pipeline.lifecycle import index_doc
from engram.services.decompose import DecomposingSearcher
from engram.services.memory import MemoryService
from engram.services.search import HybridSearcher, Searcher
from engram.settings import Settings
from tests.fakes import MemoryFactStore, MemoryQueue, MemoryTaskStore


def lab_service(
    facts: Sequence[Fact], vectors: Sequence[Sequence[float]], embedder: Embedder, **searcher_fields: Any
) -> MemoryService:
    """A MemoryService holding these memories (one vector each), searched as `make run` searches."""
    index = EmbeddedIndex(None, len(vectors[0]) if vectors else 384)
    index.upsert([index_doc(f, v) for f, v in zip(facts, vectors, strict=True)])
    settings = Settings()
    decompose = float(searcher_fields.pop("decompose", 0.0))  # > 0: sub-queries joined at this share
    searcher: Searcher = HybridSearcher(index, embedder, **searcher_fields)
    head = searcher_fields.pop("decompose_head", None)  # an int: interleave after the question's top few
    if decompose > 0:
        searcher = DecomposingSearcher(searcher, decompose, head)
    return MemoryService(
        facts=MemoryFactStore(),
        index=index,
        embedder=embedder,
        tasks=MemoryTaskStore(),
        queue=MemoryQueue(),
        searcher=searcher,
        diversity=settings.search_diversity,
        diversity_gap_s=settings.search_diversity_gap_s,
    )
