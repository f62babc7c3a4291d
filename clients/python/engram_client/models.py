"""Typed results. Unknown fields are kept (extra="allow") so a newer server never breaks an older SDK."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class _Open(BaseModel):
    # defer_build: validators are built on first use, not at import (most programs use a few models).
    model_config = ConfigDict(extra="allow", defer_build=True)


class AttachmentRef(_Open):
    id: str
    name: str | None = None
    media_type: str | None = None


class Memory(_Open):
    id: str
    memory: str
    user_id: str
    agent_id: str | None = None
    run_id: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    memory_bank: str = "General"
    fact_key: str | None = None
    fact_value: str | None = None
    importance: float = 0.5
    is_protected: bool = False
    attachments: list[AttachmentRef] = Field(default_factory=list)
    version: int = 1
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    kind: str | None = None
    source: dict[str, Any] | None = None
    # What it states: {subject, attribute, value, polarity, single, event_time, outdated_by} each.
    statements: list[dict[str, Any]] = Field(default_factory=list)
    score: float | None = None


class Relation(_Open):
    source: str
    relation: str
    destination: str


class SearchResults(_Open):
    results: list[Memory]
    relations: list[Relation] = Field(default_factory=list)


class Page(_Open):
    results: list[Memory]
    next_cursor: str | None = None


class TaskResult(_Open):
    id: str
    memory: str
    event: str
    previous_memory: str | None = None
    attachments: list[str] = Field(default_factory=list)


class Skipped(_Open):
    text: str
    reason: str  # "excluded: Health", "not included"


class RelationTriple(_Open):
    """A graph relation an add changed: (source, relation, destination) and its id."""

    id: str
    source: str
    relation: str
    destination: str


class RefinedRelation(RelationTriple):
    refined_from: RelationTriple  # the closed version this one replaced in place


class TaskRelations(_Open):
    added: list[RelationTriple] = Field(default_factory=list)
    closed: list[RelationTriple] = Field(default_factory=list)
    refined: list[RefinedRelation] = Field(default_factory=list)


class Prompts(_Open):
    extraction: str | None = None
    reconcile: str | None = None
    graph: str | None = None


class TenantConfig(_Open):
    """The tenant's memory policy (GET/PUT /v1/config)."""

    instructions: str = ""
    include: list[str] = Field(default_factory=list)
    exclude: list[str] = Field(default_factory=list)
    prompts: Prompts = Field(default_factory=Prompts)
    redact: list[str] = Field(default_factory=list)  # kinds of personal data replaced before storage


class Task(_Open):
    task_id: str
    status: str
    results: list[TaskResult] = Field(default_factory=list)
    error: str | None = None
    counts: dict[str, int] = Field(default_factory=dict)
    attempts: int = 0
    note: str | None = None  # why a completed add changed no memory (servers that report it)
    skipped: list[Skipped] = Field(default_factory=list)  # what the memory policy left out, and why
    relations: TaskRelations = Field(default_factory=TaskRelations)  # graph relations added, closed, refined

    @property
    def done(self) -> bool:
        return self.status in ("completed", "failed")


class HistoryEntry(_Open):
    id: str | None = None
    memory_id: str
    event: str
    old_memory: str | None = None
    new_memory: str | None = None
    actor: str | None = None
    task_id: str | None = None
    version: int = 1
    attachments_added: list[str] = Field(default_factory=list)
    attachments_removed: list[str] = Field(default_factory=list)
    note: str | None = None
    created_at: datetime | None = None


class Attachment(_Open):
    id: str
    name: str
    media_type: str
    size: int | None = None
    checksum: str | None = None
    description: str | None = None
    stored: bool = False
    download_url: str | None = None
    memory_ids: list[str] = Field(default_factory=list)  # a page of them; next_cursor for the rest
    next_cursor: str | None = None


class AttachmentCreated(_Open):
    attachment_id: str
    upload_url: str | None = None
    stored: bool = False


class Deleted(_Open):
    """A delete-all: `deleted` is known at once (200) or once its task completed (202 + wait)."""

    deleted: int | None = None
    task_id: str | None = None
    status: str | None = None
    message: str | None = None


# --- graph ----------------------------------------------------------------------------------------


class GraphRelation(_Open):
    """A relation between two entities; `valid_to` is set once it was closed (a newer fact replaced it)."""

    id: str
    source: str
    relation: str
    destination: str
    source_entity_id: str | None = None
    destination_entity_id: str | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    score: float | None = None
    memory_ids: list[str] = Field(default_factory=list)  # the memories that state it
    closed_by: str | None = None
    refined_from: str | None = None  # the version it changed in place


class Entity(_Open):
    id: str
    name: str
    type: str | None = None
    aliases: list[str] = Field(default_factory=list)
    created_at: datetime | None = None
    updated_at: datetime | None = None
    relations: list[GraphRelation] = Field(default_factory=list)  # GET /v1/graph/entities/{id}: all, closed too


class Graph(_Open):
    """One page of a user's entities and one of their current relations (each with its own cursor)."""

    entities: list[Entity]
    relations: list[GraphRelation]
    next_entity_cursor: str | None = None
    next_relation_cursor: str | None = None


class RelationDeleted(_Open):
    id: str
    valid_to: datetime | None = None
    message: str | None = None


# --- operations -----------------------------------------------------------------------------------


class HealthCheck(_Open):
    ok: bool
    latency_ms: float | None = None
    error: str | None = None
    detail: str | None = None


class Health(_Open):
    """`status` "ok"; a deep check adds one result per dependency (`checks`) and which are `down`."""

    status: str
    checks: dict[str, HealthCheck] | None = None
    down: list[str] | None = None


class QueueMetrics(_Open):
    """The tenant's extraction queue: gauges now, and totals over the window asked for."""

    pending: int = 0
    processing: int = 0
    completed: int = 0
    failed: int = 0
    avg_duration_sec: float = 0.0
    oldest_pending_age_sec: float = 0.0


class UsageDay(_Open):
    date: str
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    adds: int = 0
    failed_adds: int = 0
    searches: int = 0
    memories_stored: int = 0


class Usage(_Open):
    """Every day of the range, oldest first (zeros included), and their sums."""

    model_config = ConfigDict(extra="allow", defer_build=True, populate_by_name=True)

    from_: str = Field(alias="from")
    to: str
    days: list[UsageDay]
    totals: UsageDay


class MaintenanceStarted(_Open):
    execution_id: str
    status: str = "RUNNING"


class MaintenanceRun(_Open):
    execution_id: str
    status: str  # RUNNING, SUCCEEDED, FAILED, TIMED_OUT, ABORTED
    actions: list[str] | None = None
    user_id: str | None = None
    started_at: datetime | None = None
    stopped_at: datetime | None = None
    error: str | None = None
    report: Any = None

    @property
    def done(self) -> bool:
        return self.status != "RUNNING"


class User(_Open):
    user_id: str
    last_active_at: datetime | None = None


class UsersPage(_Open):
    results: list[User]
    next_cursor: str | None = None
