"""AgentCore Memory's operations on Engram's: events are a session's turns kept as sent (and fed to
the add pipeline), memory records are memories, actors are users and sessions are runs."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from pydantic import ValidationError as SchemaError

from engram.agentcore.ids import (
    EPISODIC,
    PREFERENCES,
    Namespace,
    check_event_id,
    check_memory,
    memory_id_of_record,
    new_event_id,
    record_id,
)
from engram.domain.agentcore import EventPage, EventStore, MetadataFilter, SessionPage, StoredEvent, metadata_keeps
from engram.domain.errors import EngramError, NotFoundError, ValidationError
from engram.domain.models import (
    AddRequest,
    Fact,
    MemoryBank,
    MemoryPatch,
    Message,
    SearchFilters,
    SearchQuery,
    Task,
    TaskKind,
    TaskStatus,
    UserPage,
    utcnow,
)
from engram.domain.ports import UserDirectory
from engram.services.memory import MemoryService
from engram.services.task_inputs import load_request
from engram.writes.unit_of_work import Lifecycle

_ROLES = {"USER": "user", "ASSISTANT": "assistant", "TOOL": "tool", "OTHER": "system"}
# The metadata key naming who said an event's USER turns: AgentCore's payload has a role but no name, and
# Engram's search reads the name when a question names a speaker (docs/agentcore.md).
SPEAKER_KEY = "speaker"
# What an add's fields are called in AgentCore's request, for the field a refusal names.
_FIELDS = {"user_id": "actorId", "run_id": "sessionId", "metadata": "metadata", "messages": "payload"}
_MAX_CANDIDATES = 100  # memories a retrieval ranks before the namespace and metadata filters cut them


@dataclass(frozen=True)
class NewEvent:
    actor_id: str
    session_id: str
    event_timestamp: datetime
    payload: list[dict[str, Any]]
    branch: dict[str, str] | None = None
    metadata: dict[str, str] = field(default_factory=dict)
    extract: bool = True  # False: extractionMode SKIP, kept as an event only
    client_token: str | None = None  # botocore fills it in and resends it on a retry


@dataclass(frozen=True)
class RecordOutcome:
    """One record of a batch: its id and, when it failed, AgentCore's error code and message."""

    record_id: str
    request_identifier: str | None = None
    error_code: int | None = None
    error_message: str | None = None


