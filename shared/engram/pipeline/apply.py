"""Step 5: apply validated decisions. DynamoDB first (the source of truth), then the index."""

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
from engram.domain.ports import Embedder, FactStore, VectorIndex

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


@dataclass
class Applier:
    facts: FactStore
    index: VectorIndex
    embedder: Embedder
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
        missing = [d.text for d in decisions if d.event in (Event.ADD, Event.UPDATE) and d.text not in vectors]
        if missing:
            vectors = {**vectors, **dict(zip(missing, self.embedder.embed(missing), strict=True))}
        results: list[TaskResult] = []
        docs: list[IndexDoc] = []
        deleted: list[str] = []
        for position, decision in enumerate(decisions):
            candidate = candidates[decision.fact_index] if decision.fact_index is not None else None
            if decision.event is Event.ADD:
                fact = self._new_fact(scope, request, task_id, position, decision, candidate)
                self.facts.add(fact, self._event(fact, Event.ADD, None, fact.text, task_id))
                docs.append(index_doc(fact, vectors[decision.text]))
                results.append(TaskResult(id=fact.id, memory=fact.text, event=Event.ADD))
            elif decision.event is Event.UPDATE and decision.memory_id:
                old = self.facts.get(scope.tenant_id, decision.memory_id)
                if old.text == decision.text:
                    continue  # already applied by an earlier delivery of this task
                new = self.updated(old, decision.text, candidate, decision.importance)
                self.facts.replace(old, new, self._event(new, Event.UPDATE, old.text, new.text, task_id))
                docs.append(index_doc(new, vectors[decision.text]))
                results.append(TaskResult(id=new.id, memory=new.text, event=Event.UPDATE, previous_memory=old.text))
            elif decision.event is Event.DELETE and decision.memory_id:
                old = self.facts.get(scope.tenant_id, decision.memory_id, include_closed=True)
                if old.is_current:
                    now = utcnow()
                    self.facts.close(old, now, self._event(old, Event.DELETE, old.text, None, task_id))
                deleted.append(old.id)
                results.append(TaskResult(id=old.id, memory=old.text, event=Event.DELETE))
        if docs:
            self.index.upsert(docs)
        if deleted:
            self.index.delete(scope.tenant_id, scope.user_id, deleted)
        return results

    @staticmethod
    def updated(old: Fact, text: str, candidate: CandidateFact | None = None, importance: float | None = None) -> Fact:
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
            importance=decision.importance
            if decision.importance is not None
            else (candidate.importance if candidate else 0.5),
            metadata=dict(request.metadata),
            embedding_model=self.embedder.model_id,
        )

    def _event(self, fact: Fact, event: Event, old: str | None, new: str | None, task_id: str) -> HistoryEvent:
        return HistoryEvent(
            memory_id=fact.id,
            tenant_id=fact.tenant_id,
            user_id=fact.user_id,
            event=event,
            old_memory=old,
            new_memory=new,
            actor=self.actor,
            task_id=task_id,
            version=fact.version,
        )
