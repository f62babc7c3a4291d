"""Ports: the interfaces the domain talks to. Adapters implement them; tests pass fakes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Protocol

from engram.domain.api_keys import ApiKey
from engram.domain.graph import Entity, EntityPage, Relation, RelationPage
from engram.domain.models import (
    Attachment,
    ExtractionPrompt,
    Fact,
    HistoryEvent,
    HistoryPage,
    IndexDoc,
    Message,
    Page,
    ReconcileStrategy,
    Scope,
    ScoredId,
    SearchFilters,
    Task,
    Usage,
    UserActivity,
    UserPage,
)
from engram.domain.policy import TenantConfig
from engram.domain.statements import Statement
from engram.domain.steps import CandidateFact, Decision, LLMReply


class FactStore(Protocol):
    """Durable facts with versions and history (DynamoDB on AWS and locally)."""

    def get(self, tenant_id: str, memory_id: str, include_closed: bool = False) -> Fact:
        """Raises NotFoundError when absent, another tenant's, or closed (unless include_closed)."""
        ...

    def get_many(self, tenant_id: str, memory_ids: Sequence[str]) -> list[Fact]:
        """Current facts among the ids, in the order given; missing ids are skipped."""
        ...

    def list_current(
        self,
        tenant_id: str,
        user_id: str,
        limit: int = 100,
        cursor: str | None = None,
        filters: SearchFilters | None = None,
    ) -> Page: ...

    def list_as_of(
        self,
        tenant_id: str,
        user_id: str,
        as_of: datetime,
        limit: int = 100,
        cursor: str | None = None,
        filters: SearchFilters | None = None,
    ) -> Page:
        """The versions of a user's memories that were current at `as_of`, newest first."""
        ...

    def list_versions(self, tenant_id: str, user_id: str, limit: int = 100, cursor: str | None = None) -> Page:
        """Every stored version of a user's memories, current and closed (forgotten memories and the
        versions a change replaced), oldest valid_from first: what an export writes."""
        ...

    def add_versions(self, versions: Sequence[Fact]) -> None:
        """Store earlier, closed versions of memories as they were (an import of an export); writing
        the same version again changes nothing. The memory itself is written with add()."""
        ...

    def add_history(self, events: Sequence[HistoryEvent]) -> None:
        """Store history events as they were (an import of an export); an event id written again
        changes nothing."""
        ...

    def add(self, fact: Fact, event: HistoryEvent) -> bool:
        """Write a new fact and its history event atomically.

        Returns False (and writes nothing) when a fact with this id exists already, which makes
        replays of the same task idempotent.
        """
        ...

    def add_many(self, pairs: Sequence[tuple[Fact, HistoryEvent]]) -> list[bool]:
        """add() for each pair, in as few round trips as the store allows; False where it exists."""
        ...

    def replace(self, previous: Fact, new: Fact, event: HistoryEvent) -> None:
        """Write `new` (same id, version previous.version + 1) and keep `previous` as a closed
        version, atomically. Raises ConflictError if the stored version is not previous.version."""
        ...

    def close(self, fact: Fact, valid_to: datetime, event: HistoryEvent) -> None:
        """End a fact's validity (soft delete). Raises ConflictError on a version mismatch."""
        ...

    def history(self, tenant_id: str, memory_id: str) -> list[HistoryEvent]:
        """Oldest first."""
        ...

    def history_page(self, tenant_id: str, memory_id: str, limit: int, cursor: str | None = None) -> HistoryPage:
        """At most `limit` events, oldest first, and the cursor of the next page (None at the end)."""
        ...

    def close_many(self, pairs: Sequence[tuple[Fact, HistoryEvent]], valid_to: datetime) -> list[bool]:
        """close() for each pair in as few round trips as the store allows; False (nothing written)
        where the fact changed or was closed since it was read."""
        ...

    def touch(self, tenant_id: str, uses: Mapping[str, int], when: datetime) -> None:
        """Record accesses without a new version: each memory's last_accessed_at becomes `when` and its
        access_count grows by its uses (ids of no current memory are left out)."""
        ...