@dataclass(frozen=True)
class NewRecord:
    request_identifier: str
    namespace: Namespace
    text: str
    timestamp: datetime
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass
class AgentCoreService:
    memories: MemoryService
    lifecycle: Lifecycle
    events: EventStore
    users: UserDirectory | None
    event_expiry: timedelta

    # --- events -----------------------------------------------------------------------------
    def create_event(self, tenant_id: str, memory_id: str, new: NewEvent) -> StoredEvent:
        """Kept as sent first, then its conversational turns go to the add pipeline as the session's
        messages, said at the event time (unless extraction is skipped)."""
        check_memory(tenant_id, memory_id)
        retry_of = f"{tenant_id}\n{new.actor_id}\n{new.session_id}\n{new.client_token}" if new.client_token else None
        event_id = new_event_id(new.event_timestamp, retry_of)
        if retry_of is not None:  # a retry (the SDKs resend the token they made): the event it made, once
            try:
                return self.events.get(tenant_id, new.actor_id, new.session_id, event_id)
            except NotFoundError:
                pass
        turns = [
            said_by(p["conversational"]["role"], p["conversational"]["content"]["text"], new.metadata)
            for p in new.payload
            if "conversational" in p
        ]
        request = None
        if new.extract and turns:
            said = [t.model_copy(update={"created_at": new.event_timestamp}) for t in turns]
            request = _add_request(
                messages=said,
                user_id=new.actor_id,
                run_id=new.session_id,
                metadata={**new.metadata, "agentcore_event_id": event_id},
                infer=True,
            )
        task = self.memories.submit(tenant_id, request) if request is not None else None
        event = StoredEvent(
            tenant_id=tenant_id,
            actor_id=new.actor_id,
            session_id=new.session_id,
            event_id=event_id,
            event_timestamp=new.event_timestamp,
            expires_at=utcnow() + self.event_expiry,
            payload=new.payload,
            branch=new.branch,
            metadata=new.metadata,
            task_id=task.task_id if task else None,
        )
        self.events.put(event)
        if self.users is not None:  # an actor is listed from its first event, as AgentCore lists it
            self.users.touch(tenant_id, new.actor_id, event.created_at)
        return event

    def get_event(self, tenant_id: str, memory_id: str, actor_id: str, session_id: str, event_id: str) -> StoredEvent:
        check_memory(tenant_id, memory_id)
        return self.events.get(tenant_id, actor_id, session_id, check_event_id(event_id))

    def delete_event(self, tenant_id: str, memory_id: str, actor_id: str, session_id: str, event_id: str) -> None:
        """The event only: memories read from it stay (delete those as memory records), as in AgentCore."""
        check_memory(tenant_id, memory_id)
        self.events.delete(tenant_id, actor_id, session_id, check_event_id(event_id))

    def list_events(
        self,
        tenant_id: str,
        memory_id: str,
        actor_id: str,
        session_id: str,
        branch: tuple[str, bool] | None,
        filters: Sequence[MetadataFilter],
        limit: int,
        token: str | None,
    ) -> EventPage:
        """Newest first. `branch`: (name, include the parent branch's events up to the branch's root)."""
        check_memory(tenant_id, memory_id)
        root = self._branch_root(tenant_id, actor_id, session_id, branch[0]) if branch and branch[1] else None

        def keep(event: StoredEvent) -> bool:
            if branch is not None:
                name = (event.branch or {}).get("name")
                on_parent = root is not None and name is None and event.event_id <= root
                if name != branch[0] and not on_parent:
                    return False
            return metadata_keeps(filters, event.metadata)

        return self.events.events(tenant_id, actor_id, session_id, keep, limit, token)

    def _branch_root(self, tenant_id: str, actor_id: str, session_id: str, name: str) -> str | None:
        """The event the branch forked from (its events name it as rootEventId)."""
        page = self.events.events(
            tenant_id, actor_id, session_id, lambda e: (e.branch or {}).get("name") == name, 1, None
        )
        return next((e.branch.get("rootEventId") for e in page.items if e.branch), None)

    def list_sessions(
        self, tenant_id: str, memory_id: str, actor_id: str, limit: int, token: str | None
    ) -> SessionPage:
        check_memory(tenant_id, memory_id)
        return self.events.sessions(tenant_id, actor_id, limit, token)

    def list_actors(self, tenant_id: str, memory_id: str, limit: int, token: str | None) -> UserPage:
        check_memory(tenant_id, memory_id)
        try:
            return self.memories.list_users(tenant_id, limit, token)
        except ValidationError as err:
            raise ValidationError("nextToken" if err.field == "cursor" else err.field, err.message) from err

    def ingest(
        self,
        tenant_id: str,
        memory_id: str,
        actor_id: str,
        session_id: str,
        turns: Sequence[tuple[str, str]],
        said_at: datetime,
        metadata: dict[str, str],
    ) -> str:
        """Content for extraction only (no event is kept): one add through the normal pipeline."""
        check_memory(tenant_id, memory_id)
        messages = [said_by(role, text, metadata, said_at) for role, text in turns]
        if messages:
            request = _add_request(messages=messages, user_id=actor_id, run_id=session_id, metadata=metadata)
            self.memories.submit(tenant_id, request)
        return session_id

    # --- extraction jobs ----------------------------------------------------------------------
    def failed_extractions(
        self, tenant_id: str, memory_id: str, actor_id: str, session_id: str, limit: int, token: str | None
    ) -> tuple[list[tuple[StoredEvent, Task]], str | None]:
        """The session's events whose add failed (AgentCore's failed extraction jobs), read `limit` events
        at a time: a page may hold fewer jobs while the token says there are more events."""
        check_memory(tenant_id, memory_id)
        page = self.events.events(tenant_id, actor_id, session_id, lambda e: e.task_id is not None, limit, token)
        failed: list[tuple[StoredEvent, Task]] = []
        for event in page.items:
            try:
                task = self.memories.task(tenant_id, str(event.task_id))
            except NotFoundError:  # tasks are kept 30 days; an older one says nothing now
                continue
            if task.status is TaskStatus.FAILED:
                failed.append((event, task))
        return failed, page.next_token

    def retry_extraction(self, tenant_id: str, memory_id: str, job_id: str) -> str:
        """The failed add of an event, submitted again as it was sent; the new task is the new job."""
        check_memory(tenant_id, memory_id)
        field = "extractionJob.jobId"
        try:
            task = self.memories.task(tenant_id, job_id)
        except NotFoundError as err:
            raise NotFoundError("extraction job", job_id) from err
        if task.status is not TaskStatus.FAILED or task.kind is not TaskKind.ADD:
            raise ValidationError(field, f"job {job_id!r} is {task.status.value}, not a failed extraction")
        request = load_request(task, self.memories.blobs)
        event_id = request.metadata.get("agentcore_event_id")
        if not isinstance(event_id, str) or request.run_id is None:
            raise ValidationError(field, f"job {job_id!r} is not the extraction of an event")
        event = self.events.get(tenant_id, request.user_id, request.run_id, event_id)
        again = self.memories.submit(tenant_id, request)
        self.events.put(event.model_copy(update={"task_id": again.task_id}))
        return again.task_id

    # --- memory records -----------------------------------------------------------------------
    def retrieve(
        self,
        tenant_id: str,
        memory_id: str,
        namespace: Namespace,
        query: str,
        top_k: int,
        filters: Sequence[MetadataFilter],
    ) -> list[tuple[Fact, float]]:
        """Engram's search of the actor's memories for `top_k` (its order depends on top_k), cut by the
        namespace and the metadata filters; when that cut leaves fewer than `top_k`, the next ones of a
        wider search follow, scored below all of Engram's top k, so that retrievals of several namespaces
        merged by score give Engram's own ranking."""
        check_memory(tenant_id, memory_id)

        def keeps(fact: Fact) -> bool:
            return namespace.holds(fact) and metadata_keeps(filters, fact.metadata)

        first = self.memories.search(tenant_id, SearchQuery(user_id=namespace.actor_id, query=query, top_k=top_k))
        kept = [(f, s) for f, s in first if keeps(f)]
        if len(kept) >= top_k or len(first) < top_k:  # nothing more to find: the actor has no more memories
            return kept[:top_k]
        wider = self.memories.search(
            tenant_id, SearchQuery(user_id=namespace.actor_id, query=query, top_k=_MAX_CANDIDATES)
        )
        seen = {f.id for f, _ in kept}
        more = [(f, s) for f, s in wider if f.id not in seen and keeps(f)]
        return kept + _below(more, first[-1][1])[: top_k - len(kept)]

    def list_records(
        self,
        tenant_id: str,
        memory_id: str,
        namespace: Namespace,
        filters: Sequence[MetadataFilter],
        limit: int,
        token: str | None,
    ) -> tuple[list[Fact], str | None]:
        """The actor's current memories in the namespace, newest first. A page may be short while
        nextToken says there is more (the filters run on each page read)."""
        check_memory(tenant_id, memory_id)
        try:
            page = self.memories.list_memories(tenant_id, namespace.actor_id, limit, token, SearchFilters())
        except ValidationError as err:
            raise ValidationError("nextToken" if err.field == "cursor" else err.field, err.message) from err
        facts = [f for f in page.items if namespace.holds(f) and metadata_keeps(filters, f.metadata)]
        return facts, page.next_cursor

    def get_record(self, tenant_id: str, memory_id: str, record: str) -> Fact:
        check_memory(tenant_id, memory_id)
        return self._fact(tenant_id, record)

    def delete_record(self, tenant_id: str, memory_id: str, record: str) -> None:
        check_memory(tenant_id, memory_id)
        self.memories.delete(tenant_id, self._memory_id(record), actor="agentcore")

    def _fact(self, tenant_id: str, record: str) -> Fact:
        return self.memories.get(tenant_id, self._memory_id(record))

    @staticmethod
    def _memory_id(record: str) -> str:
        try:
            return memory_id_of_record(record)
        except ValidationError as err:  # not one of ours: AgentCore answers an unknown id not found
            raise NotFoundError("memory record", record) from err

    def batch_create(self, tenant_id: str, memory_id: str, records: Sequence[NewRecord]) -> list[RecordOutcome]:
        """Each record stored as a memory as given, now, without extraction (what an add with
        `infer: false` keeps): one batch of changes per actor."""
        check_memory(tenant_id, memory_id)
        by_actor: dict[str, list[tuple[NewRecord, Fact]]] = {}
        for record in records:
            fact = _fact_of(tenant_id, record)
            by_actor.setdefault(fact.user_id, []).append((record, fact))
        outcomes: list[RecordOutcome] = []
        for actor, pairs in by_actor.items():
            batch = self.lifecycle.changes(tenant_id, actor)
            for _, fact in pairs:
                batch.add(fact, actor="agentcore")
            batch.commit()
            outcomes += [RecordOutcome(record_id(f.id), r.request_identifier) for r, f in pairs]
        return outcomes

    def batch_update(
        self, tenant_id: str, memory_id: str, updates: Sequence[tuple[str, str | None, dict[str, Any] | None]]
    ) -> list[RecordOutcome]:
        """Each (record id, new text, metadata merged in) as a correction; a failure is its record's."""
        check_memory(tenant_id, memory_id)
        outcomes: list[RecordOutcome] = []
        for record, text, metadata in updates:
            try:
                patch = MemoryPatch(text=text, metadata=metadata)
                self.memories.update(tenant_id, self._memory_id(record), patch)
                outcomes.append(RecordOutcome(record))
            except (EngramError, SchemaError) as err:
                outcomes.append(_failed(record, err))
        return outcomes

    def batch_delete(self, tenant_id: str, memory_id: str, records: Sequence[str]) -> list[RecordOutcome]:
        check_memory(tenant_id, memory_id)
        outcomes: list[RecordOutcome] = []
        for record in records:
            try:
                self.memories.delete(tenant_id, self._memory_id(record), actor="agentcore")
                outcomes.append(RecordOutcome(record))
            except EngramError as err:
                outcomes.append(_failed(record, err))
        return outcomes


