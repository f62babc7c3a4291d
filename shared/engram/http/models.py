"""Request and response bodies of the HTTP API (validated by the Powertools resolver)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from pydantic import ConfigDict, Field, model_validator

from engram.domain.limits import MAX_QUERY_CHARS, ScopeId
from engram.domain.model_base import Model
from engram.domain.models import (
    Attachment,
    Event,
    Fact,
    HistoryEvent,
    MemoryBank,
    MemoryKind,
    MemoryPatch,
    MemorySource,
    Message,
    SearchFilters,
    SearchQuery,
    Task,
    TaskKind,
    TaskResult,
    TaskStatus,
    Usage,
    UserPage,
)
from engram.domain.policy import Skipped
from engram.domain.relation_changes import TaskRelations
from engram.domain.statements import Statement
from engram.http.graph_models import RelationView


class Strict(Model):
    model_config = ConfigDict(extra="forbid")


class Accepted(Model):
    task_id: str
    status: TaskStatus


class TaskView(Model):
    task_id: str
    kind: TaskKind = TaskKind.ADD
    status: TaskStatus
    results: list[TaskResult]
    error: str | None = None
    counts: dict[str, int] = Field(default_factory=dict)
    note: str | None = None  # why a completed add changed no memory
    skipped: list[Skipped] = Field(default_factory=list)  # what the memory policy left out, and why
    relations: TaskRelations = Field(default_factory=TaskRelations)  # graph relations added, closed, refined
    usage: Usage
    attempts: int
    created_at: datetime
    updated_at: datetime

    @classmethod
    def of(cls, task: Task) -> TaskView:
        return cls.model_validate(task.model_dump())


class MetadataFilters(Strict):
    memory_bank: MemoryBank | None = None
    metadata: dict[str, str | int | float | bool] = Field(default_factory=dict)


def aware(when: datetime | None) -> datetime | None:
    """A time without a zone is read as UTC."""
    return when.replace(tzinfo=UTC) if when is not None and when.tzinfo is None else when


class TimeRangeBody(Strict):
    """Event time: memories said (or holding) from `from` up to `to`. Times without a zone are UTC."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    start: datetime = Field(alias="from")
    end: datetime = Field(alias="to")

    @model_validator(mode="after")
    def _ordered(self) -> TimeRangeBody:
        if aware(self.end) <= aware(self.start):  # type: ignore[operator]
            raise ValueError("'to' must be after 'from'")
        return self


class SearchBody(Strict):
    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    user_id: ScopeId
    agent_id: ScopeId | None = None
    run_id: ScopeId | None = None
    top_k: int = Field(default=10, ge=1, le=100)
    filters: MetadataFilters | None = None
    threshold: float | None = Field(default=None, ge=0.0, le=1.0)
    as_of: datetime | None = None  # rank the versions that were current at this time
    time_range: TimeRangeBody | None = None  # only memories valid from within this span of event time
    now: datetime | None = None  # when the question is asked (default: the server's clock)
    graph: bool = True  # false: no relations in the answer
    graph_hops: int = Field(default=1, ge=1, le=2)

    def to_query(self) -> SearchQuery:
        wanted = self.filters
        filters = SearchFilters(
            agent_id=self.agent_id,
            run_id=self.run_id,
            memory_bank=wanted.memory_bank.value if wanted and wanted.memory_bank else None,
            metadata=wanted.metadata if wanted else {},
        )
        return SearchQuery(
            user_id=self.user_id,
            query=self.query,
            top_k=self.top_k,
            filters=filters,
            threshold=self.threshold,
            as_of=aware(self.as_of),
            time_range=(aware(self.time_range.start), aware(self.time_range.end)) if self.time_range else None,
            now=aware(self.now),
        )


class AttachmentRef(Model):
    id: str
    name: str | None = None
    media_type: str | None = None


