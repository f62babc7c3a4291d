"""The memories the embedded index keeps beside its documents (index_ports.FactViews), so that a search
answers from the index alone: reading the hits back from DynamoDB (moto, locally) was half of a
search's time through `make run`.

Persistent indexes keep them in the `fact` column of their SQLite rows (read back by primary key,
never held in memory: 100k memories of JSON would be ~100 MB); memory-only ones in a dict.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence

from engram.adapters.embedded.sqlite import sqlite_errors
from engram.domain.models import Fact, IndexDoc

UserKey = tuple[str, str]
UPDATE_FACT = "UPDATE index_docs SET fact = ? WHERE tenant_id = ? AND user_id = ? AND id = ?"


class ViewStore:
    def __init__(self, db: sqlite3.Connection | None) -> None:
        self._db = db
        self._memory: dict[UserKey, dict[str, str]] = {}

    def put(self, docs: Sequence[IndexDoc]) -> None:
        """After an upsert (whose SQLite rows already hold the memory)."""
        if self._db is not None:
            return
        for doc in docs:
            kept = self._memory.setdefault((doc.tenant_id, doc.user_id), {})
            if doc.fact is None:
                kept.pop(doc.id, None)
            else:
                kept[doc.id] = doc.fact.model_dump_json()

    def update(self, facts: Sequence[Fact]) -> None:
        """New versions of memories whose documents are indexed already (others are ignored)."""
        if self._db is not None:
            rows = [(f.model_dump_json(), f.tenant_id, f.user_id, f.id) for f in facts]
            with sqlite_errors(), self._db:
                self._db.executemany(UPDATE_FACT, rows)
            return
        for fact in facts:
            kept = self._memory.get((fact.tenant_id, fact.user_id), {})
            if fact.id in kept:
                kept[fact.id] = fact.model_dump_json()

    def remove(self, tenant_id: str, user_id: str, memory_ids: Sequence[str]) -> None:
        kept = self._memory.get((tenant_id, user_id), {})
        for memory_id in memory_ids:
            kept.pop(memory_id, None)

    def get(self, tenant_id: str, user_id: str, memory_ids: Sequence[str]) -> dict[str, Fact]:
        if self._db is None:
            kept = self._memory.get((tenant_id, user_id), {})
            found = {i: kept[i] for i in memory_ids if i in kept}
        else:
            marks = ",".join("?" * len(memory_ids))
            # Only "?" placeholders are formatted in; the ids are bound parameters.
            query = f"SELECT id, fact FROM index_docs WHERE tenant_id = ? AND user_id = ? AND id IN ({marks})"  # noqa: S608
            with sqlite_errors():
                rows = self._db.execute(query, (tenant_id, user_id, *memory_ids)).fetchall()
            found = {i: text for i, text in rows if text is not None}
        return {i: Fact.model_validate_json(text) for i, text in found.items()}


class FactViewsOf:
    """index_ports.FactViews for the embedded index (which sets `_lock` and `_views`)."""

    _lock: threading.RLock
    _views: ViewStore

    def views(self, tenant_id: str, user_id: str, memory_ids: Sequence[str]) -> dict[str, Fact]:
        if not memory_ids:
            return {}
        with self._lock:
            return self._views.get(tenant_id, user_id, memory_ids)

    def update_views(self, facts: Sequence[Fact]) -> None:
        if facts:
            with self._lock:
                self._views.update(facts)
