"""AgentCore's identifiers over Engram's: memory ids are tenants, record ids are memory ids, event ids
sort by event time, and namespaces are a path over strategy, actor (user) and session (run)."""

from __future__ import annotations

import hashlib
import re
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime

from engram.domain.errors import NotFoundError, ValidationError
from engram.domain.models import Fact

RECORD_PREFIX = "mem-"
_ARN = re.compile(r"^arn:aws(?:-cn|-us-gov)?:bedrock-agentcore:[a-z0-9-]+:[0-9]{12}:memory/")
# Event ids carry the event time in milliseconds, zero-padded, so a session's events sort by it.
_EVENT_ID = re.compile(r"^([0-9]{13})#([0-9a-f]{32})$")
_MIN_MS, _MAX_MS = 0, 10**13 - 1  # 1970 to 2286: what 13 digits hold


def memory_id_of(tenant_id: str) -> str:
    """A tenant's one AgentCore memory id: `engram-` and 10 hex digits of a hash of the tenant, so it
    fits AgentCore's pattern whatever the tenant is called, and names no other tenant."""
    digest = hashlib.sha256(f"engram-agentcore:{tenant_id}".encode()).hexdigest()
    return f"engram-{digest[:10]}"


def check_memory(tenant_id: str, memory_id: str) -> None:
    """The memory id (or its ARN) must be the caller's tenant's: any other is not found, as AgentCore
    answers for a memory of another account."""
    if _ARN.sub("", memory_id) != memory_id_of(tenant_id):
        raise NotFoundError("memory", memory_id)


def record_id(memory_id: str) -> str:
    return RECORD_PREFIX + memory_id


def memory_id_of_record(record: str, field: str = "memoryRecordId") -> str:
    body = record[len(RECORD_PREFIX) :]
    try:
        uuid.UUID(body)
    except ValueError as err:
        raise ValidationError(field, f"{record!r} is not a memory record id of this memory") from err
    if not record.startswith(RECORD_PREFIX):
        raise ValidationError(field, f"{record!r} is not a memory record id of this memory")
    return body


def new_event_id(event_time: datetime, retry_of: str | None = None) -> str:
    """The event time in milliseconds, then a random part; or, for a request with a client token, a
    hash of it (`retry_of`: tenant, actor, session and token), so a retried request names the same event."""
    ms = int(event_time.timestamp() * 1000)
    if not _MIN_MS <= ms <= _MAX_MS:
        raise ValidationError("eventTimestamp", "must be between 1970 and 2286")
    unique = hashlib.sha256(retry_of.encode()).hexdigest()[:32] if retry_of else uuid.uuid4().hex
    return f"{ms:013d}#{unique}"


def check_event_id(event_id: str) -> str:
    if not _EVENT_ID.match(event_id):
        raise NotFoundError("event", event_id)
    return event_id


# --- namespaces -------------------------------------------------------------------------------

SEMANTIC, PREFERENCES, SUMMARY, EPISODIC = "semantic", "preferences", "summary", "episodic"
STRATEGIES = (SEMANTIC, PREFERENCES, SUMMARY, EPISODIC)
_SEGMENT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_:-]*$")


def strategy_of(fact: Fact) -> str:
    """The built-in strategy a memory stands for: episodes (messages kept as said), summaries (the
    maintenance workflow's), preferences (the Interests bank), and the other facts (semantic)."""
    if fact.kind == "episode":
        return EPISODIC
    if fact.summarized_from:
        return SUMMARY
    if fact.memory_bank.value == "Interests":
        return PREFERENCES
    return SEMANTIC


def namespace_of(fact: Fact) -> str:
    """AgentCore's default namespace templates, filled in: session-scoped strategies carry the run."""
    base = f"/strategies/{strategy_of(fact)}/actors/{fact.user_id}/"
    if strategy_of(fact) in (SUMMARY, EPISODIC) and fact.run_id:
        return f"{base}sessions/{fact.run_id}/"
    return base


@dataclass(frozen=True)
class Namespace:
    """A namespace (exact) or a namespace path (a prefix of namespaces, segment by segment), and the
    actor it names: Engram keeps and searches each user's memories apart, so every one names an actor."""

    actor_id: str
    path: str  # with a leading and a trailing "/"
    exact: bool

    def holds(self, fact: Fact) -> bool:
        have = namespace_of(fact)
        return have == self.path if self.exact else have.startswith(self.path)


def parse_namespace(text: str, exact: bool, field: str = "namespace") -> Namespace:
    """`/strategies/{strategy}/actors/{actorId}/[sessions/{sessionId}/]`, or a prefix of it that goes
    as far as the actor at least."""
    parts = text.strip("/").split("/")
    if len(parts) < 4 or parts[0] != "strategies" or parts[2] != "actors" or len(parts) not in (4, 5, 6):
        raise ValidationError(
            field, "must be /strategies/{strategy}/actors/{actorId}/ or .../sessions/{sessionId}/ (docs/agentcore.md)"
        )
    if parts[1] not in STRATEGIES:
        raise ValidationError(field, f"unknown strategy {parts[1]!r}: one of {', '.join(STRATEGIES)}")
    if len(parts) > 4 and parts[4] != "sessions":
        raise ValidationError(field, f"{parts[4]!r} where 'sessions' belongs")
    if any(not _SEGMENT.match(p) for p in parts):
        raise ValidationError(field, "holds an empty segment or a wildcard; Engram takes none")
    return Namespace(parts[3], "/" + "/".join(parts) + "/", exact)


def utc(when: datetime) -> datetime:
    return when if when.tzinfo else when.replace(tzinfo=UTC)
