"""Expire: close the memories whose `expires_at` has passed (note "expired"); reads already hide them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from engram.domain.errors import ConflictError
from engram.domain.models import utcnow
from engram.maintenance.scanner import FactScanner, ScopeKey
from engram.pipeline.lifecycle import Lifecycle

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
            for fact in due:
                try:
                    changes.close(fact, ACTOR, note="expired", when=fact.expires_at)
                except ConflictError:
                    counts["conflicts"] += 1  # changed since it was listed: the next run looks again
                    continue
                counts["expired"] += 1
            changes.commit()
        return counts
