"""Embedded VectorIndex: exact k-NN with numpy and BM25 per user, optionally persisted in SQLite.

The local stack's stand-in for OpenSearch (and the in-memory fake in tests when `path` is None).
Each (tenant, user) has its own structures, so tenant and user isolation is structural: a query
only ever scores one user's rows. Filters become a row mask applied before top-k selection.
"""

from __future__ import annotations

import json
import math
import sqlite3
import threading
from collections import Counter
from collections.abc import Collection, Sequence
from datetime import datetime
from pathlib import Path

import numpy as np
import numpy.typing as npt

from engram.adapters.embedded.coarse import CoarseVectors
from engram.adapters.embedded.context import blend_norms, in_context
from engram.adapters.embedded.keys import FilterKey, doc_keys, stated_keys, unit_vector, wanted_keys
from engram.adapters.embedded.recording_order import RecordingOrder
from engram.adapters.embedded.sqlite import DELETE, LOAD, UPSERT, create_schema, db_row, sqlite_errors, stated_of
from engram.adapters.embedded.views import FactViewsOf, ViewStore
from engram.domain.errors import EngramError
from engram.domain.models import SPEAKER_KEY, IndexDoc, ScoredId, SearchFilters
from engram.text.terms import term_counts, tokenize

K1 = 1.2
# Less length normalisation than Lucene's 0.75: a memory that says more about a topic is not one to
# push down (LoCoMo evidence recall@10 0.710 -> 0.720). OpenSearch needs the same `b` in its index
# similarity settings to rank alike.
B = 0.4
_MIN_CAPACITY = 64
SPEAKER = f"metadata.{SPEAKER_KEY}"  # the filter key of who said a memory (index_ports.Speakers)

FloatArray = npt.NDArray[np.float32]
Context = tuple[tuple[float, ...], float]  # (neighbour weights by distance, seconds), context.py
IntArray = npt.NDArray[np.intp]
BoolArray = npt.NDArray[np.bool_]


