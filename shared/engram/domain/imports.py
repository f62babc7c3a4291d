"""Exported memories written back as they were: the import request and each memory's import id.

An import stores memories without extraction or reconciliation, so every field an export wrote of a
current memory (text, kind, bank, importance, protection, key/value, both clocks, expiry, metadata,
attachments, who said it, version and reads, episode, outdated and summary markers) comes back
unchanged. Each memory's import id is a hash of the target tenant and scope and of the exported
memory's id (of its own fields when the line has no id): its memory id is derived from it, so importing
the same file into the same user twice adds nothing, a task redelivered half-way writes no duplicates,
and the ids memories give of each other (episode_id, outdated_by, summarized_from) translate to the
target's, whichever request of the import carries the memory they name.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from datetime import datetime
from typing import Annotated

from pydantic import AwareDatetime, ConfigDict, Field, ValidationInfo, field_validator

from engram.domain.limits import MAX_ID_CHARS, Metadata, ScopeId
from engram.domain.model_base import Model
from engram.domain.models import Event, MemoryBank, MemoryKind, SourceVia, SpeakerRole
from engram.domain.statements import Statement

EXPORT_TYPE = "engram-export"
EXPORT_VERSION = 5  # 4: graph relations after the memories; 5: each memory's statements
MAX_IMPORT_MEMORIES = 500  # per import request (a bigger file is sent in several)
MAX_IMPORT_RELATIONS = 1000  # graph relations per import request
MAX_NAME_CHARS = 500  # an entity's name or alias, a relation's kind
MAX_IMPORT_TEXT_CHARS = 8000  # as a corrected memory (PATCH) may hold
MAX_IMPORT_ATTACHMENTS = 50  # as an add may carry
MAX_IMPORT_HISTORY = 1000  # events of one memory
MAX_IMPORT_STATEMENTS = 100  # statements of one memory
_NAMESPACE = uuid.UUID("6f6b3c1e-2a4d-4d38-9a51-1d6e0c7b8a90")  # of imported memory ids


def closed_after_it_began(cls: type, value: datetime | None, info: ValidationInfo) -> datetime | None:
    """`valid_to`, when given, is not before `valid_from` (a memory version's, a relation's)."""
    began = info.data.get("valid_from")
    if value is not None and began is not None and value < began:
        raise ValueError("is before valid_from")
    return value


class ImportedSource(Model):
    """Where the exported memory came from, as far as the exporter knew it."""

    model_config = ConfigDict(extra="ignore")

    task_id: str | None = Field(default=None, max_length=MAX_ID_CHARS)
    message_index: int | None = Field(default=None, ge=0)
    role: SpeakerRole | None = None  # as the memory keeps it (a "system" one failed the import task)
    name: str | None = Field(default=None, max_length=MAX_ID_CHARS)  # who said it (the message's `name`)
    at: AwareDatetime | None = None  # when the message was received
    span: tuple[Annotated[int, Field(ge=0)], Annotated[int, Field(ge=0)]] | None = None  # the part of it kept
    via: SourceVia = "add"  # "patch": a person corrected the text; "as_given": stored as said


class ImportedAttachment(Model):
    """An attachment of the memory, by its id in this deployment (the CLI uploads the exported bytes
    first and sends the new id); name and media type are carried for readers and ignored here."""

    model_config = ConfigDict(extra="ignore")

    id: str = Field(min_length=1, max_length=64)


class ImportedEvent(Model):
    """One event of the exported memory's history, kept as it was (its ids are the exporter's)."""

    model_config = ConfigDict(extra="ignore")

    id: str = Field(min_length=1, max_length=MAX_ID_CHARS)
    event: Event
    old_memory: str | None = Field(default=None, max_length=MAX_IMPORT_TEXT_CHARS)
    new_memory: str | None = Field(default=None, max_length=MAX_IMPORT_TEXT_CHARS)
    actor: str = Field(default="system", max_length=MAX_ID_CHARS)
    task_id: str | None = Field(default=None, max_length=MAX_ID_CHARS)
    version: int = Field(default=1, ge=1)
    attachments_added: list[str] = Field(default_factory=list, max_length=MAX_IMPORT_ATTACHMENTS)
    attachments_removed: list[str] = Field(default_factory=list, max_length=MAX_IMPORT_ATTACHMENTS)
    note: str | None = Field(default=None, max_length=2000)
    created_at: AwareDatetime


class ImportedMemory(Model):
    """One line of an export (version 1 to 5). Fields an export carries that an import does not
    keep (user_id: the target's) are ignored."""

    model_config = ConfigDict(extra="ignore")

    # The memory's id where it was exported: when the target user holds that memory still (an export
    # imported back into its own user), it is skipped rather than stored twice.
    id: str | None = Field(default=None, max_length=MAX_ID_CHARS)
    memory: str = Field(min_length=1, max_length=MAX_IMPORT_TEXT_CHARS, pattern=r"^[^\x00]*$")
    kind: MemoryKind = "fact"
    memory_bank: MemoryBank = MemoryBank.GENERAL
    importance: float = Field(default=0.5, ge=0.0, le=1.0)
    fact_key: str | None = Field(default=None, max_length=2000, pattern=r"^[^\x00]*$")
    fact_value: str | None = Field(default=None, max_length=2000, pattern=r"^[^\x00]*$")
    is_protected: bool = False
    metadata: Metadata = Field(default_factory=dict)
    agent_id: ScopeId | None = None
    run_id: ScopeId | None = None
    valid_from: AwareDatetime | None = None
    # Set on a closed version: one a later version replaced, or a memory forgotten (both are exported
    # and imported as they were: closed, never current).
    valid_to: AwareDatetime | None = None
    created_at: AwareDatetime | None = None
    updated_at: AwareDatetime | None = None
    expires_at: AwareDatetime | None = None
    attachments: list[ImportedAttachment] = Field(default_factory=list, max_length=MAX_IMPORT_ATTACHMENTS)
    source: ImportedSource | None = None
    version: int = Field(default=1, ge=1)
    last_accessed_at: AwareDatetime | None = None
    access_count: int = Field(default=0, ge=0)
    # Other memories of the export, by their exported ids (the import gives them the target's ids).
    episode_id: str | None = Field(default=None, max_length=MAX_ID_CHARS)  # the message a fact was read from
    outdated_by: list[Annotated[str, Field(max_length=MAX_ID_CHARS)]] = Field(default_factory=list, max_length=1000)
    is_summarized: bool = False
    # The memory's history (sent with its last version): written back before the import's own ADD.
    history: list[ImportedEvent] = Field(default_factory=list, max_length=MAX_IMPORT_HISTORY)
    summarized_from: list[Annotated[str, Field(max_length=MAX_ID_CHARS)]] = Field(default_factory=list, max_length=1000)
    # What it states, as exported (version 5; `outdated_by` an exported id). None (an older export): the import
    # reads them from the text, as an add would.
    statements: list[Statement] | None = Field(default=None, max_length=MAX_IMPORT_STATEMENTS)

    _closed_after_it_began = field_validator("valid_to")(closed_after_it_began)


class ImportedEntity(Model):
    """One end of an exported relation: the entity as the exporter held it. The import resolves it
    in the target user as an extraction would (graph/imports.py); its id is the exporter's."""

    model_config = ConfigDict(extra="ignore")

    id: str = Field(min_length=1, max_length=MAX_ID_CHARS)
    name: str = Field(min_length=1, max_length=MAX_NAME_CHARS, pattern=r"^[^\x00]*$")
    type: str = Field(default="thing", min_length=1, max_length=100)
    aliases: list[Annotated[str, Field(max_length=MAX_NAME_CHARS)]] = Field(default_factory=list, max_length=50)
    created_at: AwareDatetime | None = None
    updated_at: AwareDatetime | None = None


class ImportedRelation(Model):
    """One graph relation of an export, current or closed. Its ids (its own, `refined_from`, the
    entities') are the exporter's; `memory_ids` are exported memory ids: the import translates them."""

    model_config = ConfigDict(extra="ignore")

    id: str = Field(min_length=1, max_length=MAX_ID_CHARS)
    relation: str = Field(min_length=1, max_length=MAX_NAME_CHARS, pattern=r"^[^\x00]*$")
    source_entity: ImportedEntity
    destination_entity: ImportedEntity
    valid_from: AwareDatetime
    valid_to: AwareDatetime | None = None
    memory_ids: list[Annotated[str, Field(max_length=MAX_ID_CHARS)]] = Field(default_factory=list, max_length=1000)
    closed_by: str | None = Field(default=None, max_length=MAX_ID_CHARS)
    refined_from: str | None = Field(default=None, max_length=MAX_ID_CHARS)

    _closed_after_it_began = field_validator("valid_to")(closed_after_it_began)


class ImportRequest(Model):
    """`POST /v1/memories/import`: exported memories and graph relations for one target user, written
    as they were."""

    model_config = ConfigDict(extra="forbid")

    user_id: ScopeId
    agent_id: ScopeId | None = None  # when given, every memory goes to it; else each keeps its own
    run_id: ScopeId | None = None
    # Before `memories`, which may be empty when relations come alone (an export's last request).
    relations: list[ImportedRelation] = Field(default_factory=list, max_length=MAX_IMPORT_RELATIONS)
    memories: list[ImportedMemory] = Field(default_factory=list, max_length=MAX_IMPORT_MEMORIES, validate_default=True)

    @field_validator("memories")
    @classmethod
    def _something_to_import(cls, value: list[ImportedMemory], info: ValidationInfo) -> list[ImportedMemory]:
        if not value and not info.data.get("relations"):
            raise ValueError("at least one memory (or relation) is needed")
        return value

    def scope_of(self, memory: ImportedMemory) -> tuple[str | None, str | None]:
        """The (agent_id, run_id) the memory is stored under."""
        return (self.agent_id or memory.agent_id, self.run_id or memory.run_id)

    def key_of(self, tenant_id: str, memory: ImportedMemory) -> str:
        """The memory's import id in this request's target."""
        if memory.id:
            return exported_id_key(tenant_id, self.user_id, self.agent_id, self.run_id, memory.id)
        agent_id, run_id = self.scope_of(memory)
        return import_id(tenant_id, self.user_id, agent_id, run_id, memory)

    def latest_versions(self) -> dict[str, int]:
        """Per exported id, the highest version this request holds: that line is the memory itself,
        the lower ones its earlier, closed versions."""
        latest: dict[str, int] = {}
        for memory in self.memories:
            if memory.id:
                latest[memory.id] = max(latest.get(memory.id, 0), memory.version)
        return latest

    def target_id(self, tenant_id: str, exported_id: str) -> str:
        """The target's id of the memory exported as `exported_id` (first generation: one forgotten
        since an earlier import and restored is not followed)."""
        return imported_memory_id(exported_id_key(tenant_id, self.user_id, self.agent_id, self.run_id, exported_id), 0)


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def exported_id_key(tenant_id: str, user_id: str, agent_id: str | None, run_id: str | None, exported_id: str) -> str:
    """The import id of an exported memory that carries its id: the target scope (the request's, not
    the memory's own agent and run) and that id. An edited line of the same memory is still the same
    memory; two memories of equal text stay two."""
    content = {"scope": [tenant_id, user_id, agent_id, run_id], "exported_id": exported_id}
    encoded = json.dumps(content, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return hashlib.sha256(encoded).hexdigest()


def imported_relation_id(tenant_id: str, user_id: str, exported_id: str) -> str:
    """The id of an exported graph relation in the target user (relations are the user's, whatever
    the agent or run): the same on each import, so importing twice adds nothing and `refined_from`
    translates whichever request carries the relation it names."""
    return str(uuid.uuid5(_NAMESPACE, json.dumps(["relation", tenant_id, user_id, exported_id])))


def imported_event_id(memory_id: str, exported_event_id: str) -> str:
    """The id of an exported history event in the memory it was imported into: the same each try."""
    return str(uuid.uuid5(_NAMESPACE, f"{memory_id}:event:{exported_event_id}"))


def import_id(tenant_id: str, user_id: str, agent_id: str | None, run_id: str | None, memory: ImportedMemory) -> str:
    """The content hash that makes an imported memory without an exported id the same one again
    (version 1 files, memories written by hand). Attachment ids are left
    out (they are new ids each time the bytes are uploaded), as is the source (where it came from,
    not what it is); every field an export writes of the memory itself is in."""
    content = {
        "scope": [tenant_id, user_id, agent_id, run_id],
        "memory": memory.memory,
        "kind": memory.kind,
        "memory_bank": memory.memory_bank.value,
        "importance": memory.importance,
        "fact_key": memory.fact_key,
        "fact_value": memory.fact_value,
        "is_protected": memory.is_protected,
        "metadata": memory.metadata,
        "valid_from": _iso(memory.valid_from),
        "created_at": _iso(memory.created_at),
        "expires_at": _iso(memory.expires_at),
    }
    encoded = json.dumps(content, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return hashlib.sha256(encoded).hexdigest()


def imported_memory_id(import_key: str, generation: int) -> str:
    """The memory id of an import id. Generation 0 first; when that memory was forgotten since, the
    next generation restores it under a new id (a closed memory keeps its id for its history)."""
    return str(uuid.uuid5(_NAMESPACE, f"{import_key}:{generation}"))
