"""What the API does, on ports only: accept adds, search, read, correct and forget memories."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from engram.domain.errors import ValidationError
from engram.domain.models import (
    AddRequest,
    Attachment,
    Fact,
    HistoryPage,
    MemoryBank,
    Page,
    SearchFilters,
    Task,
    TaskKind,
    utcnow,
)
from engram.domain.ports import BlobStore, Embedder, FactStore, TaskQueue, TaskStore, VectorIndex
from engram.pipeline.lifecycle import Lifecycle, next_version
from engram.services.attachments import AttachmentService
from engram.services.search import HybridSearcher


@dataclass
class MemoryService:
    facts: FactStore
    index: VectorIndex
    embedder: Embedder
    tasks: TaskStore
    queue: TaskQueue
    blobs: BlobStore | None = None
    attachments: AttachmentService | None = None
    max_inline_payload_bytes: int = 256 * 1024
    searcher: HybridSearcher | None = None

    def __post_init__(self) -> None:
        if self.searcher is None:
            self.searcher = HybridSearcher(self.index, self.embedder)

    # --- adds are stored, then queued -------------------------------------------------------
    def submit(self, tenant_id: str, request: AddRequest) -> Task:
        """Store the input before acknowledging it; the worker picks it up from the queue."""
        if request.attachments:
            if self.attachments is None:
                raise ValidationError("attachments", "attachments are not configured on this deployment")
            resolved = self.attachments.resolve(tenant_id, request.user_id, request.attachments)
            request = request.model_copy(update={"attachments": resolved})
        task = Task(tenant_id=tenant_id, user_id=request.user_id, request=request)
        payload = request.model_dump_json().encode("utf-8")
        if len(payload) > self.max_inline_payload_bytes and self.blobs is not None:
            task.payload_key = f"payloads/{tenant_id}/{task.task_id}.json"
            self.blobs.put(task.payload_key, payload, "application/json")
            task.request = None
        self.tasks.create(task)
        self.queue.enqueue(task)
        return task

    def task(self, tenant_id: str, task_id: str) -> Task:
        return self.tasks.get(tenant_id, task_id)

    # --- reads --------------------------------------------------------------------------------
    def search(
        self,
        tenant_id: str,
        user_id: str,
        query: str,
        top_k: int = 10,
        filters: SearchFilters | None = None,
        threshold: float | None = None,
    ) -> list[tuple[Fact, float]]:
        assert self.searcher is not None
        hits = self.searcher.search(tenant_id, user_id, query, top_k, filters, threshold)
        facts = {f.id: f for f in self.facts.get_many(tenant_id, [h.id for h in hits])}
        return [(facts[h.id], h.score) for h in hits if h.id in facts and facts[h.id].user_id == user_id]

    def list_memories(
        self,
        tenant_id: str,
        user_id: str,
        limit: int,
        cursor: str | None,
        filters: SearchFilters | None = None,
        attachment_id: str | None = None,
    ) -> Page:
        if attachment_id is None:
            return self.facts.list_current(tenant_id, user_id, limit, cursor, filters)
        if self.attachments is None:
            raise ValidationError("attachment_id", "attachments are not configured on this deployment")
        holders = self.attachments.store.holders(tenant_id, attachment_id)
        facts = [f for f in self.facts.get_many(tenant_id, holders) if f.user_id == user_id]
        return Page(items=facts[:limit])

    def attachment_details(self, tenant_id: str, facts: list[Fact]) -> dict[str, Attachment]:
        return self.attachments.details(tenant_id, facts) if self.attachments else {}

    def get(self, tenant_id: str, memory_id: str) -> Fact:
        fact = self.facts.get(tenant_id, memory_id)
        # Reading one memory counts as a use for least-recently-used pruning (seed 004); searches
        # do not, to keep a write off the hot path.
        self.facts.touch(tenant_id, [memory_id], utcnow())
        return fact

    def history(self, tenant_id: str, memory_id: str, limit: int = 100, cursor: str | None = None) -> HistoryPage:
        self.facts.get(tenant_id, memory_id, include_closed=True)  # 404 for unknown / other tenants
        return self.facts.history_page(tenant_id, memory_id, limit, cursor)

    # --- corrections --------------------------------------------------------------------------
    @cached_property
    def lifecycle(self) -> Lifecycle:
        store = self.attachments.store if self.attachments else None
        return Lifecycle(self.facts, self.index, self.embedder, store, self.blobs)

    def update(
        self,
        tenant_id: str,
        memory_id: str,
        text: str | None = None,
        metadata: dict[str, object] | None = None,
        importance: float | None = None,
        is_protected: bool | None = None,
        memory_bank: MemoryBank | None = None,
    ) -> Fact:
        old = self.facts.get(tenant_id, memory_id)
        given = {"importance": importance, "is_protected": is_protected, "memory_bank": memory_bank}
        changes: dict[str, object] = {k: v for k, v in given.items() if v is not None}
        if metadata is not None:
            changes["metadata"] = {**old.metadata, **metadata}
        new = next_version(old, text or old.text, **changes)
        batch = self.lifecycle.changes(tenant_id, old.user_id)
        batch.rewrite(old, new, actor="api")
        batch.commit()
        return new

    def delete(self, tenant_id: str, memory_id: str, actor: str = "api") -> Fact:
        fact = self.facts.get(tenant_id, memory_id)
        batch = self.lifecycle.changes(tenant_id, fact.user_id)
        batch.close(fact, actor)
        batch.commit()
        return fact

    def delete_all(self, tenant_id: str, user_id: str) -> Task:
        """Queue the forgetting of every current memory of one user, after the user's queued adds
        (same FIFO group); the worker closes them in batches (services/forget.py)."""
        task = Task(tenant_id=tenant_id, user_id=user_id, kind=TaskKind.DELETE_ALL, counts={"deleted": 0})
        self.tasks.create(task)
        self.queue.enqueue(task)
        return task
