"""Repair: make the index hold exactly the current facts of each user (DESIGN: 1:1, proven here).

Facts missing from the index are re-embedded and indexed; index documents without a current fact
are deleted. Running it twice in a row changes nothing the second time.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from aws_lambda_powertools import Logger

from engram.domain.models import Fact
from engram.domain.ports import Embedder, FactStore, VectorIndex
from engram.maintenance.scanner import FactScanner, ScopeKey
from engram.writes.unit_of_work import index_doc

logger = Logger(child=True)

EMBED_BATCH = 64


class EntityVectorRepair(Protocol):
    """Graph memory's hook: re-index missing entity names, drop strays; (re-indexed, dropped)."""

    def repair_vectors(self, tenant_id: str, user_id: str) -> tuple[int, int]: ...


@dataclass
class RepairService:
    scanner: FactScanner
    facts: FactStore
    index: VectorIndex
    embedder: Embedder
    batch_size: int = EMBED_BATCH
    graph: EntityVectorRepair | None = None

    def run(self, scopes: Iterable[ScopeKey] | None = None) -> dict[str, int]:
        counts = {"scopes": 0, "reindexed": 0, "orphans_removed": 0}
        for tenant_id, user_id in self.scanner.scopes() if scopes is None else scopes:
            reindexed, removed = self.repair_scope(tenant_id, user_id)
            counts["scopes"] += 1
            counts["reindexed"] += reindexed
            counts["orphans_removed"] += removed
            if self.graph is not None:
                # Reported only when the graph's vectors drifted, so a clean run's report is unchanged.
                for key, n in zip(
                    ("entities_reindexed", "entity_orphans_removed"),
                    self.graph.repair_vectors(tenant_id, user_id),
                    strict=True,
                ):
                    if n:
                        counts[key] = counts.get(key, 0) + n
        return counts

    def repair_scope(self, tenant_id: str, user_id: str) -> tuple[int, int]:
        # Index first, facts second: a fact added in between then shows up as "missing" (re-indexing
        # it is harmless) rather than its document showing up as an orphan.
        indexed = self.index.ids(tenant_id, user_id)
        current = {f.id: f for f in self.scanner.current(tenant_id, user_id)}
        missing = self._confirmed_current(tenant_id, user_id, [i for i in current if i not in indexed])
        # The scanner's listing may lag behind writes (GSI); a strongly consistent read decides.
        suspects = sorted(indexed - current.keys())
        still_current = {f.id for f in self._confirmed_current(tenant_id, user_id, suspects)}
        orphans = [i for i in suspects if i not in still_current]
        for start in range(0, len(missing), self.batch_size):
            batch = missing[start : start + self.batch_size]
            vectors = self.embedder.embed([f.text for f in batch])
            self.index.upsert([index_doc(f, v) for f, v in zip(batch, vectors, strict=True)])
        if orphans:
            self.index.delete(tenant_id, user_id, orphans)
        if missing or orphans:
            logger.info(
                "repaired index drift",
                extra={"tenant_id": tenant_id, "user_id": user_id, "reindexed": len(missing), "orphans": len(orphans)},
            )
        return len(missing), len(orphans)

    def _confirmed_current(self, tenant_id: str, user_id: str, ids: Sequence[str]) -> list[Fact]:
        if not ids:
            return []
        return [f for f in self.facts.get_many(tenant_id, ids) if f.user_id == user_id and f.is_current]