class VectorIndex(Protocol):
    """Vectors and text of current facts (OpenSearch on AWS, embedded locally)."""

    def upsert(self, docs: Sequence[IndexDoc]) -> None: ...

    def delete(self, tenant_id: str, user_id: str, memory_ids: Sequence[str]) -> None: ...

    def knn(
        self,
        tenant_id: str,
        user_id: str,
        vector: Sequence[float],
        k: int,
        filters: SearchFilters | None = None,
    ) -> list[ScoredId]:
        """Cosine similarity in [0, 1]-ish (higher is closer), filtered inside the query."""
        ...

    def text_search(
        self,
        tenant_id: str,
        user_id: str,
        query: str,
        k: int,
        filters: SearchFilters | None = None,
    ) -> list[ScoredId]:
        """BM25 over the same documents, same filters."""
        ...

    def ids(self, tenant_id: str, user_id: str) -> set[str]:
        """Every indexed id of one user (for repair and tests)."""
        ...


class Embedder(Protocol):
    model_id: str
    dimensions: int

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Unit-length vectors, one per text, in one call."""
        ...


class StatementReader(Protocol):
    """Reads the statements each text makes (domain/statements.py): offline by meaning, the same for every
    memory whatever path it came by."""

    def statements(self, texts: Sequence[str]) -> list[tuple[Statement, ...]]: ...


class Reranker(Protocol):
    """A second look at the first ranking's top few with a model that reads the query and each
    memory together (a cross-encoder, or late interaction over token vectors): too slow for every
    candidate, so MemoryService.search applies it to a short list and blends its score in."""

    model_id: str

    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        """One relevance score in [0, 1] per text, in order."""
        ...


class LLM(Protocol):
    def ping(self) -> None:
        """Raises when the LLM cannot be reached or refuses the key (costs no tokens)."""
        ...

    def complete_json(self, system: str, user: str, schema: dict[str, Any], schema_name: str) -> LLMReply:
        """Chat completion constrained to a JSON schema; content is the raw JSON text."""
        ...


class FactExtractor(Protocol):
    def extract(
        self, messages: Sequence[Message], prompt: ExtractionPrompt, scope: Scope
    ) -> tuple[list[CandidateFact], Usage]: ...


class Reconciler(Protocol):
    def reconcile(
        self,
        facts: Sequence[CandidateFact],
        existing: Sequence[Fact],
        strategy: ReconcileStrategy,
        conversation: str,
        attachments: Mapping[str, Attachment] | None = None,
    ) -> tuple[list[Decision], Usage]:
        """Decisions carry real memory ids; validation happens here (repair or retry).

        `attachments` describes the attachment ids found on facts and memories, for deciders
        that can place them; the pipeline settles whatever a decider leaves unsaid."""
        ...


class TaskStore(Protocol):
    def create(self, task: Task) -> None: ...

    def get(self, tenant_id: str, task_id: str) -> Task:
        """Raises NotFoundError for unknown ids and other tenants' tasks."""
        ...

    def get_many(self, tenant_id: str, task_ids: Sequence[str]) -> list[Task]:
        """In the order asked; raises NotFoundError for the first unknown id."""
        ...

    def save(self, task: Task) -> None: ...

    def save_many(self, tasks: Sequence[Task]) -> None:
        """Overwrites tasks the caller has just read, in as few writes as the store allows."""
        ...

    def user_tasks(
        self, tenant_id: str, user_id: str, before: Task, limit: int = 100, cursor: str | None = None
    ) -> tuple[list[Task], str | None]:
        """The user's tasks created before `before`, oldest first, a page at a time (and the next cursor)."""
        ...

    def forget_inputs(self, tasks: Sequence[Task]) -> None:
        """Rewrites the tasks without their request, payload reference and results (delete-all)."""
        ...


class TaskQueue(Protocol):
    def enqueue(self, task: Task) -> None:
        """One message per task; FIFO group = tenant + user; dedup id = task id."""
        ...

    def requeue(self, task: Task) -> None:
        """A fresh message for a task that waits out an outage (its receive count starts again)."""
        ...

    def pending(self) -> int:
        """Messages waiting in the queue (approximate, all tenants): the worker's log line and the
        deep health check (which only needs it to answer)."""
        ...


class BlobStore(Protocol):
    def put(self, key: str, data: bytes, content_type: str = "application/octet-stream") -> None: ...

    def get(self, key: str) -> bytes: ...

    def delete(self, key: str) -> None: ...

    def presign_get(self, key: str, expires_in: int = 300) -> str: ...

    def presign_put(self, key: str, content_type: str, expires_in: int = 300) -> str: ...


