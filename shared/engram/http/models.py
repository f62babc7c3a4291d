"""Request and response bodies of the HTTP API (validated by the Powertools resolver)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from engram.domain.models import (
    Attachment,
    Event,
    Fact,
    HistoryEvent,
    MemoryBank,
    Task,
    TaskKind,
    TaskResult,
    TaskStatus,
    Usage,
)


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Accepted(BaseModel):
    task_id: str
    status: TaskStatus


class TaskView(BaseModel):
    task_id: str
    kind: TaskKind = TaskKind.ADD
    status: TaskStatus
    results: list[TaskResult]
    error: str | None = None
    counts: dict[str, int] = Field(default_factory=dict)
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


class SearchBody(Strict):
    query: str = Field(min_length=1, max_length=4000)
    user_id: str = Field(min_length=1, max_length=256)
    agent_id: str | None = Field(default=None, max_length=256)
    run_id: str | None = Field(default=None, max_length=256)
    top_k: int = Field(default=10, ge=1, le=100)
    filters: MetadataFilters | None = None
    threshold: float | None = Field(default=None, ge=0.0, le=1.0)


class AttachmentRef(BaseModel):
    id: str
    name: str | None = None
    media_type: str | None = None


class MemoryView(BaseModel):
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
    attachments: list[AttachmentRef] = Field(default_factory=list)
    version: int
    created_at: datetime
    updated_at: datetime
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
            attachments=[
                AttachmentRef(
                    id=a,
                    name=known[a].name if a in known else None,
                    media_type=known[a].media_type if a in known else None,
                )
                for a in fact.attachment_ids
            ],
            version=fact.version,
            created_at=fact.created_at,
            updated_at=fact.updated_at,
            score=score,
        )


class SearchResponse(BaseModel):
    results: list[MemoryView]


class ListResponse(BaseModel):
    results: list[MemoryView]
    next_cursor: str | None = None


class PatchBody(Strict):
    text: str | None = Field(default=None, min_length=1, max_length=8000)
    metadata: dict[str, Any] | None = None
    importance: float | None = Field(default=None, ge=0.0, le=1.0)
    is_protected: bool | None = None

    @model_validator(mode="after")
    def _something_to_change(self) -> PatchBody:
        if self.text is None and self.metadata is None and self.importance is None and self.is_protected is None:
            raise ValueError("give at least one of text, metadata, importance, is_protected")
        return self


class HistoryView(BaseModel):
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
    created_at: datetime

    @classmethod
    def of(cls, event: HistoryEvent) -> HistoryView:
        return cls.model_validate(event.model_dump())


class HistoryResponse(BaseModel):
    results: list[HistoryView]
    next_cursor: str | None = None


class Deleted(BaseModel):
    deleted: int
    message: str


class AttachmentCreate(Strict):
    name: str = Field(min_length=1, max_length=512)
    media_type: str = Field(min_length=3, max_length=255, pattern=r"^[\w.+-]+/[\w.+-]+$")
    description: str | None = Field(default=None, max_length=2000)
    content_base64: str | None = None


class AttachmentCreated(BaseModel):
    attachment_id: str
    upload_url: str | None = None
    stored: bool


class AttachmentView(BaseModel):
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
    memory_ids: list[str]
