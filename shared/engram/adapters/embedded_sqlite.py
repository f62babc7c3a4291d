"""SQLite persistence of the embedded index: one row per document, written before memory changes."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import numpy.typing as npt

from engram.domain.errors import EngramError, TransientError
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
    PRIMARY KEY (tenant_id, user_id, id)
)
"""
UPSERT = (
    "INSERT OR REPLACE INTO index_docs (tenant_id, user_id, id, agent_id, run_id, memory_bank, "
    "metadata, text, created_at, vector) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
LOAD = (
    "SELECT id, agent_id, run_id, memory_bank, metadata, text, vector, created_at FROM index_docs "
    "WHERE tenant_id = ? AND user_id = ? ORDER BY created_at"
)
DELETE = "DELETE FROM index_docs WHERE tenant_id = ? AND user_id = ? AND id = ?"


@contextmanager
def sqlite_errors() -> Iterator[None]:
    """Turn sqlite3 errors into domain errors (a busy file is worth a retry)."""
    try:
        yield
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc).lower() or "busy" in str(exc).lower():
            raise TransientError(f"embedded index busy: {exc}") from exc
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
    )
