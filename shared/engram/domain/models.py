"""Domain data: facts (memories), history events, tasks and what flows between pipeline steps."""

from __future__ import annotations

import hashlib
import math
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Any, Literal

from pydantic import AwareDatetime, ConfigDict, Field, field_validator, model_validator

from engram.domain.limits import (
    MAX_CLOCK_SKEW_S,
    MAX_ID_CHARS,
    MAX_IMPORTANCE,
    MAX_MESSAGES,
    MIN_IMPORTANCE,
    Importance,
    MessageText,
    Metadata,
    ScopeId,
)
from engram.domain.model_base import Model
from engram.domain.policy import Entries, Instructions, Skipped
from engram.domain.relation_changes import TaskRelations
from engram.domain.statements import Statement


def utcnow() -> datetime:
    return datetime.now(UTC)


def new_id() -> str:
    return str(uuid.uuid4())


def text_hash(text: str) -> str:
    return hashlib.md5(text.strip().lower().encode("utf-8"), usedforsecurity=False).hexdigest()


class MemoryBank(StrEnum):
    PERSONAL = "Personal"
    WORK = "Work"
    RELATIONSHIPS = "Relationships"
    HEALTH = "Health"
    INTERESTS = "Interests"
    EVENTS = "Events"
    GENERAL = "General"


class Event(StrEnum):
    """What happened to a memory. ADD/UPDATE/DELETE/NONE are the reconciliation verbs."""

    ADD = "ADD"
    UPDATE = "UPDATE"
    DELETE = "DELETE"
    NONE = "NONE"


class Scope(Model):
    """Who a memory belongs to. tenant_id comes from the API key, never from the body."""

    model_config = ConfigDict(frozen=True)

    tenant_id: str
    user_id: str
    agent_id: str | None = None
    run_id: str | None = None


class Message(Model):
    role: Literal["user", "assistant", "system", "tool"]
    content: MessageText
    name: str | None = Field(default=None, max_length=MAX_ID_CHARS)
    # When it was said: ISO 8601 with a zone, or Unix seconds. Without it, when the add was accepted.
    created_at: AwareDatetime | None = None

    @field_validator("created_at")
    @classmethod
    def _not_in_future(cls, value: datetime | None) -> datetime | None:
        if value is not None and value > utcnow() + timedelta(seconds=MAX_CLOCK_SKEW_S):
            raise ValueError(f"is in the future (more than {MAX_CLOCK_SKEW_S} s ahead of the server's clock)")
        return value.astimezone(UTC) if value is not None else None


MemoryKind = Literal["fact", "episode", "instruction"]


SpeakerRole = Literal["user", "assistant", "tool"]


SourceVia = Literal["add", "as_given", "patch"]  # how a memory's text came to be (MemorySource.via)


class MemorySource(Model):
    """Where a memory came from: the add task and, when known, the message within it and who said
    it (the message's role and `name`), so "Thanks!" stored as given still says the assistant said it."""

    task_id: str
    message_index: int | None = None
    role: SpeakerRole | None = None  # None: memories stored before roles were kept, or no one role said it
    name: str | None = None
    span: tuple[int, int] | None = None  # the characters [start, end) of the message a part of it keeps
    at: datetime | None = None  # when the message was said (kept by an import of an export)
    # "patch": a person corrected the memory's text (PATCH); no message lies behind that version.
    # "as_given": an add with `infer: false` stored the message as said (a kept message, like an episode).
    via: SourceVia = "add"


SPEAKER_KEY = "speaker"  # the index metadata key of who said a memory (index_ports.Speakers)