def _fact_of(tenant_id: str, record: NewRecord) -> Fact:
    """A record as a memory: the namespace's strategy says which kind (summaries are the maintenance
    workflow's, made from other memories, so a namespace of that strategy is refused by the caller)."""
    parts = record.namespace.path.strip("/").split("/")
    strategy, session = parts[1], parts[5] if len(parts) >= 6 else None
    return Fact(
        tenant_id=tenant_id,
        user_id=record.namespace.actor_id,
        run_id=session,
        text=record.text,
        metadata=record.metadata,
        kind="episode" if strategy == EPISODIC else "fact",
        memory_bank=MemoryBank.INTERESTS if strategy == PREFERENCES else MemoryBank.GENERAL,
        valid_from=record.timestamp,
    )


def _failed(record: str, err: Exception) -> RecordOutcome:
    code = 404 if isinstance(err, NotFoundError) else 400 if isinstance(err, ValidationError | SchemaError) else 500
    return RecordOutcome(record, error_code=code, error_message=str(err) if code < 500 else "internal error")


def _below(hits: list[tuple[Fact, float]], floor: float) -> list[tuple[Fact, float]]:
    """The hits in their order, their scores scaled under `floor` (the lowest of a ranking they follow)."""
    cap = math.nextafter(floor, -math.inf)
    top = hits[0][1] if hits else 0.0
    scale = max(cap, 0.0) / top if top > max(cap, 0.0) else 1.0  # never negative: the order stays
    return [(f, s * scale) for f, s in hits]


def said_by(role: str, text: str, metadata: dict[str, str], said_at: datetime | None = None) -> Message:
    """One conversational turn as a message: a USER turn named by the event's `speaker` metadata."""
    name = metadata.get(SPEAKER_KEY, "").strip() if role == "USER" else ""
    return Message(role=_ROLES[role], content=text, name=name or None, created_at=said_at)


def _add_request(**fields: Any) -> AddRequest:
    """An add from AgentCore's fields; a refusal names the AgentCore field at fault."""
    try:
        return AddRequest(**fields)
    except SchemaError as err:
        first = err.errors()[0]
        loc = [str(p) for p in first.get("loc", ())]
        name = _FIELDS.get(loc[0], loc[0]) if loc else "payload"
        if loc[:1] == ["messages"] and loc[2:3] == ["created_at"]:
            name = "eventTimestamp"
        raise ValidationError(name, first.get("msg", "invalid")) from err
