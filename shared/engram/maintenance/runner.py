"""Builds the maintenance jobs from a Container and runs one of them over the selected scopes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from engram.maintenance.prune import DEFAULT_CAP, PruneService
from engram.maintenance.repair import RepairService
from engram.maintenance.scanner import FactScanner, select_scopes
from engram.maintenance.summarise import SummariseService, skipped_report

if TYPE_CHECKING:
    from engram.bootstrap import Container

Action = Literal["repair", "summarise", "prune"]


class MaintenanceRunner:
    def __init__(
        self,
        container: Container,
        scanner: FactScanner | None = None,
        *,
        prune_cap: int = DEFAULT_CAP,
        min_age_days: float = 30,
        similarity: float = 0.85,
        min_cluster_size: int = 3,
    ) -> None:
        self._c = container
        self._scanner = scanner
        self._prune_cap = prune_cap
        self._min_age_days = min_age_days
        self._similarity = similarity
        self._min_cluster_size = min_cluster_size

    @property
    def scanner(self) -> FactScanner:
        if self._scanner is None:
            from engram.adapters.dynamo_fact_scanner import DynamoFactScanner

            self._scanner = DynamoFactScanner(self._c.aws.dynamodb, self._c.settings.memory_table)
        return self._scanner

    def repair(self) -> RepairService:
        return RepairService(self.scanner, self._c.facts, self._c.index, self._c.embedder)

    def summarise(self) -> SummariseService:
        return SummariseService(
            self.scanner,
            self._c.facts,
            self._c.index,
            self._c.embedder,
            self._c.llm,
            attachments=self._c.attachment_store,
            blobs=self._c.blobs,
            min_age_days=self._min_age_days,
            similarity=self._similarity,
            min_cluster_size=self._min_cluster_size,
        )

    def prune(self) -> PruneService:
        return PruneService(
            self.scanner,
            self._c.facts,
            self._c.index,
            attachments=self._c.attachment_store,
            blobs=self._c.blobs,
            cap=self._prune_cap,
        )

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
        elif action == "summarise":
            if self._c.llm is None:
                # Decided before anything is built: no scan, no embedding model load.
                report = skipped_report()
            else:
                report = self.summarise().run(scopes)
        else:
            report = self.prune().run(scopes)
        return {"action": action, "execution_id": execution_id, **report}