class Fact(Model):
    """A memory. The id is stable across versions; `version` is the optimistic lock."""

    id: str = Field(default_factory=new_id)
    tenant_id: str
    user_id: str
    agent_id: str | None = None
    run_id: str | None = None
    text: str
    fact_key: str | None = None
    fact_value: str | None = None
    memory_bank: MemoryBank = MemoryBank.GENERAL
    importance: Importance = 0.5
    metadata: dict[str, Any] = Field(default_factory=dict)
    attachment_ids: list[str] = Field(default_factory=list)
    valid_from: datetime = Field(default_factory=utcnow)
    valid_to: datetime | None = None
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)
    last_accessed_at: datetime | None = None
    access_count: int = 0
    is_protected: bool = False
    is_summarized: bool = False
    summarized_from: list[str] = Field(default_factory=list)
    version: int = 1
    embedding_model: str | None = None
    source: MemorySource | None = None
    expires_at: datetime | None = None  # hidden from reads once passed (unless protected); expire closes it
    # "episode": a message kept in its own words beside the facts read from it; "instruction": a sentence
    # addressed to the assistant, kept apart and never injected unless the tenant opts in (docs/safety.md)
    kind: MemoryKind = "fact"
    episode_id: str | None = None  # a fact's episode: the message it came from, kept as said
    # An episode part of which later statements replaced: the memories that did (what it says of
    # them is outdated; the rest still holds).
    outdated_by: list[str] = Field(default_factory=list)
    # What it says, read when it was written and again when its text changes (domain/statements.py).
    statements: list[Statement] = Field(default_factory=list)
    hash: str = ""

    @property
    def speaker(self) -> str | None:
        """Who said it: the `name` of the message it was made from (one place for raw turns, episodes and
        facts read from one message); a `speaker` a client put in metadata only where no message named one."""
        if self.source is not None and self.source.name:
            return self.source.name
        said = self.metadata.get(SPEAKER_KEY)
        return said if isinstance(said, str) and said else None

    @field_validator("importance", mode="before")
    @classmethod
    def _stored_unbounded(cls, value: Any) -> Any:
        # Memories stored before importance had bounds (a relevance reply of 7 was kept as 7) read
        # back clamped instead of failing every read of them; new values are bounded where they enter.
        if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
            return min(MAX_IMPORTANCE, max(MIN_IMPORTANCE, float(value)))
        return value

    def model_post_init(self, __context: Any) -> None:
        if not self.hash:
            self.hash = text_hash(self.text)

    @property
    def scope(self) -> Scope:
        return Scope(tenant_id=self.tenant_id, user_id=self.user_id, agent_id=self.agent_id, run_id=self.run_id)

    @property
    def is_current(self) -> bool:
        return self.valid_to is None

    @property
    def kept_as_said(self) -> bool:
        """A message kept in its own words (an episode, or stored as given): it may say several things,
        so a later statement outdates part of it (`outdated_by`) and never closes it."""
        return self.kind == "episode" or (self.source is not None and self.source.via == "as_given")

    def expired(self, now: datetime) -> bool:
        # A protected memory does not expire: no automatic process closes it. Its expires_at is
        # kept and counts again once the client lifts the protection.
        return self.expires_at is not None and self.expires_at <= now and not self.is_protected


class HistoryEvent(Model):
    id: str = Field(default_factory=new_id)
    memory_id: str
    tenant_id: str
    user_id: str
    event: Event
    old_memory: str | None = None
    new_memory: str | None = None
    actor: str = "system"
    task_id: str | None = None
    version: int = 1
    attachments_added: list[str] = Field(default_factory=list)
    attachments_removed: list[str] = Field(default_factory=list)
    note: str | None = None
    created_at: datetime = Field(default_factory=utcnow)


class ExtractionPrompt(StrEnum):
    USER = "user"
    AGENT = "agent"


class ReconcileStrategy(StrEnum):
    DEFAULT = "default"  # ADD / UPDATE / DELETE / NONE against similar memories
    RELEVANCE = "relevance"  # relevance-scored NEW / UPDATE / DELETE; an UPDATE keeps every detail


class AttachmentInput(Model):
    """An attachment of an add call: an uploaded one by id, or small content sent inline."""

    model_config = ConfigDict(extra="forbid")

    attachment_id: str | None = Field(default=None, min_length=1, max_length=64)
    name: str | None = Field(default=None, min_length=1, max_length=512)
    media_type: str | None = Field(default=None, min_length=3, max_length=255)
    content_base64: str | None = None
    description: str | None = Field(default=None, max_length=2000)

    @model_validator(mode="after")
    def _id_or_content(self) -> AttachmentInput:
        if self.attachment_id is None and (self.content_base64 is None or not self.name or not self.media_type):
            raise ValueError("give attachment_id, or name, media_type and content_base64")
        if self.attachment_id is not None and self.content_base64 is not None:
            raise ValueError("give attachment_id or content_base64, not both")
        return self


class Attachment(Model):
    id: str = Field(default_factory=new_id)
    tenant_id: str
    user_id: str | None = None
    name: str
    media_type: str
    size: int | None = None
    checksum: str | None = None  # sha256 hex of the bytes
    description: str | None = None
    blob_key: str
    stored: bool = False  # False until the bytes are in the blob store
    deleted: bool = False  # bytes removed once no memory held it any more
    created_at: datetime = Field(default_factory=utcnow)


class AddRequest(Model):
    """What a client asked to remember; stored with the task before the 202."""

    model_config = ConfigDict(extra="forbid")  # a misspelt option is an error, not a silent default

    messages: list[Message] = Field(min_length=1, max_length=MAX_MESSAGES)
    user_id: ScopeId
    agent_id: ScopeId | None = None
    run_id: ScopeId | None = None
    metadata: Metadata = Field(default_factory=dict)
    infer: bool = True
    deduplicate: bool = True
    expires_at: AwareDatetime | None = None  # the memories this add creates are forgotten then
    prompt: ExtractionPrompt | None = None
    strategy: ReconcileStrategy = ReconcileStrategy.DEFAULT
    attachments: list[AttachmentInput] = Field(default_factory=list, max_length=50)
    # This add's policy (domain/policy.py), each in place of the tenant's when given
    instructions: Instructions | None = None
    include: Entries | None = None
    exclude: Entries | None = None

    @property
    def attachment_ids(self) -> list[str]:
        """Ids of the call's attachments (inline ones are given ids before the request is stored)."""
        return [a.attachment_id for a in self.attachments if a.attachment_id]


