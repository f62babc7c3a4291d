"""Step 5: apply settled decisions through the memory lifecycle (DynamoDB first, the source of truth;
then the index and attachment holders)."""

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
    MemorySource,
    Scope,
    TaskResult,
    text_hash,
    utcnow,
)
from engram.pipeline.lifecycle import Lifecycle, next_version

_IDS = uuid.UUID("6f1c1d1e-2b7a-4f55-9a53-0e1b6c1f2a10")


def updated(old: Fact, text: str, candidate: CandidateFact | None = None, importance: float | None = None) -> Fact:
    """The next version of a memory after an extraction decision."""
    changes: dict[str, object] = {}
    if candidate is not None:
        changes |= {"fact_key": candidate.fact_key or old.fact_key, "fact_value": candidate.fact_value}
        changes["importance"] = max(old.importance, candidate.importance)
    if importance is not None:
        changes["importance"] = importance
    return next_version(old, text, **changes)


@dataclass
class Applier:
    lifecycle: Lifecycle
    actor: str = "extraction"

    def apply(
        self,
        scope: Scope,
        request: AddRequest,
        task_id: str,
        candidates: Sequence[CandidateFact],
        vectors: dict[str, list[float]],
        decisions: Sequence[Decision],
        known: Sequence[Fact] = (),
        sources: Sequence[MemorySource] = (),
    ) -> list[TaskResult]:
        """Apply in order; a replay of the same task (same ids) changes nothing twice. `known` are
        the memories reconciliation already read, so they are not read again."""
        applied = self.apply_each(scope, request, task_id, candidates, vectors, decisions, known, sources)
        return [result for _, result in applied]

    def apply_each(
        self,
        scope: Scope,
        request: AddRequest,
        task_id: str,
        candidates: Sequence[CandidateFact],
        vectors: dict[str, list[float]],
        decisions: Sequence[Decision],
        known: Sequence[Fact] = (),
        sources: Sequence[MemorySource] = (),
    ) -> list[tuple[Decision, TaskResult]]:
        """As `apply`, each result with the decision it came from (whose task it reports to)."""
        read = {f.id: f for f in known}

        def memory(memory_id: str, include_closed: bool = False) -> Fact:
            if memory_id not in read:
                read[memory_id] = self.lifecycle.facts.get(scope.tenant_id, memory_id, include_closed)
            return read[memory_id]

        changes = self.lifecycle.changes(scope.tenant_id, scope.user_id)
        results: list[tuple[Decision, TaskResult]] = []
        for position, d in enumerate(decisions):
            candidate = candidates[d.fact_index] if d.fact_index is not None else None
            if d.event is Event.ADD:
                fact = self._new_fact(scope, request, task_id, position, d, candidate)
                fact.source = self._source(task_id, candidate, sources)
                changes.add(fact, self.actor, task_id, d.note, vectors.get(d.text))
                results.append((d, self._result(fact, Event.ADD, None, d.note)))
            elif d.event is Event.UPDATE and d.memory_id:
                old = memory(d.memory_id)
                new = updated(old, d.text, candidate, d.importance)
                new.attachment_ids = list(d.attachment_ids if d.attachment_ids is not None else old.attachment_ids)
                if (new.text, new.attachment_ids) == (old.text, old.attachment_ids):
                    continue  # already applied by an earlier delivery of this task
                read[old.id] = changes.rewrite(old, new, self.actor, task_id, d.note, vectors.get(d.text))
                results.append((d, self._result(new, Event.UPDATE, old.text, d.note)))
            elif d.event is Event.NONE and d.memory_id and d.attachment_ids is not None:
                old = memory(d.memory_id)
                if set(d.attachment_ids) == set(old.attachment_ids):
                    continue
                # Same text, other attachments (e.g. a new file for a fact already known): a new version.
                new = next_version(old, attachment_ids=list(d.attachment_ids))
                read[old.id] = changes.rewrite(old, new, self.actor, task_id, d.note)
                results.append((d, self._result(new, Event.NONE, None, d.note)))
            elif d.event is Event.DELETE and d.memory_id:
                old = memory(d.memory_id, include_closed=True)
                if old.is_current:
                    changes.close(old, self.actor, task_id, d.note)
                    read[old.id] = old.model_copy(update={"valid_to": utcnow()})
                results.append((d, self._result(old, Event.DELETE, None, d.note)))
        changes.commit()
        return results

    @staticmethod
    def _source(task_id: str, candidate: CandidateFact | None, sources: Sequence[MemorySource]) -> MemorySource:
        index = candidate.message_index if candidate is not None else None
        if index is not None and index < len(sources):
            return sources[index]
        # Merged runs without a known message: the run's tasks are found through the leader's task.
        return MemorySource(task_id=task_id, message_index=index if not sources else None)

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
            metadata=_metadata(request, candidate),
            attachment_ids=list(decision.attachment_ids or []),
            expires_at=request.expires_at,
            embedding_model=self.lifecycle.embedder.model_id,
            kind=candidate.kind if candidate else "fact",
        )


def _metadata(request: AddRequest, candidate: CandidateFact | None) -> dict[str, object]:
    """The add call's metadata; an episode also records who said it, when the message names them."""
    metadata: dict[str, object] = dict(request.metadata)
    index = candidate.message_index if candidate is not None and candidate.kind == "episode" else None
    if index is not None and index < len(request.messages):
        speaker = request.messages[index].name
        if speaker:
            metadata.setdefault("speaker", speaker)
    return metadata
