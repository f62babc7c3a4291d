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


class Task(_Open):
    task_id: str
    status: str
    results: list[TaskResult] = Field(default_factory=list)
    error: str | None = None
    counts: dict[str, int] = Field(default_factory=dict)
    attempts: int = 0
    note: str | None = None  # why a completed add changed no memory (servers that report it)
    skipped: list[Skipped] = Field(default_factory=list)  # what the memory policy left out, and why

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
