"""What an index may offer beyond VectorIndex: callers check with isinstance and use it when there."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Protocol, runtime_checkable

from engram.domain.models import Fact, ScoredId, SearchFilters
from engram.domain.ports import VectorIndex


@runtime_checkable
class HybridCandidates(Protocol):
    """An index that answers knn() and text_search() of one search in one round trip (OpenSearch)."""

    def hybrid(
        self,
        tenant_id: str,
        user_id: str,
        vector: Sequence[float],
        query: str,
        k: int,
        filters: SearchFilters | None = None,
    ) -> tuple[list[ScoredId], list[ScoredId]]: ...


@runtime_checkable
class ManyKnn(Protocol):
    """An index that answers several knn() searches of one user in one round trip (OpenSearch's _msearch)."""

    def knn_many(
        self,
        tenant_id: str,
        user_id: str,
        vectors: Sequence[Sequence[float]],
        k: int,
        filters: SearchFilters | None = None,
    ) -> list[list[ScoredId]]:
        """knn() of each vector, in order."""
        ...


def knn_each(
    index: VectorIndex,
    tenant_id: str,
    user_id: str,
    vectors: Sequence[Sequence[float]],
    k: int,
    filters: SearchFilters | None = None,
) -> list[list[ScoredId]]:
    """knn() of each vector, in one request where the index can (every hit as knn() gives it)."""
    if not vectors:
        return []
    if isinstance(index, ManyKnn) and len(vectors) > 1:
        return index.knn_many(tenant_id, user_id, vectors, k, filters)
    return [index.knn(tenant_id, user_id, vector, k, filters) for vector in vectors]


@runtime_checkable
class FactViews(Protocol):
    """An index that keeps each document's memory (IndexDoc.fact), so that search hits need no read of
    the fact store. The lifecycle keeps it current: every change that writes a memory re-indexes it or
    calls update_views in the same commit. Use counts (access_count, last_accessed_at) are the ones of
    the memory's last change, since a search's touches are written to the fact store only."""

    def views(self, tenant_id: str, user_id: str, memory_ids: Sequence[str]) -> dict[str, Fact]:
        """The kept memories of these ids (ids without one, or of another user, are left out)."""
        ...

    def update_views(self, facts: Sequence[Fact]) -> None:
        """Replace the kept memory of documents whose indexed fields did not change."""
        ...


@runtime_checkable
class Timeline(Protocol):
    """An index that knows the order in which a user's memories were recorded (both of ours do)."""

    def neighbours(
        self,
        tenant_id: str,
        user_id: str,
        memory_ids: Sequence[str],
        filters: SearchFilters | None = None,
        within_seconds: float = 1800.0,
    ) -> dict[str, list[str]]:
        """For each id, the memories matching `filters` recorded just before and just after it,
        if no more than `within_seconds` apart."""
        ...


@runtime_checkable
class ContextVectors(Protocol):
    """An index that can score a query against each memory blended with the memories recorded just
    before and after it (adapters/embedded/context.py explains the blend)."""

    def knn_in_context(
        self,
        tenant_id: str,
        user_id: str,
        vector: Sequence[float],
        k: int,
        weights: Sequence[float],
        within_seconds: float = 1800.0,
        filters: SearchFilters | None = None,
    ) -> list[ScoredId]: ...


@runtime_checkable
class Speakers(Protocol):
    """An index that knows who said each memory: the `speaker` metadata, which an episode records
    from its message's name (and a client storing raw turns sets). The embedded index does."""

    def speakers_among(self, tenant_id: str, user_id: str, names: Collection[str]) -> set[str]:
        """The given names that are the speaker of at least one of the user's memories."""
        ...

    def spoken_by(self, tenant_id: str, user_id: str, memory_ids: Sequence[str], speakers: Collection[str]) -> set[str]:
        """The given memories whose speaker is one of `speakers`."""
        ...
