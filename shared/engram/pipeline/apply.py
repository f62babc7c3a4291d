"""Step 5: apply settled decisions. DynamoDB first (the source of truth), then the index and
attachment holders."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from engram.domain.models import (
    AddRequest,
    CandidateFact,
    Decision,
    Event,
    Fact,
    HistoryEvent,
    IndexDoc,
    Scope,
    TaskResult,
    text_hash,
    utcnow,
)
from engram.domain.ports import AttachmentStore, BlobStore, Embedder, FactStore, VectorIndex
from engram.pipeline.holders import AttachmentHolders

_IDS = uuid.UUID("6f1c1d1e-2b7a-4f55-9a53-0e1b6c1f2a10")


def index_doc(fact: Fact, vector: Sequence[float]) -> IndexDoc:
    return IndexDoc(
        id=fact.id,
        tenant_id=fact.tenant_id,
        user_id=fact.user_id,
        agent_id=fact.agent_id,
        run_id=fact.run_id,
        text=fact.text,
        vector=list(vector),
        metadata=fact.metadata,
        memory_bank=fact.memory_bank.value,
        created_at=fact.created_at,
    )


def history_event(
    fact: Fact,
    event: Event,
    old: str | None,
    new: str | None,
    actor: str,
    task_id: str | None = None,
    before: Sequence[str] = (),
    note: str | None = None,
) -> HistoryEvent:
    return HistoryEvent(
        memory_id=fact.id,
        tenant_id=fact.tenant_id,
        user_id=fact.user_id,
        event=event,
        old_memory=old,
        new_memory=new,
        actor=actor,
        task_id=task_id,
        version=fact.version,
        attachments_added=[a for a in fact.attachment_ids if a not in before],
        attachments_removed=[a for a in before if a not in fact.attachment_ids],
        note=note,
    )


def updated(old: Fact, text: str, candidate: CandidateFact | None = None, importance: float | None = None) -> Fact:
    """The next version of a memory (same id)."""
    now = utcnow()
    changes: dict[str, object] = {
        "text": text,
        "hash": text_hash(text),
        "version": old.version + 1,
        "updated_at": now,
        "valid_from": now,
    }
    if candidate is not None:
        changes |= {"fact_key": candidate.fact_key or old.fact_key, "fact_value": candidate.fact_value}
        changes["importance"] = max(old.importance, candidate.importance)
    if importance is not None:
        changes["importance"] = importance
    return old.model_copy(update=changes)


@dataclass
class Applier:
    facts: FactStore
    index: VectorIndex
    embedder: Embedder
    attachments: AttachmentStore | None = None
    blobs: BlobStore | None = None
    actor: str = "extraction"

    def apply(
        self,
        scope: Scope,
        request: AddRequest,
        task_id: str,
        candidates: Sequence[CandidateFact],
        vectors: dict[str, list[float]],
        decisions: Sequence[Decision],
    ) -> list[TaskResult]:
        """Apply in order; a replay of the same task (same ids) changes nothing twice."""
        wanted = [d.text for d in decisions if d.event in (Event.ADD, Event.UPDATE) and d.text not in vectors]
        if wanted:
            vectors = {**vectors, **dict(zip(wanted, self.embedder.embed(wanted), strict=True))}
        holders = AttachmentHolders(scope.tenant_id, self.attachments, self.blobs)
        results: list[TaskResult] = []
        docs: list[IndexDoc] = []
        deleted: list[str] = []
        new_facts: list[tuple[Fact, HistoryEvent]] = []  # new ids: written together after the loop
        for position, d in enumerate(decisions):
            candidate = candidates[d.fact_index] if d.fact_index is not None else None
            if d.event is Event.ADD:
                fact = self._new_fact(scope, request, task_id, position, d, candidate)
                new_facts.append((fact, self._event(fact, Event.ADD, None, fact.text, task_id, (), d.note)))
                holders.changed(fact.id, (), fact.attachment_ids)
                docs.append(index_doc(fact, vectors[d.text]))
                results.append(self._result(fact, Event.ADD, None, d.note))
            elif d.event is Event.UPDATE and d.memory_id:
                old = self.facts.get(scope.tenant_id, d.memory_id)
                new = updated(old, d.text, candidate, d.importance)
                new.attachment_ids = list(d.attachment_ids if d.attachment_ids is not None else old.attachment_ids)
                if (new.text, new.attachment_ids) == (old.text, old.attachment_ids):
                    continue  # already applied by an earlier delivery of this task
                event = self._event(new, Event.UPDATE, old.text, new.text, task_id, old.attachment_ids, d.note)
                self.facts.replace(old, new, event)
                holders.changed(new.id, old.attachment_ids, new.attachment_ids)
                docs.append(index_doc(new, vectors[d.text]))
                results.append(self._result(new, Event.UPDATE, old.text, d.note))
            elif d.event is Event.NONE and d.memory_id and d.attachment_ids is not None:
                old = self.facts.get(scope.tenant_id, d.memory_id)
                if set(d.attachment_ids) == set(old.attachment_ids):
                    continue
                # Same text, other attachments (e.g. a new file for a fact already known): a new version.
                new = updated(old, old.text)
                new.attachment_ids = list(d.attachment_ids)
                event = self._event(new, Event.UPDATE, old.text, new.text, task_id, old.attachment_ids, d.note)
                self.facts.replace(old, new, event)
                holders.changed(new.id, old.attachment_ids, new.attachment_ids)
                results.append(self._result(new, Event.NONE, None, d.note))
            elif d.event is Event.DELETE and d.memory_id:
                old = self.facts.get(scope.tenant_id, d.memory_id, include_closed=True)
                if old.is_current:
                    self.facts.close(old, utcnow(), self._event(old, Event.DELETE, old.text, None, task_id, (), d.note))
                    holders.changed(old.id, old.attachment_ids, ())
                deleted.append(old.id)
                results.append(self._result(old, Event.DELETE, None, d.note))
        if new_facts:
            self.facts.add_many(new_facts)
        if docs:
            self.index.upsert(docs)
        if deleted:
            self.index.delete(scope.tenant_id, scope.user_id, deleted)
        holders.flush()
        return results

    @staticmethod
    def _result(fact: Fact, event: Event, previous: str | None, note: str | None) -> TaskResult:
        return TaskResult(
            id=fact.id,
            memory=fact.text,
            event=event,
            previous_memory=previous,
            attachments=list(fact.attachment_ids),
            note=note,
        )

    def _new_fact(
        self,
        scope: Scope,
        request: AddRequest,
        task_id: str,
        position: int,
        decision: Decision,
        candidate: CandidateFact | None,
    ) -> Fact:
        # Deterministic ids make a redelivered task write the same items (add() then refuses them).
        fact_id = str(uuid.uuid5(_IDS, f"{scope.tenant_id}:{task_id}:{position}:{text_hash(decision.text)}"))
        importance = (
            decision.importance if decision.importance is not None else (candidate.importance if candidate else 0.5)
        )
        return Fact(
            id=fact_id,
            tenant_id=scope.tenant_id,
            user_id=scope.user_id,
            agent_id=scope.agent_id,
            run_id=scope.run_id,
            text=decision.text,
            fact_key=candidate.fact_key if candidate else None,
            fact_value=candidate.fact_value if candidate else None,
            memory_bank=candidate.memory_bank if candidate else Fact.model_fields["memory_bank"].default,
            importance=importance,
            metadata=dict(request.metadata),
            attachment_ids=list(decision.attachment_ids or []),
            embedding_model=self.embedder.model_id,
        )

    def _event(
        self,
        fact: Fact,
        event: Event,
        old: str | None,
        new: str | None,
        task_id: str,
        before: Sequence[str],
        note: str | None,
    ) -> HistoryEvent:
        return history_event(fact, event, old, new, self.actor, task_id, before, note)
