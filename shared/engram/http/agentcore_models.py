"""AgentCore Memory's request bodies (botocore's `bedrock-agentcore` input shapes, field for field,
with its limits) and its response shapes built from Engram's events and memories."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, model_validator

from engram.agentcore.ids import namespace_of, record_id, strategy_of
from engram.domain.agentcore import MetadataFilter, StoredEvent
from engram.domain.models import Fact, Task

# AgentCore's patterns, without its nested groups (linear either way): actor ids here take no "/",
# which would split Engram's namespace paths and the local front's routes (docs/agentcore.md).
ACTOR_PATTERN = r"^[a-zA-Z0-9][a-zA-Z0-9_:-]*$"
SESSION_PATTERN = r"^[a-zA-Z0-9][a-zA-Z0-9_-]*$"
_META = r"^[a-zA-Z0-9\s._:/=+@-]*$"
ActorId = Annotated[str, Field(min_length=1, max_length=255, pattern=ACTOR_PATTERN)]
SessionId = Annotated[str, Field(min_length=1, max_length=100, pattern=SESSION_PATTERN)]
BranchName = Annotated[str, Field(min_length=1, max_length=100, pattern=SESSION_PATTERN)]
EventId = Annotated[str, Field(max_length=64, pattern=r"^[0-9]+#[a-fA-F0-9]+$")]
MetaKey = Annotated[str, Field(min_length=1, max_length=128, pattern=_META)]
MetaString = Annotated[str, Field(max_length=256, pattern=_META)]
NamespaceText = Annotated[str, Field(min_length=1, max_length=1024)]
RecordId = Annotated[str, Field(min_length=40, max_length=50, pattern=r"^mem-[a-zA-Z0-9_-]*$")]
Token = Annotated[str, Field(max_length=4096)]
MaxResults = Annotated[int, Field(ge=1, le=100)]


class Body(BaseModel):
    """camelCase fields: AgentCore's own names, so the body is read as botocore writes it."""

    # Fields a newer botocore sends that this Engram does not know are ignored, as AWS ignores none:
    # the contract test fails on a shape change, so they are caught there.
    model_config = ConfigDict(extra="ignore", populate_by_name=True)


class TextContent(Body):
    text: str = Field(min_length=1, max_length=100_000, pattern=r"^[^\x00]*$")


class Conversational(Body):
    content: TextContent
    role: Literal["ASSISTANT", "USER", "TOOL", "OTHER"]


class JsonData(Body):
    content: Any


class PayloadItem(Body):
    """A union: exactly one member is set."""

    conversational: Conversational | None = None
    blob: Any = None
    json_data: JsonData | None = Field(default=None, alias="json")

    @model_validator(mode="after")
    def _one(self) -> PayloadItem:
        if sum(v is not None for v in (self.conversational, self.blob, self.json_data)) != 1:
            raise ValueError("exactly one of conversational, blob, json")
        return self

    def as_sent(self) -> dict[str, Any]:
        return self.model_dump(by_alias=True, exclude_none=True)


class MetadataValue(Body):
    stringValue: MetaString


class Branch(Body):
    name: BranchName
    rootEventId: EventId | None = None


class CreateEventBody(Body):
    actorId: ActorId
    sessionId: SessionId | None = None
    eventTimestamp: AwareDatetime
    payload: list[PayloadItem] = Field(min_length=1, max_length=100)
    branch: Branch | None = None
    clientToken: str | None = Field(default=None, max_length=256)
    metadata: dict[MetaKey, MetadataValue] = Field(default_factory=dict, max_length=15)
    extractionMode: Literal["SKIP"] | None = None

    def metadata_strings(self) -> dict[str, str]:
        return {k: v.stringValue for k, v in self.metadata.items()}


class LeftExpression(Body):
    metadataKey: MetaKey


class RightExpression(Body):
    metadataValue: MetadataValue


class EventMetadataFilter(Body):
    left: LeftExpression
    operator: Literal["EQUALS_TO", "EXISTS", "NOT_EXISTS"]
    right: RightExpression | None = None

    def as_filter(self) -> MetadataFilter:
        value = self.right.metadataValue.stringValue if self.right else None
        return MetadataFilter(self.left.metadataKey, self.operator, value)


class BranchFilter(Body):
    name: BranchName
    includeParentBranches: bool = False


class EventFilter(Body):
    branch: BranchFilter | None = None
    eventMetadata: list[EventMetadataFilter] = Field(default_factory=list, max_length=5)


