"""Runs one maintenance job over the selected scopes, on the ports it needs (wired by bootstrap)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from engram.domain.ports import LLM
from engram.maintenance.dedupe import DedupeService
from engram.maintenance.expire import ExpireService
from engram.maintenance.prune import DEFAULT_CAP, PruneService
from engram.maintenance.repair import EntityVectorRepair, RepairService
from engram.maintenance.scanner import FactScanner, select_scopes
from engram.maintenance.summarise import SummariseService, skipped_report
from engram.writes.unit_of_work import Lifecycle

Action = Literal["repair", "dedupe", "summarise", "prune", "expire"]
SCOPES_PAGE = 100  # users per Map iteration: each item's input stays far below the 256 KB state limit


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
        actions: list[Action] | None = None,
    ) -> dict[str, Any]:
        if actions is not None and action not in actions:
            return {"action": action, "execution_id": execution_id, "skipped": "not requested"}
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

    def list_scopes(
        self,
        tenant_id: str | None = None,
        user_id: str | None = None,
        cursor: str | None = None,
        actions: list[Action] | None = None,
        page_size: int = SCOPES_PAGE,
    ) -> dict[str, Any]:
        """One page of the users a run covers, for the state machine's per-user Map.

        The cursor is the last (tenant, user) of the previous page; scopes are taken in sorted order
        so that pages neither overlap nor skip a user whatever order the table scan returns.
        """
        after = tuple(json.loads(cursor)) if cursor else None
        chosen = sorted(s for s in select_scopes(self.scanner, tenant_id, user_id) if after is None or s > after)
        page = chosen[:page_size]
        more = len(chosen) > page_size
        return {
            "tenant_id": tenant_id,
            "user_id": user_id,
            "actions": actions,
            "users": [{"tenant_id": t, "user_id": u, "actions": actions} for t, u in page],
            "next_cursor": json.dumps(list(page[-1])) if more else None,
        }
