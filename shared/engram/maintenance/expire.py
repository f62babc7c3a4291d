"""Expire: close the memories whose `expires_at` has passed (note "expired"); reads already hide them.
Protected memories never expire (Fact.expired): no automatic process closes them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from engram.domain.models import utcnow
from engram.maintenance.scanner import FactScanner, ScopeKey
from engram.writes.unit_of_work import Lifecycle

ACTOR = "maintenance"


@dataclass
class ExpireService:
    scanner: FactScanner
    lifecycle: Lifecycle

    def run(self, scopes: Iterable[ScopeKey] | None = None) -> dict[str, int]:
        counts = {"scopes": 0, "expired": 0, "conflicts": 0}
        now = utcnow()
        for tenant_id, user_id in self.scanner.scopes() if scopes is None else scopes:
            counts["scopes"] += 1
            due = [f for f in self.scanner.current(tenant_id, user_id) if f.expired(now)]
            if not due:
                continue
            changes = self.lifecycle.changes(tenant_id, user_id)
            expired, conflicts = changes.close_each(due, ACTOR, note="expired", at_expiry=True)
            counts["expired"] += expired
            counts["conflicts"] += conflicts
            changes.commit()
        return counts