class ListEventsBody(Body):
    includePayloads: bool = True
    filter: EventFilter | None = None
    maxResults: MaxResults = 20
    nextToken: Token | None = None

    def branch(self) -> tuple[str, bool] | None:
        found = self.filter.branch if self.filter else None
        return (found.name, found.includeParentBranches) if found else None

    def filters(self) -> list[MetadataFilter]:
        return [f.as_filter() for f in self.filter.eventMetadata] if self.filter else []


class PageBody(Body):
    maxResults: MaxResults = 20
    nextToken: Token | None = None


class RecordMetadataValue(Body):
    """A union: exactly one member is set."""

    stringValue: MetaString | None = None
    stringListValue: list[Annotated[str, Field(min_length=1, max_length=64, pattern=_META)]] | None = Field(
        default=None, min_length=1, max_length=5
    )
    numberValue: float | None = Field(default=None, allow_inf_nan=False)
    dateTimeValue: AwareDatetime | None = None

    def value(self) -> str | float | list[str] | datetime | None:
        for v in (self.stringValue, self.stringListValue, self.numberValue, self.dateTimeValue):
            if v is not None:
                return v
        return None

    def stored(self) -> Any:
        """As kept in a memory's metadata (a time as ISO 8601, which the BEFORE/AFTER filters read)."""
        v = self.value()
        return v.isoformat() if isinstance(v, datetime) else v


class RecordMetadataFilter(Body):
    left: LeftExpression
    operator: Literal[
        "EQUALS_TO",
        "EXISTS",
        "NOT_EXISTS",
        "BEFORE",
        "AFTER",
        "CONTAINS",
        "GREATER_THAN",
        "GREATER_THAN_OR_EQUALS",
        "LESS_THAN",
        "LESS_THAN_OR_EQUALS",
    ]
    right: RecordRight | None = None

    def as_filter(self) -> MetadataFilter:
        return MetadataFilter(
            self.left.metadataKey, self.operator, self.right.metadataValue.value() if self.right else None
        )


class RecordRight(Body):
    metadataValue: RecordMetadataValue


class SearchCriteria(Body):
    searchQuery: str = Field(min_length=1, max_length=10_000)
    memoryStrategyId: str | None = Field(default=None, max_length=100)
    topK: int = Field(default=10, ge=1, le=100)
    metadataFilters: list[RecordMetadataFilter] = Field(default_factory=list, max_length=5)


class NamespaceChoice(Body):
    namespace: NamespaceText | None = None
    namespacePath: NamespaceText | None = None

    def chosen(self) -> tuple[str, bool, str]:
        """(text, exact, field): exactly one of namespace (exact) and namespacePath (a prefix)."""
        if (self.namespace is None) == (self.namespacePath is None):
            raise ValueError("give exactly one of namespace and namespacePath")
        if self.namespace is not None:
            return self.namespace, True, "namespace"
        return str(self.namespacePath), False, "namespacePath"


class RetrieveBody(NamespaceChoice):
    searchCriteria: SearchCriteria
    maxResults: MaxResults = 20
    nextToken: Token | None = None


class ListRecordsBody(NamespaceChoice, PageBody):
    memoryStrategyId: str | None = Field(default=None, max_length=100)
    metadataFilters: list[RecordMetadataFilter] = Field(default_factory=list, max_length=5)


class MemoryContent(Body):
    text: str = Field(min_length=1, max_length=16_000, pattern=r"^[^\x00]*$")


class RecordCreate(Body):
    requestIdentifier: str = Field(min_length=1, max_length=80, pattern=r"^[a-zA-Z0-9_-]+$")
    namespaces: list[NamespaceText] = Field(min_length=1, max_length=1)
    content: MemoryContent
    timestamp: AwareDatetime
    memoryStrategyId: str | None = Field(default=None, max_length=100)
    metadata: dict[MetaKey, RecordMetadataValue] = Field(default_factory=dict, max_length=20)


class BatchCreateBody(Body):
    records: list[RecordCreate] = Field(min_length=1, max_length=100)
    clientToken: str | None = Field(default=None, max_length=256)


class RecordUpdate(Body):
    memoryRecordId: RecordId
    timestamp: AwareDatetime
    content: MemoryContent | None = None
    metadata: dict[MetaKey, RecordMetadataValue] | None = Field(default=None, max_length=20)

    def stored_metadata(self) -> dict[str, Any] | None:
        return {k: v.stored() for k, v in self.metadata.items()} if self.metadata is not None else None


class BatchUpdateBody(Body):
    records: list[RecordUpdate] = Field(min_length=1, max_length=100)


class RecordDelete(Body):
    memoryRecordId: RecordId
    namespace: NamespaceText | None = None


