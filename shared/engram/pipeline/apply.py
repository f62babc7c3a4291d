"""Step 5: apply settled decisions through the memory lifecycle (DynamoDB first, the source of truth;
then the index and attachment holders)."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from engram.domain.errors import NotFoundError
from engram.domain.models import (
    AddRequest,
    Event,
    ExtractionPrompt,
    Fact,
    MemorySource,
    Scope,
    TaskResult,
    text_hash,
    utcnow,
)
from engram.domain.outdated import outdated_version
from engram.domain.steps import CandidateFact, Decision
from engram.pipeline.protection import keep_protected
from engram.text.clauses import split_clauses, split_sentences
from engram.text.transcript import choose_prompt
from engram.writes.unit_of_work import Changes, Lifecycle, next_version

_IDS = uuid.UUID("6f1c1d1e-2b7a-4f55-9a53-0e1b6c1f2a10")


HISTORY_NOTE = "said before the current memory {id} (valid from {at}): kept as history"
OLDER_NOTE = "said before the current memory {id} (valid from {at}): not applied"


def updated(
    old: Fact,
    text: str,
    candidate: CandidateFact | None = None,
    importance: float | None = None,
    valid_from: datetime | None = None,
) -> Fact:
    """The next version of a memory after an extraction decision, valid from when it was said."""
    changes: dict[str, object] = {} if valid_from is None else {"valid_from": valid_from}
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
    # The memories apply_each wrote, as stored (the unit of work's `written`): the run reads them from here.
    written: dict[str, Fact] = field(default_factory=dict)

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
        """Apply in order, each result with the decision it came from (whose task it reports to); a
        replay of the same task (same ids) changes nothing twice. `known` are the memories
        reconciliation already read, so they are not read again."""
        read = {f.id: f for f in known}

        def memory(memory_id: str, include_closed: bool = False) -> Fact:
            if memory_id not in read:
                read[memory_id] = self.lifecycle.facts.get(scope.tenant_id, memory_id, include_closed)
            return read[memory_id]

        decisions, known = self.protect(scope.tenant_id, candidates, decisions, known)
        read |= {f.id: f for f in known}
        changes = self.lifecycle.changes(scope.tenant_id, scope.user_id)
        results: list[tuple[Decision, TaskResult]] = []
        episode_of = self._episodes_by_message(scope, task_id, candidates, decisions)
        stated_by = self._added_by_message(scope, task_id, candidates, decisions)
        for position, d in enumerate(decisions):
            candidate = candidates[d.fact_index] if d.fact_index is not None else None
            said = said_at(request, candidate)
            if d.memory_id and _keeps(d.event, memory(d.memory_id, True)):
                # A message kept as said is never closed by a decision, nor rewritten when it says other things.
                kept = memory(d.memory_id, True)
                if d.event is Event.DELETE and said < kept.valid_from:
                    note = OLDER_NOTE.format(id=kept.id, at=kept.valid_from.isoformat())
                    results.append((d, self._result(kept, Event.NONE, None, note)))
                    continue
                # The new statement is stored beside it (unless its message already stored one, for an ending).
                ending = d.event is Event.DELETE
                by = stated_by.get(candidate.message_index) if ending and candidate is not None else None
                if by is None:
                    stated = candidate
                    if ending and candidate is not None:  # stored as an ending: no key (see _new_fact)
                        stated = candidate.model_copy(update={"negated": True})
                    text = stated.text if stated is not None else d.text
                    d = d.model_copy(update={"event": Event.ADD, "memory_id": None, "text": text})
                    fact = self._new_fact(scope, request, task_id, position, d, stated, said)
                    fact.source = _source(task_id, candidate, sources, request, request.infer)
                    changes.add(fact, self.actor, task_id, d.note, vectors.get(text))
                    results.append((d, self._result(fact, Event.ADD, None, d.note)))
                    by = fact.id
                if ending:  # what it ended is outdated there; the rest still holds
                    note = f"ended in part by a later statement ({by})"
                    read[kept.id] = self._mark(kept, by, changes, task_id, note)
                continue
            if d.event is Event.ADD:
                fact = self._new_fact(scope, request, task_id, position, d, candidate, said)
                fact.source = _source(task_id, candidate, sources, request, request.infer)
                if fact.kind == "fact" and candidate is not None:
                    fact.episode_id = episode_of.get(candidate.message_index)
                changes.add(fact, self.actor, task_id, d.note, vectors.get(d.text))
                results.append((d, self._result(fact, Event.ADD, None, d.note)))
            elif d.event is Event.UPDATE and d.memory_id:
                old = memory(d.memory_id)
                if said < old.valid_from:  # told out of order: the older statement is history, not news
                    fact = self._new_fact(scope, request, task_id, position, d, candidate, said)
                    fact.source = _source(task_id, candidate, sources, request, request.infer)
                    fact.valid_to = old.valid_from
                    note = HISTORY_NOTE.format(id=old.id, at=old.valid_from.isoformat())
                    changes.add(fact, self.actor, task_id, note, vectors.get(d.text))
                    results.append((d, self._result(fact, Event.ADD, None, note)))
                    continue
                new = updated(old, d.text, candidate, d.importance, said)
                if candidate is not None:  # the current version's source is the statement behind it
                    new.source = _source(task_id, candidate, sources, request)
                new.attachment_ids = list(d.attachment_ids if d.attachment_ids is not None else old.attachment_ids)
                if d.statements is not None:  # resolution cut an outdated statement out (reconcile/statement_plan.py)
                    new.statements = list(d.statements)
                if (new.text, new.attachment_ids) == (old.text, old.attachment_ids):
                    continue  # already applied by an earlier delivery of this task
                read[old.id] = changes.rewrite(old, new, self.actor, task_id, d.note, vectors.get(d.text))
                results.append((d, self._result(new, Event.UPDATE, old.text, d.note)))
                self._outdate_episode(old, memory, read, changes, task_id)
            elif d.event is Event.NONE and d.memory_id and d.attachment_ids is not None:
                old = memory(d.memory_id)
                if set(d.attachment_ids) == set(old.attachment_ids):
                    continue
                # Same text, other attachments (e.g. a new file for a fact already known): a new version.
                new = next_version(old, attachment_ids=list(d.attachment_ids), valid_from=max(said, old.valid_from))
                read[old.id] = changes.rewrite(old, new, self.actor, task_id, d.note)
                results.append((d, self._result(new, Event.NONE, None, d.note)))
            elif d.event is Event.NONE and d.memory_id and d.note:
                # A decision a check turned down (reconcile/checks.py): the memory stays; the task says why.
                results.append((d, self._result(memory(d.memory_id), Event.NONE, None, d.note)))
            elif d.event is Event.DELETE and d.memory_id:
                old = memory(d.memory_id, include_closed=True)
                if old.is_current and said < old.valid_from:  # a retraction older than what it would retract
                    note = OLDER_NOTE.format(id=old.id, at=old.valid_from.isoformat())
                    results.append((d, self._result(old, Event.NONE, None, note)))
                    continue
                if old.is_current:
                    changes.close(old, self.actor, task_id, d.note, when=said)
                    read[old.id] = old.model_copy(update={"valid_to": said})
                    self._outdate_episode(old, memory, read, changes, task_id)
                results.append((d, self._result(old, Event.DELETE, None, d.note)))
        changes.commit()
        self.written |= changes.written
        return results

    def _episodes_by_message(
        self, scope: Scope, task_id: str, candidates: Sequence[CandidateFact], decisions: Sequence[Decision]
    ) -> dict[int | None, str]:
        """The ids the episodes of this run will get, by the message they keep: a fact read from a
        message links to its episode, so the episode can say when a later statement outdates part of it."""
        out: dict[int | None, str] = {}
        for position, d in enumerate(decisions):
            candidate = candidates[d.fact_index] if d.fact_index is not None else None
            if d.event is Event.ADD and candidate is not None and candidate.kind == "episode":
                out[candidate.message_index] = fact_id(scope, task_id, position, d.text)
        out.pop(None, None)
        return out

    def _added_by_message(
        self, scope: Scope, task_id: str, candidates: Sequence[CandidateFact], decisions: Sequence[Decision]
    ) -> dict[int | None, str]:
        """The id of the first memory this run adds from each message: what an ending said there is stored in it."""
        out: dict[int | None, str] = {}
        for position, d in enumerate(decisions):
            candidate = candidates[d.fact_index] if d.fact_index is not None else None
            if d.event is Event.ADD and candidate is not None:
                out.setdefault(candidate.message_index, fact_id(scope, task_id, position, d.text))
        out.pop(None, None)
        return out

    def _outdate_episode(
        self,
        replaced: Fact,
        memory: Callable[[str], Fact],
        read: dict[str, Fact],
        changes: Changes,
        task_id: str,
    ) -> None:
        """The episode that stated a replaced fact says so (`outdated_by`); its text is unchanged."""
        if replaced.episode_id is None or replaced.episode_id == replaced.id:
            return
        try:
            episode = memory(replaced.episode_id)
        except NotFoundError:  # forgotten or closed since: nothing to mark
            return
        if replaced.id in episode.outdated_by or not episode.is_current:
            return
        note = f"outdated in part by a later statement ({replaced.id})"
        read[episode.id] = self._mark(episode, replaced.id, changes, task_id, note)

    def _mark(self, kept: Fact, by: str, changes: Changes, task_id: str, note: str) -> Fact:
        """The next version of a kept message, outdated in part by the memory `by`; its text unchanged."""
        if by in kept.outdated_by:
            return kept
        marked = outdated_version(kept, by)
        return changes.rewrite(kept, marked, self.actor, task_id, note)

    def protect(
        self, tenant_id: str, candidates: Sequence[CandidateFact], decisions: Sequence[Decision], known: Sequence[Fact]
    ) -> tuple[list[Decision], list[Fact]]:
        """The decisions with changes to protected memories turned into new memories beside them
        (pipeline/protection.py), and `known` plus the memories read to tell. Checked on the memories
        as stored, whatever the decider was shown; apply() calls it too, so no caller can skip it."""
        have = {f.id for f in known}
        named = [d.memory_id for d in decisions if d.memory_id and d.event is not Event.ADD and d.memory_id not in have]
        read = [*known, *self.lifecycle.facts.get_many(tenant_id, list(dict.fromkeys(named)))] if named else list(known)
        return keep_protected(decisions, candidates, {f.id: f for f in read}), read

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
        said: datetime,
    ) -> Fact:
        importance = (
            decision.importance if decision.importance is not None else (candidate.importance if candidate else 0.5)
        )
        return Fact(
            id=fact_id(scope, task_id, position, decision.text),
            valid_from=said,
            tenant_id=scope.tenant_id,
            user_id=scope.user_id,
            agent_id=scope.agent_id,
            run_id=scope.run_id,
            text=decision.text,
            # An ending stored as a memory ("No longer works at Google") holds no key: its key would
            # state the ended value as current.
            fact_key=candidate.fact_key if candidate and not candidate.negated else None,
            fact_value=candidate.fact_value if candidate and not candidate.negated else None,
            memory_bank=candidate.memory_bank if candidate else Fact.model_fields["memory_bank"].default,
            importance=importance,
            metadata=dict(request.metadata),  # who said it is on the source (Fact.speaker)
            attachment_ids=list(decision.attachment_ids or []),
            expires_at=request.expires_at,
            embedding_model=self.lifecycle.embedder.model_id,
            kind=candidate.kind if candidate else "fact",
            # The model's statements of its fact: a memory given statements keeps them (the offline reader reads
            # only the others, when the batch is committed).
            statements=list(candidate.statements) if candidate else [],
        )


def _keeps(event: Event, memory: Fact) -> bool:
    """Whether a decision to change `memory` leaves it as it is (the new statement stored beside it): an
    ending of a message kept as said, or a change of one that says several things. A memory stored as
    given that says one thing ("Works at Siemens") is updated as a fact is."""
    if not (memory.kept_as_said and memory.is_current):  # a closed one: a replayed decision changes nothing
        return False
    return event is Event.DELETE or (event is Event.UPDATE and _says_several(memory.text))


def _says_several(text: str) -> bool:
    """More than one clause: "I live in Leeds and I work as a nurse" (bounded by the message's size)."""
    return sum(len(split_clauses(s)) for s in split_sentences(text)) > 1


def fact_id(scope: Scope, task_id: str, position: int, text: str) -> str:
    # Deterministic ids make a redelivered task write the same items (add() then refuses them).
    return str(uuid.uuid5(_IDS, f"{scope.tenant_id}:{task_id}:{position}:{text_hash(text)}"))


def said_at(request: AddRequest, candidate: CandidateFact | None) -> datetime:
    """When the statement behind a decision was said: its message's time, else the latest message's
    (an LLM may merge several messages into one fact), else now."""
    index = candidate.message_index if candidate is not None else None
    said = request.messages[index].created_at if index is not None and index < len(request.messages) else None
    if said is not None:
        return said
    times = [m.created_at for m in request.messages if m.created_at is not None]
    return max(times) if times else utcnow()


def _source(
    task_id: str,
    candidate: CandidateFact | None,
    sources: Sequence[MemorySource],
    request: AddRequest,
    read: bool = True,
) -> MemorySource:
    """The task and message a new memory came from, with who said it; `read` False: stored as given."""
    index = candidate.message_index if candidate is not None else None
    role: str | None = None
    if index is None and candidate is not None and candidate.kind == "fact":
        index, role = _speaker_of_read_fact(request)
    source = sources[index] if index is not None and index < len(sources) else None
    if source is None:
        # Merged runs without a known message: the run's tasks are found through the leader's task.
        source = MemorySource(task_id=task_id, message_index=index if not sources else None)
    if index is not None and index < len(request.messages):
        message = request.messages[index]
        role, name = message.role, message.name
    else:
        names = {m.name for m in request.messages if m.role == role}
        name = names.pop() if len(names) == 1 else None
    if candidate is not None and candidate.span is not None:
        source = source.model_copy(update={"span": candidate.span})
    if not read:
        source = source.model_copy(update={"via": "as_given"})
    if role not in ("user", "assistant", "tool"):
        return source
    return source.model_copy(update={"role": role, "name": name})


def _speaker_of_read_fact(request: AddRequest) -> tuple[int | None, str | None]:
    """Who said a fact an extractor read without naming its message: the user prompt reads only the
    user's words; the agent prompt the assistant's and the user's instructions to it, so it names a
    role only when one role speaks. The message too, when that role sent only one."""
    said = [(i, m) for i, m in enumerate(request.messages) if m.role != "system"]
    if choose_prompt(request.messages, request.prompt) is ExtractionPrompt.USER:
        role: str | None = "user"
    else:
        roles = {m.role for _, m in said}
        role = roles.pop() if len(roles) == 1 else None
    theirs = [i for i, m in said if m.role == role]
    return (theirs[0] if len(theirs) == 1 else None), role