class _UserIndex:
    """One user's documents. Rows 0..n-1 of `vectors` are live and row i holds `ids[i]`;
    a delete moves the last row into the hole so the matrix stays contiguous."""

    def __init__(self, dimensions: int) -> None:
        self.vectors: FloatArray = np.empty((0, dimensions), dtype=np.float32)
        self.lengths: FloatArray = np.empty(0, dtype=np.float32)  # BM25 document lengths
        self.recorded = RecordingOrder()
        self.coarse = CoarseVectors()
        self.ids: list[str] = []
        self.rows: dict[str, int] = {}
        self.terms: list[dict[str, int]] = []
        self.keys: list[list[FilterKey]] = []
        self.postings: dict[str, dict[int, int]] = {}  # term -> {row: term frequency}
        self.filter_rows: dict[FilterKey, set[int]] = {}
        self.total_length = 0.0
        self._masks: dict[FilterKey, BoolArray] = {}  # per-filter row masks, dropped on any write
        self._blends: dict[Context, FloatArray] = {}  # context.py norms, dropped on any write
        # A queried term's posting as arrays (rows, tf), dropped when that term's posting changes:
        # rebuilding them from the dict was half the BM25 time for common terms.
        self._arrays: dict[str, tuple[IntArray, FloatArray]] = {}

    def _reserve(self, size: int) -> None:
        capacity = self.vectors.shape[0]
        if size <= capacity:
            return
        # Doubling keeps appends amortised O(1) per row.
        new_capacity = max(_MIN_CAPACITY, capacity * 2, size)
        vectors = np.empty((new_capacity, self.vectors.shape[1]), dtype=np.float32)
        vectors[:capacity] = self.vectors
        lengths = np.empty(new_capacity, dtype=np.float32)
        lengths[:capacity] = self.lengths
        self.vectors, self.lengths = vectors, lengths
        self.recorded.reserve(new_capacity)
        self.coarse.reserve(new_capacity)

    def put(
        self, doc_id: str, vector: FloatArray, terms: dict[str, int], keys: list[FilterKey], created: float
    ) -> None:
        row = self.rows.get(doc_id)
        if row is None:
            row = len(self.ids)
            self._reserve(row + 1)
            self.ids.append(doc_id)
            self.terms.append({})
            self.keys.append([])
            self.rows[doc_id] = row
            self.recorded.append(row, created)
        else:
            self._unlink(row)
            self.recorded.change(row, created)
        self.vectors[row] = vector
        self.coarse.set(row, vector)
        self._link(row, terms, keys)

    def remove(self, doc_id: str) -> None:
        row = self.rows.pop(doc_id, None)
        if row is None:
            return
        self._unlink(row)
        last = len(self.ids) - 1
        if row != last:
            moved_id, moved_terms, moved_keys = self.ids[last], self.terms[last], self.keys[last]
            self._unlink(last)
            self.vectors[row] = self.vectors[last]
            self.coarse.move(row, last)
            self.recorded.move_last(row, last)
            self.ids[row] = moved_id
            self.rows[moved_id] = row
            self._link(row, moved_terms, moved_keys)
        else:
            self.recorded.drop_last()
        self.ids.pop()
        self.terms.pop()
        self.keys.pop()

    def _link(self, row: int, terms: dict[str, int], keys: list[FilterKey]) -> None:
        self._masks.clear()
        self._blends.clear()
        self.terms[row] = terms
        self.keys[row] = keys
        length = float(sum(terms.values()))
        self.lengths[row] = length
        self.total_length += length
        for term, tf in terms.items():
            self.postings.setdefault(term, {})[row] = tf
            self._arrays.pop(term, None)
        for key in keys:
            self.filter_rows.setdefault(key, set()).add(row)

    def _unlink(self, row: int) -> None:
        self._masks.clear()
        self._blends.clear()
        for term in self.terms[row]:
            self._arrays.pop(term, None)
            posting = self.postings[term]
            del posting[row]
            if not posting:
                del self.postings[term]
        for key in self.keys[row]:
            rows = self.filter_rows[key]
            rows.discard(row)
            if not rows:
                del self.filter_rows[key]
        self.total_length -= float(self.lengths[row])

    def mask(self, filters: SearchFilters | None) -> BoolArray | None:
        """Rows matching every filter, or None when there is no filter."""
        wanted = wanted_keys(filters)
        if not wanted:
            return None
        n = len(self.ids)
        mask = np.ones(n, dtype=np.bool_)
        for key in wanted:
            hit = self._masks.get(key)
            if hit is None:
                rows = self.filter_rows.get(key, set())
                hit = np.zeros(n, dtype=np.bool_)
                hit[np.fromiter(rows, dtype=np.intp, count=len(rows))] = True
                self._masks[key] = hit
            mask &= hit
        return mask

    def neighbours(self, doc_ids: Sequence[str], filters: SearchFilters | None, within: float) -> dict[str, list[str]]:
        mask = self.mask(filters)
        return {
            doc_id: [self.ids[r] for r in self.recorded.neighbours(self.rows[doc_id], mask, within)]
            for doc_id in doc_ids
            if doc_id in self.rows
        }

    def spoken_by(self, doc_ids: Sequence[str], speakers: Collection[str]) -> set[str]:
        said = [rows for s in speakers if (rows := self.filter_rows.get((SPEAKER, s)))]
        return {d for d in doc_ids if (row := self.rows.get(d)) is not None and any(row in r for r in said)}

    def knn(
        self, query: FloatArray, k: int, filters: SearchFilters | None, context: Context | None = None
    ) -> list[ScoredId]:
        n = len(self.ids)
        if n == 0:
            return []
        mask = self.mask(filters)
        candidates = None if mask is None else np.flatnonzero(mask)
        if self.coarse.sync(self.vectors, n):  # a large user: coarse pass, then exact re-score
            candidates = self.coarse.candidates(query, n, candidates, k)
        # einsum is a single-threaded SIMD loop: as fast as BLAS on one core, and it does not stall
        # (10x slower medians measured) when OpenBLAS threads compete with the embedder for cores.
        if candidates is None:
            scores = np.einsum("ij,j->i", self.vectors[:n], query)
            return self._top(self._in_context(scores, context) if context else scores, None, k)
        return self._top(np.einsum("ij,j->i", self.vectors[candidates], query), candidates, k)

    def _in_context(self, cosines: FloatArray, context: Context) -> FloatArray:
        order, created = self.recorded.ordered()
        norms = self._blends.get(context)
        if norms is None:
            norms = self._blends[context] = blend_norms(self.vectors, order, created, *context)
        return in_context(cosines, order, created, norms, *context)

    def text_search(self, query_terms: list[str], k: int, filters: SearchFilters | None) -> list[ScoredId]:
        n = len(self.ids)
        if n == 0 or not query_terms:
            return []
        avgdl = self.total_length / n or 1.0
        scores = np.zeros(n, dtype=np.float32)
        for term, repeats in Counter(query_terms).items():
            arrays = self._posting_arrays(term)
            if arrays is None:
                continue
            rows, tf = arrays
            df = rows.shape[0]
            idf = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
            norm = K1 * (1.0 - B + B * self.lengths[rows] / avgdl)
            scores[rows] += repeats * idf * tf * (K1 + 1.0) / (tf + norm)
        hits = scores > 0
        mask = self.mask(filters)
        if mask is not None:
            hits &= mask
        candidates = np.flatnonzero(hits)
        return self._top(scores[candidates], candidates, k)

    def _posting_arrays(self, term: str) -> tuple[IntArray, FloatArray] | None:
        arrays = self._arrays.get(term)
        if arrays is None:
            posting = self.postings.get(term)
            if not posting:
                return None
            rows = np.fromiter(posting.keys(), dtype=np.intp, count=len(posting))
            tf = np.fromiter(posting.values(), dtype=np.float32, count=len(posting))
            arrays = self._arrays[term] = (rows, tf)
        return arrays

    def _top(self, scores: FloatArray, candidates: IntArray | None, k: int) -> list[ScoredId]:
        """The k best, ties broken by id so results do not depend on the row layout."""
        m = scores.shape[0]
        if m == 0 or k <= 0:
            return []
        if k < m:
            kth = np.partition(scores, m - k)[m - k]  # the k-th largest score
            best = np.flatnonzero(scores >= kth)  # usually k rows; more only on ties at the cut
        else:
            best = np.arange(m)
        rows = best if candidates is None else candidates[best]
        ranked = sorted(
            zip(scores[best].tolist(), rows.tolist(), strict=True),
            key=lambda pair: (-pair[0], self.ids[pair[1]]),
        )
        return [ScoredId(id=self.ids[row], score=score) for score, row in ranked[:k]]


