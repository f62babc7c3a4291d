"""Filters of memory listings, and the one reading of them for stores that filter in Python."""

from __future__ import annotations

from collections.abc import Sequence

from engram.domain.models import Fact, SearchFilters
from engram.domain.statements import Statement


class ListFilters(SearchFilters):
    """Search filters plus what only the fact store knows (the index holds neither)."""

    is_protected: bool | None = None
    fact_key: str | None = None


def matches(fact: Fact, filters: SearchFilters | None) -> bool:
    if filters is None:
        return True
    wanted = {
        "agent_id": filters.agent_id,
        "run_id": filters.run_id,
        "memory_bank": filters.memory_bank,
        "is_protected": getattr(filters, "is_protected", None),
        "fact_key": getattr(filters, "fact_key", None),
    }
    have = {**{k: getattr(fact, k) for k in wanted}, "memory_bank": fact.memory_bank.value}
    if any(value is not None and have[k] != value for k, value in wanted.items()):
        return False
    if not states(fact.statements, filters):
        return False
    return all(fact.metadata.get(k) == v for k, v in filters.metadata.items())


def states(statements: Sequence[Statement], filters: SearchFilters) -> bool:
    """Whether one of the statements is of the filters' attribute and subject (when they name them)."""
    if filters.attribute is None and filters.subject is None:
        return True
    return any(filters.attribute in (None, s.attribute) and filters.subject in (None, s.subject) for s in statements)
