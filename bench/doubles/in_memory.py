"""The product as the container wires it (engram.bootstrap), over in-memory stores instead of AWS.

The bench's in-process parts and labs build Engram here, so what they measure is the product's own
wiring (its extractor, reconciler, plan checks, policy screen, search stages, as the settings say),
never a copy of it that can miss a step: a copy without the screen by meaning once gave a false leak
figure. Only where the data is kept differs: the fakes of tests/fakes.py, and in-memory indexes."""

from __future__ import annotations

from typing import Any

from engram.adapters.embedded.index import EmbeddedIndex
from engram.bootstrap import Container
from engram.domain.ports import LLM, Embedder
from engram.settings import Settings
from tests.fakes import (
    MemoryAttachmentStore,
    MemoryBlobs,
    MemoryFactStore,
    MemoryGraphStore,
    MemoryQueue,
    MemoryTaskStore,
    MemoryUserDirectory,
)


def in_memory_product(embedder: Embedder, llm: LLM | None, settings: Settings | None = None, **parts: Any) -> Container:
    """Engram with `embedder` and `llm` (None: the offline extractor and reconciler, whatever the
    environment says), its stores in memory; `parts` replace more by name (an index that holds data)."""
    stores: dict[str, Any] = {
        "facts": MemoryFactStore(),
        "tasks": MemoryTaskStore(),
        "queue": MemoryQueue(),
        "blobs": MemoryBlobs(),
        "attachment_store": MemoryAttachmentStore(),
        "users": MemoryUserDirectory(),
        "graph_store": MemoryGraphStore(),
        "index": EmbeddedIndex(None, embedder.dimensions),
        "entity_index": EmbeddedIndex(None, embedder.dimensions),
    }
    return Container(settings or Settings(), embedder=embedder, llm=llm, **(stores | parts))