class BatchDeleteBody(Body):
    records: list[RecordDelete] = Field(min_length=1, max_length=100)


class IngestInline(Body):
    payload: list[PayloadItem] = Field(min_length=1, max_length=100)


class IngestSource(Body):
    inline: IngestInline


class IngestBody(Body):
    source: IngestSource
    contentTimestamp: AwareDatetime
    actorId: ActorId
    sessionId: SessionId | None = None
    metadata: dict[MetaKey, MetadataValue] = Field(default_factory=dict, max_length=15)
    clientToken: str | None = Field(default=None, max_length=256)

    def turns(self) -> list[tuple[str, str]]:
        items = self.source.inline.payload
        return [(p.conversational.role, p.conversational.content.text) for p in items if p.conversational]


class JobFilter(Body):
    actorId: ActorId | None = None
    sessionId: SessionId | None = None
    strategyId: str | None = Field(default=None, max_length=100)
    status: Literal["FAILED"] | None = None


class ListJobsBody(Body):
    maxResults: int = Field(default=20, ge=1, le=50)
    filter: JobFilter | None = None
    nextToken: Token | None = None

    def session(self) -> tuple[str, str]:
        """Engram keeps jobs with a session's events: the filter names the actor and the session."""
        found = self.filter or JobFilter()
        if found.actorId is None or found.sessionId is None:
            raise ValueError("give filter.actorId and filter.sessionId: Engram lists a session's extraction jobs")
        return found.actorId, found.sessionId


class ExtractionJob(Body):
    jobId: str = Field(min_length=1, max_length=64)


class StartJobBody(Body):
    extractionJob: ExtractionJob
    clientToken: str | None = Field(default=None, max_length=256)


RecordMetadataFilter.model_rebuild()


# --- responses ---------------------------------------------------------------------------------------


def epoch(when: datetime) -> float:
    """rest-json's timestamps: seconds since the epoch."""
    return when.timestamp()


def event_view(memory_id: str, event: StoredEvent, payloads: bool = True) -> dict[str, Any]:
    view: dict[str, Any] = {
        "memoryId": memory_id,
        "actorId": event.actor_id,
        "sessionId": event.session_id,
        "eventId": event.event_id,
        "eventTimestamp": epoch(event.event_timestamp),
        "payload": event.payload if payloads else [],
    }
    if event.branch:
        view["branch"] = event.branch
    if event.metadata:
        view["metadata"] = {k: {"stringValue": v} for k, v in event.metadata.items()}
    return view


def job_view(event: StoredEvent, task: Task) -> dict[str, Any]:
    """A failed extraction: the add of one event, its conversational turns the messages it read."""
    turns = [i for i, p in enumerate(event.payload) if "conversational" in p]
    return {
        "jobID": task.task_id,
        "messages": {"messagesList": [{"eventId": event.event_id, "messageIndex": i} for i in turns]},
        "status": "FAILED",
        "failureReason": task.error or "failed",
        "sessionId": event.session_id,
        "actorId": event.actor_id,
    }


def record_view(fact: Fact, score: float | None = None) -> dict[str, Any]:
    view: dict[str, Any] = {
        "memoryRecordId": record_id(fact.id),
        "content": {"text": fact.text},
        "memoryStrategyId": strategy_of(fact),
        "namespaces": [namespace_of(fact)],
        "createdAt": epoch(fact.created_at),
        "timestamp": epoch(fact.valid_from),
    }
    if score is not None:
        view["score"] = score
    metadata = _record_metadata(fact.metadata)
    if metadata:
        view["metadata"] = metadata
    return view


_META_TEXT = re.compile(_META)


def _listable(value: Any) -> bool:
    return isinstance(value, str) and 1 <= len(value) <= 64 and _META_TEXT.match(value) is not None


def _record_metadata(metadata: dict[str, Any]) -> dict[str, Any]:
    """A memory's metadata in AgentCore's typed values: strings, numbers and short lists of strings,
    as far as AgentCore's patterns and limits take them (at most 20 entries; the rest, such as the
    event id with its "#", shows in Engram's own API)."""
    typed: dict[str, Any] = {}
    for key, value in metadata.items():
        if len(typed) == 20 or not isinstance(key, str) or not 1 <= len(key) <= 128:
            continue
        if isinstance(value, str) and len(value) <= 256 and _META_TEXT.match(value):
            typed[key] = {"stringValue": value}
        elif isinstance(value, int | float) and not isinstance(value, bool):
            typed[key] = {"numberValue": float(value)}
        elif isinstance(value, list) and 1 <= len(value) <= 5 and all(_listable(v) for v in value):
            typed[key] = {"stringListValue": value}
    return typed
