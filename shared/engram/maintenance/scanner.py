"""How maintenance walks the store: every (tenant, user) that has current facts, then their facts.

Defined here rather than in domain/ports.py because only the maintenance jobs need a whole-table
walk; the request paths always know their scope.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Protocol

from engram.domain.models import Fact

ScopeKey = tuple[str, str]  # (tenant_id, user_id)


class FactScanner(Protocol):
    def scopes(self) -> Iterator[ScopeKey]:
        """Each (tenant_id, user_id) with at least one current fact, once."""
        ...

    def current(self, tenant_id: str, user_id: str) -> list[Fact]:
        """Every current fact of one user (all pages)."""
        ...


def select_scopes(scanner: FactScanner, tenant_id: str | None = None, user_id: str | None = None) -> Iterable[ScopeKey]:
    """The scopes a run covers: one user when both ids are given, one tenant, or everyone.

    A named user is returned even when the scan would not list them (no current facts left), so
    that a targeted repair can still clear that user's orphaned index documents.
    """
    if user_id is not None:
        if tenant_id is None:
            raise ValueError("user_id needs tenant_id")
        return [(tenant_id, user_id)]
    if tenant_id is not None:
        return (scope for scope in scanner.scopes() if scope[0] == tenant_id)
    return scanner.scopes()
