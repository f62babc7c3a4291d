"""Filters of memory listings, and the one reading of them for stores that filter in Python."""

from __future__ import annotations

from engram.domain.models import Fact, SearchFilters


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
    return all(fact.metadata.get(k) == v for k, v in filters.metadata.items())
