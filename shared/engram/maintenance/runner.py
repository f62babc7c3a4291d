"""Runs one maintenance job over the selected scopes, on the ports it needs (wired by bootstrap)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from engram.domain.ports import LLM
from engram.maintenance.dedupe import DedupeService
from engram.maintenance.expire import ExpireService
from engram.maintenance.prune import DEFAULT_CAP, PruneService
from engram.maintenance.repair import EntityVectorRepair, RepairService
from engram.maintenance.scanner import FactScanner, select_scopes
from engram.maintenance.summarise import SummariseService, skipped_report
from engram.pipeline.lifecycle import Lifecycle

Action = Literal["repair", "dedupe", "summarise", "prune", "expire"]


@dataclass(frozen=True)
class MaintenancePolicy:
    prune_cap: int = DEFAULT_CAP
    dedupe_similarity: float = 0.95
    min_age_days: float = 30
    similarity: float = 0.85
    min_cluster_size: int = 3


@dataclass
class MaintenanceRunner:
    scanner: FactScanner
    lifecycle: Lifecycle
    llm: LLM | None
    policy: MaintenancePolicy = MaintenancePolicy()
    graph: EntityVectorRepair | None = None  # graph memory's entity vectors, repaired with the facts'

    def repair(self) -> RepairService:
        life = self.lifecycle
        return RepairService(self.scanner, life.facts, life.index, life.embedder, graph=self.graph)

    def summarise(self) -> SummariseService:
        return SummariseService(
            self.scanner,
            self.lifecycle,
            self.llm,
            min_age_days=self.policy.min_age_days,
            similarity=self.policy.similarity,
            min_cluster_size=self.policy.min_cluster_size,
        )

    def dedupe(self) -> DedupeService:
        return DedupeService(self.scanner, self.lifecycle, self.policy.dedupe_similarity)

    def prune(self) -> PruneService:
        return PruneService(self.scanner, self.lifecycle, cap=self.policy.prune_cap)

    def run(
        self,
        action: Action,
        tenant_id: str | None = None,
        user_id: str | None = None,
        execution_id: str | None = None,
    ) -> dict[str, Any]:
        scopes = select_scopes(self.scanner, tenant_id, user_id)
        report: dict[str, Any]
        if action == "repair":
            report = self.repair().run(scopes)
        elif action == "dedupe":
            report = self.dedupe().run(scopes)
        elif action == "expire":
            report = ExpireService(self.scanner, self.lifecycle).run(scopes)
        elif action == "summarise":
            # Without a model there is no faithful summary: decided before any scan or embedding.
            report = skipped_report() if self.llm is None else self.summarise().run(scopes)
        else:
            report = self.prune().run(scopes)
        return {"action": action, "execution_id": execution_id, **report}