class ApiKeyStore(Protocol):
    def create(self, tenant_id: str, description: str | None = None) -> tuple[ApiKey, str]:
        """Returns the record and the plaintext key (shown once; only its hash is stored)."""
        ...

    def resolve(self, plaintext: str) -> ApiKey:
        """Raises UnauthorizedError for unknown or revoked keys."""
        ...

    def list(self, tenant_id: str | None = None) -> list[ApiKey]: ...

    def revoke(self, key_id: str) -> None: ...


class AttachmentStore(Protocol):
    """Attachment records and which current memories hold each one."""

    def create(self, attachment: Attachment) -> None: ...

    def get(self, tenant_id: str, attachment_id: str) -> Attachment:
        """Raises NotFoundError for unknown ids and other tenants' attachments."""
        ...

    def get_many(self, tenant_id: str, attachment_ids: Sequence[str]) -> dict[str, Attachment]: ...

    def save(self, attachment: Attachment) -> None: ...

    def link(self, tenant_id: str, attachment_id: str, memory_id: str) -> None: ...

    def unlink(self, tenant_id: str, attachment_id: str, memory_id: str) -> int:
        """Remove one holder; returns how many memories still hold the attachment."""
        ...

    def holders(self, tenant_id: str, attachment_id: str) -> list[str]: ...


class GraphStore(Protocol):
    """Entities and relations of each user (DynamoDB adjacency list on AWS and locally)."""

    def put_entities(self, entities: Sequence[Entity]) -> None: ...

    def put_relations(self, relations: Sequence[Relation]) -> None:
        """New relations, or closed versions of stored ones (same id)."""
        ...

    def forget_user(self, tenant_id: str, user_id: str) -> int:
        """Delete the user's whole graph; idempotent."""
        ...

    def get_entity(self, tenant_id: str, entity_id: str) -> Entity:
        """Raises NotFoundError for unknown ids and other tenants' entities."""
        ...

    def get_entities(self, tenant_id: str, entity_ids: Sequence[str]) -> list[Entity]: ...

    def get_relation(self, tenant_id: str, relation_id: str) -> Relation:
        """Raises NotFoundError for unknown ids and other tenants' relations."""
        ...

    def relations_of(self, tenant_id: str, entity_ids: Sequence[str], include_closed: bool = False) -> list[Relation]:
        """Relations touching any of the entities, both directions."""
        ...

    def entities(self, tenant_id: str, user_id: str, limit: int = 100, cursor: str | None = None) -> EntityPage: ...

    def relations(
        self,
        tenant_id: str,
        user_id: str,
        limit: int = 100,
        cursor: str | None = None,
        include_closed: bool = False,
        as_of: datetime | None = None,
    ) -> RelationPage: ...


class UserDirectory(Protocol):
    """The users of each tenant, kept so a tenant can list its users without scanning memories."""

    def touch(self, tenant_id: str, user_id: str, when: datetime) -> None:
        """Records that `user_id` was active at `when` (the time of the user's latest add processed)."""
        ...

    def list(self, tenant_id: str, limit: int, cursor: str | None = None) -> UserPage:
        """The tenant's users in user_id order, `limit` at a time."""
        ...

    def forget(self, tenant_id: str, user_id: str) -> None:
        """Drops the user from the listing (delete-all leaves nothing of a user but history)."""
        ...


class FinishedRuns(Protocol):
    """The last writes of a run of adds: its finished tasks, and its user listed as active."""

    def save(self, tasks: Sequence[Task], active: UserActivity) -> None:
        """Saves the tasks and touches the user's directory entry, in as few requests as the stores allow."""
        ...


class ConfigStore(Protocol):
    """Each tenant's configuration (instructions, include/exclude, custom prompts): one record per tenant."""

    def get(self, tenant_id: str) -> TenantConfig | None: ...  # None: never set

    def put(self, tenant_id: str, config: TenantConfig) -> None: ...


class EventBus(Protocol):
    """The tenant-routable event bus (EventBridge on AWS, moto's locally)."""

    def put(self, entries: Sequence[Mapping[str, Any]]) -> list[int]:
        """Publish (at most 10) entries of {"tenant_id", "event", "detail"}; returns the positions the bus
        did not accept (worth another try). Raises TransientError or EngramError when the call failed."""
        ...
