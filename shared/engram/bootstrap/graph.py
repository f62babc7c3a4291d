"""Graph memory: the entity store, the entities' own index, and the service (None when ENGRAM_GRAPH=off)."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from engram.bootstrap.clients import Clients
from engram.bootstrap.models import Models
from engram.bootstrap.search import vector_index
from engram.settings import Settings

if TYPE_CHECKING:
    from engram.domain.ports import GraphStore, VectorIndex
    from engram.graph.service import GraphService


class Graph:
    def __init__(self, settings: Settings, clients: Clients, models: Models) -> None:
        self.settings = settings
        self.clients = clients
        self.models = models

    @cached_property
    def graph_store(self) -> GraphStore:
        from engram.adapters.dynamo.graph_store import DynamoGraphStore

        return DynamoGraphStore(self.clients.aws.dynamodb, self.settings.memory_table)

    @cached_property
    def entity_index(self) -> VectorIndex:
        """Entity names, in an index of their own so that memory search never sees them."""
        s = self.settings
        return vector_index(s, self.models.embedder, s.opensearch_entity_index, "entities.sqlite3")

    @cached_property
    def graph(self) -> GraphService | None:
        """None when ENGRAM_GRAPH=off."""
        if not self.settings.graph:
            return None
        from engram.graph.service import GraphService

        llm = self.models.llm
        extractor = None
        if llm is not None:
            from engram.graph.llm import LLMGraphExtractor

            extractor = LLMGraphExtractor(llm, self.graph_store)
        return GraphService(
            self.graph_store,
            self.entity_index,
            self.models.embedder,
            extractor,
            resolve_threshold=self.settings.graph_resolve_threshold,
            search_similarity=self.settings.graph_search_similarity,
        )