class TaskStatus(StrEnum):
    QUEUED = "queued"
    PROCESSING = "processing"
    COMPLETED = "completed"
    FAILED = "failed"
    WAITING = "waiting"  # the LLM circuit breaker is open; `error` says why; it runs once it closes


class TaskResult(Model):
    id: str
    memory: str
    event: Event
    previous_memory: str | None = None
    attachments: list[str] = Field(default_factory=list)
    note: str | None = None


class Usage(Model):
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def add(self, other: Usage) -> None:
        self.llm_calls += other.llm_calls
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens


class TaskKind(StrEnum):
    ADD = "add"  # extract and reconcile the request's messages
    DELETE_ALL = "delete_all"  # forget every current memory of the user
    IMPORT = "import"  # write exported memories as they were (services/importer.py)


class Task(Model):
    task_id: str = Field(default_factory=new_id)
    tenant_id: str
    user_id: str
    kind: TaskKind = TaskKind.ADD  # tasks stored before kinds existed are adds
    status: TaskStatus = TaskStatus.QUEUED
    request: AddRequest | None = None  # None when the payload lives in the blob store
    payload_key: str | None = None
    results: list[TaskResult] = Field(default_factory=list)
    error: str | None = None
    attempts: int = 0
    counts: dict[str, int] = Field(default_factory=dict)
    usage: Usage = Field(default_factory=Usage)
    processed_with: list[str] = Field(default_factory=list)  # tasks of one user extracted in one run
    note: str | None = None  # why a completed add changed no memory (nothing said, duplicates, ...)
    skipped: list[Skipped] = Field(default_factory=list)  # what the policy left out, and why
    relations: TaskRelations = Field(default_factory=TaskRelations)  # graph relations it added, closed, refined
    # Kept past the usual expiry while it is the source of memories, so their source can be shown.
    retained: bool = False
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)
    started_at: datetime | None = None
    finished_at: datetime | None = None


class IndexDoc(Model):
    """What the vector + text index holds for a current fact (1:1 with current facts)."""

    id: str
    tenant_id: str
    user_id: str
    agent_id: str | None = None
    run_id: str | None = None
    text: str
    vector: list[float]
    metadata: dict[str, Any] = Field(default_factory=dict)
    memory_bank: str = MemoryBank.GENERAL.value
    created_at: datetime = Field(default_factory=utcnow)
    # The memory as a search answers it, so a search needs no fact-store read (indexes that keep it
    # implement index_ports.FactViews); None for documents written without it.
    fact: Fact | None = None
    # What the memory states (domain/statements.py): the index keeps each one's attribute and subject as
    # exact-match keys, so a search can ask for the memories stating an attribute (SearchFilters.attribute).
    statements: list[Statement] = Field(default_factory=list)


class SearchFilters(Model):
    """Exact-match filters applied inside the index query, never after it."""

    agent_id: str | None = None
    run_id: str | None = None
    memory_bank: str | None = None
    metadata: dict[str, str | int | float | bool] = Field(default_factory=dict)
    # Memories with a statement of this attribute (and of this subject): searches only, the index holds them.
    attribute: str | None = None
    subject: str | None = None


@dataclass(frozen=True, slots=True)
class ScoredId:
    """One search hit. Indexes build a few hundred per query, so not a pydantic model: creating
    them cost 1.7 ms of a 3.9 ms ranking over 10k memories."""

    id: str
    score: float


class MemoryPatch(Model):
    """A correction of one memory; fields left out (None) stay as they are."""

    text: str | None = Field(default=None, min_length=1, max_length=8000, pattern=r"^[^\x00]*$")
    metadata: Metadata | None = None  # merged into the memory's metadata
    importance: Importance | None = None
    is_protected: bool | None = None
    memory_bank: MemoryBank | None = None
    expires_at: AwareDatetime | None = None


class SearchQuery(Model):
    """One relevance query of one user's memories (the tenant comes from the API key)."""

    user_id: str
    query: str
    top_k: int = 10
    filters: SearchFilters | None = None
    threshold: float | None = None
    as_of: datetime | None = None  # rank the versions that were current then
    time_range: tuple[datetime, datetime] | None = None  # only memories valid from within [start, end)
    now: datetime | None = None  # when the question is asked: "last week" resolves against it


class Page(Model):
    items: list[Fact]
    next_cursor: str | None = None


class UserActivity(Model):
    """One user of a tenant, as the tenant's user listing shows it."""

    user_id: str
    last_active_at: datetime


class UserPage(Model):
    items: list[UserActivity]
    next_cursor: str | None = None


class HistoryPage(Model):
    items: list[HistoryEvent]
    next_cursor: str | None = None