class EmbeddedIndex(FactViewsOf):
    """VectorIndex (and FactViews) for one process. Thread-safe; every write is committed before it returns."""

    def __init__(self, path: Path | None, dimensions: int) -> None:
        self.dimensions = dimensions
        self._lock = threading.RLock()
        self._users: dict[tuple[str, str], _UserIndex] = {}
        self._db: sqlite3.Connection | None = None
        self._persistent = path is not None
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            with sqlite_errors():
                # One connection shared by the HTTP and poller threads, always used under the lock.
                self._db = sqlite3.connect(str(path), check_same_thread=False)
                self._db.execute("PRAGMA journal_mode=WAL")
                create_schema(self._db)
        self._views = ViewStore(self._db)

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    def upsert(self, docs: Sequence[IndexDoc]) -> None:
        # Validate and tokenise everything first, so a bad doc changes nothing.
        prepared = [(doc, unit_vector(doc.vector, self.dimensions), term_counts(doc.text)) for doc in docs]
        with self._lock:
            users = {key: self._user(*key) for key in {(d.tenant_id, d.user_id) for d in docs}}
            db = self._connection()
            if db is not None:
                rows = [db_row(doc, unit) for doc, unit, _ in prepared]
                with sqlite_errors(), db:
                    db.executemany(UPSERT, rows)
            for doc, unit, terms in prepared:
                keys = doc_keys(doc.agent_id, doc.run_id, doc.memory_bank, doc.metadata, stated_keys(doc.statements))
                users[(doc.tenant_id, doc.user_id)].put(doc.id, unit, terms, keys, doc.created_at.timestamp())
            self._views.put(docs)

    def delete(self, tenant_id: str, user_id: str, memory_ids: Sequence[str]) -> None:
        with self._lock:
            user = self._user(tenant_id, user_id)
            db = self._connection()
            if db is not None:
                with sqlite_errors(), db:
                    db.executemany(DELETE, [(tenant_id, user_id, mid) for mid in memory_ids])
            for memory_id in memory_ids:
                user.remove(memory_id)
            self._views.remove(tenant_id, user_id, memory_ids)

    def knn(
        self,
        tenant_id: str,
        user_id: str,
        vector: Sequence[float],
        k: int,
        filters: SearchFilters | None = None,
    ) -> list[ScoredId]:
        query = unit_vector(vector, self.dimensions)
        with self._lock:
            return self._user(tenant_id, user_id).knn(query, k, filters)

    def knn_in_context(
        self,
        tenant_id: str,
        user_id: str,
        vector: Sequence[float],
        k: int,
        weights: Sequence[float],
        within_seconds: float = 1800.0,
        filters: SearchFilters | None = None,
    ) -> list[ScoredId]:
        """index_ports.ContextVectors: k-NN against each memory blended with its recording neighbours;
        plain k-NN under filters or for a user large enough for the coarse pass."""
        query = unit_vector(vector, self.dimensions)
        with self._lock:
            return self._user(tenant_id, user_id).knn(query, k, filters, (tuple(weights), within_seconds))

    def text_search(
        self,
        tenant_id: str,
        user_id: str,
        query: str,
        k: int,
        filters: SearchFilters | None = None,
    ) -> list[ScoredId]:
        terms = tokenize(query)
        with self._lock:
            return self._user(tenant_id, user_id).text_search(terms, k, filters)

    def neighbours(
        self,
        tenant_id: str,
        user_id: str,
        memory_ids: Sequence[str],
        filters: SearchFilters | None = None,
        within_seconds: float = 1800.0,
    ) -> dict[str, list[str]]:
        """For each id, the memories (matching `filters`) recorded just before and just after it,
        at most `within_seconds` apart: the conversation context of index_ports.Timeline."""
        with self._lock:
            return self._user(tenant_id, user_id).neighbours(memory_ids, filters, within_seconds)

    def speakers_among(self, tenant_id: str, user_id: str, names: Collection[str]) -> set[str]:
        """index_ports.Speakers: which of these names said something to this user's memories."""
        with self._lock:
            known = self._user(tenant_id, user_id).filter_rows
            return {name for name in names if (SPEAKER, name) in known}

    def spoken_by(self, tenant_id: str, user_id: str, memory_ids: Sequence[str], speakers: Collection[str]) -> set[str]:
        with self._lock:
            return self._user(tenant_id, user_id).spoken_by(memory_ids, speakers)

    def ids(self, tenant_id: str, user_id: str) -> set[str]:
        with self._lock:
            return set(self._user(tenant_id, user_id).ids)

    def _user(self, tenant_id: str, user_id: str) -> _UserIndex:
        """The user's structures, loaded from SQLite on first access. Call with the lock held."""
        key = (tenant_id, user_id)
        user = self._users.get(key)
        if user is None:
            user = _UserIndex(self.dimensions)
            db = self._connection()
            if db is not None:
                with sqlite_errors():
                    rows = db.execute(LOAD, key).fetchall()
                for doc_id, agent_id, run_id, bank, metadata, text, blob, created_at, stated in rows:
                    vector = np.frombuffer(blob, dtype="<f4").astype(np.float32)
                    if vector.shape != (self.dimensions,):
                        raise EngramError(f"index file holds {vector.size}-dim vectors, expected {self.dimensions}")
                    keys = doc_keys(agent_id, run_id, bank, json.loads(metadata), stated_of(stated))
                    created = datetime.fromisoformat(created_at).timestamp()
                    user.put(doc_id, vector, term_counts(text), keys, created)
            self._users[key] = user
        return user

    def _connection(self) -> sqlite3.Connection | None:
        """The SQLite connection (None when memory-only); a closed persistent index refuses work
        rather than silently dropping writes."""
        if self._persistent and self._db is None:
            raise EngramError("embedded index is closed")
        return self._db
