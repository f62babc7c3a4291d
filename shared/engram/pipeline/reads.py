"""The memories one run of the pipeline reads, each read once.

Deciding (which memories to show the single call, near-duplicates, reconciliation) needs a memory's
text, kind and attachments, which an index that keeps its documents' memories (index_ports.FactViews,
the embedded index) holds current: those come from the index, the rest from the fact store. Changing a
memory writes its next version whole, use counts included, which only the fact store has current, so
what a change is applied to comes from the fact store (`stored`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from engram.domain.filters import ListFilters
from engram.domain.index_ports import FactViews
from engram.domain.models import Fact
from engram.domain.ports import FactStore, VectorIndex


def kept_or_stored(
    index: VectorIndex, facts: FactStore, tenant_id: str, user_id: str, ids: Sequence[str]
) -> tuple[dict[str, Fact], list[Fact]]:
    """The memories of these ids: those the index keeps, and those read from the fact store (the rest)."""
    kept = index.views(tenant_id, user_id, ids) if isinstance(index, FactViews) else {}
    missing = [i for i in ids if i not in kept]
    return kept, facts.get_many(tenant_id, missing) if missing else []


def every_current(facts: FactStore, tenant_id: str, user_id: str, wanted: ListFilters | None = None) -> list[Fact]:
    """All the user's current memories (of `wanted`), page after page: the user's whichever agent or run."""
    out: list[Fact] = []
    cursor: str | None = None
    while True:
        page = facts.list_current(tenant_id, user_id, 100, cursor, wanted or ListFilters())
        out += page.items
        if not (cursor := page.next_cursor):
            return out


@dataclass
class RunReads:
    facts: FactStore
    index: VectorIndex
    tenant_id: str
    user_id: str
    _read: dict[str, Fact] = field(default_factory=dict)
    _stored: set[str] = field(default_factory=set)

    def get_many(self, ids: Sequence[str]) -> list[Fact]:
        """The memories of these ids that exist, in no particular order; each read once per run."""
        wanted = list(dict.fromkeys(ids))
        missing = [i for i in wanted if i not in self._read]
        if missing:
            kept, stored = kept_or_stored(self.index, self.facts, self.tenant_id, self.user_id, missing)
            self._read.update(kept)
            self._read.update((f.id, f) for f in stored)
            self._stored.update(f.id for f in stored)
        return [self._read[i] for i in wanted if i in self._read]

    def wrote(self, memories: Iterable[Fact]) -> None:
        """Memories this run wrote, as stored: read from here from now on."""
        for fact in memories:
            self._read[fact.id] = fact
            self._stored.add(fact.id)

    def forget(self, memory_ids: Iterable[str]) -> None:
        """Memories changed since this run read them (the resolver outdated them): read again when asked."""
        for memory_id in memory_ids:
            self._read.pop(memory_id, None)
            self._stored.discard(memory_id)

    def stored(self, memories: Sequence[Fact]) -> list[Fact]:
        """Those of `memories` read from the fact store (a change may be applied to them as read)."""
        return [f for f in memories if f.id in self._stored]
