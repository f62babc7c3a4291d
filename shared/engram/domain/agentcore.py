"""AgentCore Memory's events: a session's turns kept as sent, with both clocks (when they happened, the
event time the client gives; when Engram stored them); the store they live in and the callers'
identities (ports); AgentCore's metadata filters."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from engram.domain.models import utcnow


class StoredEvent(BaseModel):
    model_config = ConfigDict(frozen=True)

    tenant_id: str
    actor_id: str
    session_id: str
    event_id: str
    event_timestamp: datetime  # when it happened (the event time AgentCore sorts by)
    created_at: datetime = Field(default_factory=utcnow)  # when Engram stored it
    expires_at: datetime  # the memory's event expiry: hidden from reads after, deleted by DynamoDB's TTL
    payload: list[dict[str, Any]]  # AgentCore's payload items, as sent (conversational, blob, json)
    branch: dict[str, str] | None = None  # {"name", "rootEventId"?}
    metadata: dict[str, str] = Field(default_factory=dict)  # key -> stringValue
    task_id: str | None = None  # the add its conversational turns went into (None: extraction skipped)


class EventPage(BaseModel):
    items: list[StoredEvent]
    next_token: str | None = None


class SessionPage(BaseModel):
    items: list[tuple[str, datetime]]  # (session id, created at)
    next_token: str | None = None


class EventStore(Protocol):
    def put(self, event: StoredEvent) -> None:
        """Stores the event and notes its session (created at the first event)."""
        ...

    def get(self, tenant_id: str, actor_id: str, session_id: str, event_id: str) -> StoredEvent:
        """Raises NotFoundError for unknown (or other tenants') events."""
        ...

    def delete(self, tenant_id: str, actor_id: str, session_id: str, event_id: str) -> None:
        """Raises NotFoundError when there is no such event."""
        ...

    def events(
        self,
        tenant_id: str,
        actor_id: str,
        session_id: str,
        keep: Callable[[StoredEvent], bool],
        limit: int,
        token: str | None,
    ) -> EventPage:
        """The session's events that `keep` keeps, newest (event time) first, `limit` at a time."""
        ...

    def sessions(self, tenant_id: str, actor_id: str, limit: int, token: str | None) -> SessionPage: ...

    def forget_actor(self, tenant_id: str, actor_id: str) -> None:
        """Deletes every event and session of the actor (a delete-all of the user)."""
        ...


class Callers(Protocol):
    def tenant(self, request: Mapping[str, Any]) -> str:
        """The tenant of whoever signed this API Gateway proxy event; ForbiddenError for anyone else."""
        ...


@dataclass(frozen=True)
class MetadataFilter:
    """One of AgentCore's metadata filter expressions: the key, the operator, the value compared with."""

    key: str
    operator: str  # EQUALS_TO, EXISTS, NOT_EXISTS (events); records add BEFORE, AFTER, CONTAINS, ...
    value: str | float | list[str] | datetime | None = None


def metadata_keeps(filters: Sequence[MetadataFilter], metadata: dict[str, Any]) -> bool:
    """Whether every filter holds for the metadata (AgentCore ANDs them)."""
    return all(_holds(f, metadata) for f in filters)


def _holds(f: MetadataFilter, metadata: dict[str, Any]) -> bool:
    if f.operator == "EXISTS":
        return f.key in metadata
    if f.operator == "NOT_EXISTS":
        return f.key not in metadata
    if f.key not in metadata:
        return False
    have, want = metadata[f.key], f.value
    if f.operator == "EQUALS_TO":
        return bool(have == want)
    if f.operator == "CONTAINS":
        return isinstance(have, list | str) and isinstance(want, str) and want in have
    order = _order(have, want)
    if order is None:
        return False
    if f.operator in ("BEFORE", "LESS_THAN"):
        return order < 0
    if f.operator in ("AFTER", "GREATER_THAN"):
        return order > 0
    if f.operator == "LESS_THAN_OR_EQUALS":
        return order <= 0
    return f.operator == "GREATER_THAN_OR_EQUALS" and order >= 0


def _order(have: Any, want: object) -> int | None:
    """-1, 0 or 1 as the stored value sorts before, with or after the wanted one; None when they do
    not compare (a time with a number, a text with a time that is not ISO 8601...)."""
    if isinstance(want, datetime):
        try:
            when = datetime.fromisoformat(str(have))
        except ValueError:
            return None
        if when.tzinfo is None or want.tzinfo is None:
            return None
        return (when > want) - (when < want)
    numbers = isinstance(want, int | float) and isinstance(have, int | float)
    if not numbers or isinstance(have, bool):
        return None
    return int(have > want) - int(have < want)
