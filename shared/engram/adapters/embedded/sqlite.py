"""SQLite persistence of the embedded index: one row per document, written before memory changes."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import numpy.typing as npt

from engram.adapters.embedded.keys import stated_keys
from engram.domain.errors import EngramError, IndexUnavailableError
from engram.domain.models import IndexDoc

SCHEMA = """
CREATE TABLE IF NOT EXISTS index_docs (
    tenant_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    id TEXT NOT NULL,
    agent_id TEXT,
    run_id TEXT,
    memory_bank TEXT NOT NULL,
    metadata TEXT NOT NULL,
    text TEXT NOT NULL,
    created_at TEXT NOT NULL,
    vector BLOB NOT NULL,
    fact TEXT,
    stated TEXT,
    PRIMARY KEY (tenant_id, user_id, id)
)
"""
UPSERT = (
    "INSERT OR REPLACE INTO index_docs (tenant_id, user_id, id, agent_id, run_id, memory_bank, "
    "metadata, text, created_at, vector, fact, stated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
LOAD = (
    "SELECT id, agent_id, run_id, memory_bank, metadata, text, vector, created_at, stated FROM index_docs "
    "WHERE tenant_id = ? AND user_id = ? ORDER BY created_at"
)
DELETE = "DELETE FROM index_docs WHERE tenant_id = ? AND user_id = ? AND id = ?"


def create_schema(db: sqlite3.Connection) -> None:
    db.execute(SCHEMA)
    # Files written before the index kept memories get the column; their rows stay NULL (those hits
    # are read from the fact store until the memory next changes).
    columns = {row[1] for row in db.execute("PRAGMA table_info(index_docs)")}
    if "fact" not in columns:
        db.execute("ALTER TABLE index_docs ADD COLUMN fact TEXT")
    # Likewise for what memories state: rows written before it state nothing until the memory next changes.
    if "stated" not in columns:
        db.execute("ALTER TABLE index_docs ADD COLUMN stated TEXT")
    db.commit()


@contextmanager
def sqlite_errors() -> Iterator[None]:
    """Turn sqlite3 errors into domain errors (a busy file is worth a retry)."""
    try:
        yield
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc).lower() or "busy" in str(exc).lower():
            raise IndexUnavailableError(f"embedded index busy: {exc}") from exc
        raise EngramError(f"embedded index storage failed: {exc}") from exc
    except sqlite3.Error as exc:
        raise EngramError(f"embedded index storage failed: {exc}") from exc


def db_row(doc: IndexDoc, unit: npt.NDArray[np.float32]) -> tuple[object, ...]:
    metadata = json.dumps(doc.metadata, default=str)
    return (
        doc.tenant_id,
        doc.user_id,
        doc.id,
        doc.agent_id,
        doc.run_id,
        doc.memory_bank,
        metadata,
        doc.text,
        doc.created_at.isoformat(),
        unit.astype("<f4").tobytes(),
        doc.fact.model_dump_json() if doc.fact is not None else None,  # views.py reads it
        json.dumps(stated_keys(doc.statements), ensure_ascii=False) if doc.statements else None,
    )


def stated_of(column: str | None) -> list[tuple[str, str]]:
    """The (subject, attribute) pairs a row's `stated` column holds (none for rows written before it)."""
    return [(subject, attribute) for subject, attribute in json.loads(column)] if column else []