class MemoryView(Model):
    id: str
    memory: str
    user_id: str
    agent_id: str | None = None
    run_id: str | None = None
    metadata: dict[str, Any]
    memory_bank: MemoryBank
    fact_key: str | None = None
    fact_value: str | None = None
    importance: float
    is_protected: bool = False
    attachments: list[AttachmentRef] = Field(default_factory=list)
    version: int
    valid_from: datetime
    valid_to: datetime | None = None
    created_at: datetime
    updated_at: datetime
    last_accessed_at: datetime | None = None
    access_count: int = 0
    is_summarized: bool = False
    summarized_from: list[str] = Field(default_factory=list)
    source: MemorySource | None = None
    expires_at: datetime | None = None
    kind: MemoryKind = "fact"
    episode_id: str | None = None  # a fact's episode: the message it was read from, kept as said
    outdated_by: list[str] = Field(default_factory=list)  # an episode part of which later memories replaced
    statements: list[Statement] = Field(default_factory=list)  # what it states (domain/statements.py)
    source_messages: list[Message] | None = None  # with ?include=source, while the input is retained
    score: float | None = None

    @classmethod
    def of(cls, fact: Fact, score: float | None = None, details: Mapping[str, Attachment] | None = None) -> MemoryView:
        known = details or {}
        return cls(
            id=fact.id,
            memory=fact.text,
            user_id=fact.user_id,
            agent_id=fact.agent_id,
            run_id=fact.run_id,
            metadata=fact.metadata,
            memory_bank=fact.memory_bank,
            fact_key=fact.fact_key,
            fact_value=fact.fact_value,
            importance=fact.importance,
            is_protected=fact.is_protected,
            attachments=[
                AttachmentRef(
                    id=a,
                    name=known[a].name if a in known else None,
                    media_type=known[a].media_type if a in known else None,
                )
                for a in fact.attachment_ids
            ],
            version=fact.version,
            valid_from=fact.valid_from,
            valid_to=fact.valid_to,
            created_at=fact.created_at,
            updated_at=fact.updated_at,
            last_accessed_at=fact.last_accessed_at,
            access_count=fact.access_count,
            is_summarized=fact.is_summarized,
            summarized_from=fact.summarized_from,
            source=fact.source,
            expires_at=fact.expires_at,
            kind=fact.kind,
            episode_id=fact.episode_id,
            outdated_by=fact.outdated_by,
            statements=fact.statements,
            score=score,
        )


class SearchResponse(Model):
    results: list[MemoryView]
    relations: list[RelationView] = Field(default_factory=list)  # graph memory around the query


class ListResponse(Model):
    results: list[MemoryView]
    next_cursor: str | None = None


class PatchBody(MemoryPatch):
    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="after")
    def _something_to_change(self) -> PatchBody:
        if all(getattr(self, f) is None for f in type(self).model_fields):
            raise ValueError(f"give at least one of {', '.join(type(self).model_fields)}")
        return self


class HistoryView(Model):
    id: str
    memory_id: str
    event: Event
    old_memory: str | None
    new_memory: str | None
    actor: str
    task_id: str | None
    version: int
    attachments_added: list[str]
    attachments_removed: list[str]
    note: str | None = None  # why: "pruned", "summarised into <id>", what validation repaired, ...
    created_at: datetime

    @classmethod
    def of(cls, event: HistoryEvent) -> HistoryView:
        return cls.model_validate(event.model_dump())


class HistoryResponse(Model):
    results: list[HistoryView]
    next_cursor: str | None = None


class Deleted(Model):
    deleted: int
    message: str


class AttachmentCreate(Strict):
    name: str = Field(min_length=1, max_length=512)
    media_type: str = Field(min_length=3, max_length=255, pattern=r"^[\w.+-]+/[\w.+-]+$")
    description: str | None = Field(default=None, max_length=2000)
    content_base64: str | None = None


class AttachmentCreated(Model):
    attachment_id: str
    upload_url: str | None = None
    stored: bool


class AttachmentView(Model):
    id: str
    name: str
    media_type: str
    size: int | None
    checksum: str | None
    description: str | None
    stored: bool
    deleted: bool
    created_at: datetime
    download_url: str | None
    memory_ids: list[str]  # a page of the memories holding it (`limit`, `cursor`)
    next_cursor: str | None = None


# --- the tenant's users (GET /v1/users) ---------------------------------------------------------
class UserView(Model):
    user_id: str
    last_active_at: datetime


class UsersResponse(Model):
    results: list[UserView]
    next_cursor: str | None = None

    @classmethod
    def of(cls, page: UserPage) -> UsersResponse:
        return cls(results=[UserView(**u.model_dump()) for u in page.items], next_cursor=page.next_cursor)
