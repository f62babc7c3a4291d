"""What the API does, on ports only: accept adds, search, read, correct and forget memories."""

from __future__ import annotations

from dataclasses import dataclass

from engram.domain.errors import ValidationError
from engram.domain.models import (
    AddRequest,
    Attachment,
    Event,
    Fact,
    HistoryEvent,
    Page,
    SearchFilters,
    Task,
    utcnow,
)
from engram.domain.ports import BlobStore, Embedder, FactStore, TaskQueue, TaskStore, VectorIndex
from engram.pipeline.apply import history_event, index_doc, updated
from engram.pipeline.holders import AttachmentHolders
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
        hits = HybridSearcher(self.index, self.embedder).search(tenant_id, user_id, query, top_k, filters, threshold)
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

    def history(self, tenant_id: str, memory_id: str) -> list[HistoryEvent]:
        self.facts.get(tenant_id, memory_id, include_closed=True)  # 404 for unknown / other tenants
        return self.facts.history(tenant_id, memory_id)

    # --- corrections --------------------------------------------------------------------------
    def update(
        self,
        tenant_id: str,
        memory_id: str,
        text: str | None = None,
        metadata: dict[str, object] | None = None,
        importance: float | None = None,
        is_protected: bool | None = None,
    ) -> Fact:
        old = self.facts.get(tenant_id, memory_id)
        new = updated(old, text or old.text, importance=importance)
        changes: dict[str, object] = {}
        if metadata is not None:
            changes["metadata"] = {**old.metadata, **metadata}
        if is_protected is not None:
            changes["is_protected"] = is_protected
        new = new.model_copy(update=changes)
        event = history_event(new, Event.UPDATE, old.text, new.text, actor="api", before=old.attachment_ids)
        self.facts.replace(old, new, event)
        self.index.upsert([index_doc(new, self.embedder.embed([new.text])[0])])
        return new

    def delete(self, tenant_id: str, memory_id: str, actor: str = "api") -> Fact:
        fact = self.facts.get(tenant_id, memory_id)
        event = history_event(fact, Event.DELETE, fact.text, None, actor=actor)
        event.version = fact.version + 1
        self.facts.close(fact, utcnow(), event)
        self.index.delete(tenant_id, fact.user_id, [fact.id])
        holders = AttachmentHolders(tenant_id, self.attachments.store if self.attachments else None, self.blobs)
        holders.changed(fact.id, fact.attachment_ids, ())
        holders.flush()
        return fact

    def delete_all(self, tenant_id: str, user_id: str) -> int:
        """Forget every current memory of one user; history stays as the audit trail."""
        deleted = 0
        while True:
            page = self.facts.list_current(tenant_id, user_id, limit=100)
            if not page.items:
                return deleted
            for fact in page.items:
                self.delete(tenant_id, fact.id)
                deleted += 1
