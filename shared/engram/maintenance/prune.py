"""Prune: keep each user's current memories at or under a cap by closing the least valuable ones.

Least valuable first: lowest importance, then least recently used (never used counts as oldest),
then oldest. Protected memories are never closed, even when they alone exceed the cap. Closed
memories keep their history (soft delete) and leave the index; attachments no memory holds any
more lose their bytes, as with a delete through the API.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

from aws_lambda_powertools import Logger

from engram.domain.models import Fact
from engram.maintenance.scanner import FactScanner, ScopeKey
from engram.writes.unit_of_work import Lifecycle

logger = Logger(child=True)

ACTOR = "maintenance"
DEFAULT_CAP = 2000
_NEVER = datetime.min.replace(tzinfo=UTC)


def _aware(dt: datetime) -> datetime:
    return dt if dt.tzinfo is not None else dt.replace(tzinfo=UTC)


def prune_order(fact: Fact) -> tuple[float, datetime, datetime, str]:
    """Sort key, least valuable first."""
    last_used = _aware(fact.last_accessed_at) if fact.last_accessed_at is not None else _NEVER
    return (fact.importance, last_used, _aware(fact.created_at), fact.id)


@dataclass
class PruneService:
    scanner: FactScanner
    lifecycle: Lifecycle
    cap: int = DEFAULT_CAP

    def __post_init__(self) -> None:
        if self.cap < 0:
            raise ValueError("cap must not be negative")

    def run(self, scopes: Iterable[ScopeKey] | None = None) -> dict[str, int]:
        counts = {"scopes": 0, "over_cap": 0, "pruned": 0, "conflicts": 0}
        for tenant_id, user_id in self.scanner.scopes() if scopes is None else scopes:
            counts["scopes"] += 1
            current = self.scanner.current(tenant_id, user_id)
            if len(current) <= self.cap:
                continue
            counts["over_cap"] += 1
            pruned, conflicts = self._prune(tenant_id, user_id, current)
            counts["pruned"] += pruned
            counts["conflicts"] += conflicts
        return counts

    def _prune(self, tenant_id: str, user_id: str, current: list[Fact]) -> tuple[int, int]:
        excess = len(current) - self.cap
        victims = sorted((f for f in current if not f.is_protected), key=prune_order)[:excess]
        changes = self.lifecycle.changes(tenant_id, user_id)
        closed, conflicts = changes.close_each(victims, ACTOR, note="pruned")
        changes.commit()
        if len(victims) < excess:
            logger.warning(
                "protected memories alone exceed the cap",
                extra={"tenant_id": tenant_id, "user_id": user_id, "cap": self.cap, "current": len(current)},
            )
        logger.info("pruned", extra={"tenant_id": tenant_id, "user_id": user_id, "closed": closed})
        return closed, conflicts
