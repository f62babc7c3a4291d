"""Each API operation as a plain description (method, path, query, body, parser), shared by the sync and
async clients so that each only executes calls and neither repeats the API's shape."""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Generic, Literal, TypedDict, TypeVar, Unpack

from engram_client.models import (
    Attachment,
    AttachmentCreated,
    Deleted,
    Entity,
    Graph,
    Health,
    HistoryEntry,
    MaintenanceRun,
    MaintenanceStarted,
    Memory,
    Page,
    QueueMetrics,
    RelationDeleted,
    SearchResults,
    Task,
    TenantConfig,
    Usage,
    UsersPage,
)

T = TypeVar("T")
INLINE_ATTACHMENT_BYTES = 5 * 1024 * 1024  # larger files go to the presigned upload URL
Messages = str | Mapping[str, Any] | Sequence[Mapping[str, Any]]


@dataclass(frozen=True)
class Call(Generic[T]):
    method: str
    path: str
    parse: Callable[[Any], T]
    params: dict[str, Any] | None = None
    body: Any = None


def _drop_none(values: Mapping[str, Any]) -> dict[str, Any]:
    return {k: (v.isoformat() if isinstance(v, datetime) else v) for k, v in values.items() if v is not None}


Said = datetime | int | float | str  # when a message was said: a datetime with a zone, Unix seconds or ISO text


def _said(value: Said) -> str | int | float:
    return value.isoformat() if isinstance(value, datetime) else value


def messages_of(messages: Messages, said: Said | None = None) -> list[dict[str, Any]]:
    """A string is one user message; a dict one message; a list is taken as given. `said` is when the
    messages without their own `created_at` were said (else the server stamps when it accepted them)."""
    given: list[dict[str, Any]]
    if isinstance(messages, str):
        given = [{"role": "user", "content": messages}]
    elif isinstance(messages, Mapping):
        given = [dict(messages)]
    else:
        given = [dict(m) for m in messages]
    for message in given:
        when = message.get("created_at", said)
        if when is not None:
            message["created_at"] = _said(when)
    return given


class AddOptions(TypedDict, total=False):
    agent_id: str | None
    run_id: str | None
    metadata: Mapping[str, Any] | None
    infer: bool | None
    deduplicate: bool | None
    prompt: str | None  # "user" | "agent": which extraction prompt
    strategy: str | None  # "default" | "relevance": how new facts are reconciled with what is known
    attachments: Sequence[Mapping[str, Any]] | None  # [{"attachment_id"}] or inline {name, media_type, content_base64}
    created_at: Said | None  # when the messages were said (those without their own created_at)
    instructions: str | None  # this add's memory policy, each in place of the tenant's (GET /v1/config)
    include: Sequence[str] | None
    exclude: Sequence[str] | None


class SearchOptions(TypedDict, total=False):
    top_k: int | None
    agent_id: str | None
    run_id: str | None
    filters: Mapping[str, Any] | None  # {"memory_bank": ..., "metadata": {...}}
    threshold: float | None
    as_of: datetime | None
    time_range: tuple[datetime, datetime] | None  # only memories said (valid from) within [from, to)
    now: datetime | None  # when the question is asked: "last week" resolves against it
    graph: bool | None  # False: no graph relations in the answer (a cheaper search)


class UpdateOptions(TypedDict, total=False):
    metadata: Mapping[str, Any] | None
    importance: float | None
    is_protected: bool | None
    memory_bank: str | None


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, Sequence) and not isinstance(value, str):
        return [_plain(v) for v in value]
    return value


def add(messages: Messages, user_id: str, **options: Unpack[AddOptions]) -> Call[Task]:
    rest = {k: v for k, v in options.items() if k != "created_at"}
    said = messages_of(messages, options.get("created_at"))
    body = _drop_none({"messages": said, "user_id": user_id, **_plain(rest)})
    return Call("POST", "/v1/memories", Task.model_validate, body=body)


def import_memories(
    user_id: str,
    memories: Sequence[Mapping[str, Any]],
    agent_id: str | None = None,
    run_id: str | None = None,
    relations: Sequence[Mapping[str, Any]] = (),
) -> Call[Task]:
    """Exported memories (and graph relations) written as they were (no extraction), as a task: `counts`
    says added / skipped (relations_added / relations_skipped)."""
    body = _drop_none({"user_id": user_id, "agent_id": agent_id, "run_id": run_id, "memories": _plain(memories)})
    if relations:
        body["relations"] = _plain(relations)
    return Call("POST", "/v1/memories/import", Task.model_validate, body=body)


def task(task_id: str) -> Call[Task]:
    return Call("GET", f"/v1/tasks/{task_id}", Task.model_validate)


def search(query: str, user_id: str, **options: Unpack[SearchOptions]) -> Call[SearchResults]:
    given: dict[str, Any] = dict(options)
    span = given.pop("time_range", None)
    if span is not None:
        given["time_range"] = {"from": span[0].isoformat(), "to": span[1].isoformat()}
    body = _drop_none({"query": query, "user_id": user_id, **_plain(given)})
    return Call("POST", "/v1/memories/search", SearchResults.model_validate, body=body)


def get(memory_id: str, include_source: bool = False) -> Call[Memory]:
    params = {"include": "source"} if include_source else None
    return Call("GET", f"/v1/memories/{memory_id}", Memory.model_validate, params=params)


def page(user_id: str, limit: int = 100, cursor: str | None = None, **filters: Any) -> Call[Page]:
    params = _drop_none({"user_id": user_id, "limit": limit, "cursor": cursor, **filters})
    for key, value in params.items():
        if isinstance(value, bool):
            params[key] = "true" if value else "false"
    return Call("GET", "/v1/memories", Page.model_validate, params=params)


def update(memory_id: str, text: str | None = None, **options: Unpack[UpdateOptions]) -> Call[Memory]:
    body = _drop_none({"text": text, **_plain(dict(options))})
    return Call("PATCH", f"/v1/memories/{memory_id}", Memory.model_validate, body=body)


def delete(memory_id: str) -> Call[Deleted]:
    return Call("DELETE", f"/v1/memories/{memory_id}", Deleted.model_validate)


def delete_all(user_id: str) -> Call[Deleted]:
    """Answered 200 `{deleted, message}` now, or 202 `{task_id, status}` by servers that do it in the background."""
    return Call("DELETE", "/v1/memories", Deleted.model_validate, params={"user_id": user_id})


def history(memory_id: str) -> Call[list[HistoryEntry]]:
    def parse(body: Any) -> list[HistoryEntry]:
        return [HistoryEntry.model_validate(e) for e in body["results"]]

    return Call("GET", f"/v1/memories/{memory_id}/history", parse)


def create_attachment(
    name: str, media_type: str, data: bytes | None, description: str | None = None
) -> Call[AttachmentCreated]:
    """Inline when `data` is small enough; otherwise (or without data) the answer holds an upload URL."""
    inline = data is not None and len(data) <= INLINE_ATTACHMENT_BYTES
    content = base64.b64encode(data).decode("ascii") if inline and data is not None else None
    body = _drop_none({"name": name, "media_type": media_type, "description": description, "content_base64": content})
    return Call("POST", "/v1/attachments", AttachmentCreated.model_validate, body=body)


def attachment(attachment_id: str, limit: int | None = None, cursor: str | None = None) -> Call[Attachment]:
    """The attachment with a page of the memories holding it (`next_cursor` names the next page)."""
    params = _drop_none({"limit": limit, "cursor": cursor})
    return Call("GET", f"/v1/attachments/{attachment_id}", Attachment.model_validate, params=params)


# --- graph, operations, users -------------------------------------------------------------------

MaintenanceStep = Literal["repair", "expire", "dedupe", "summarise", "prune"]


def graph(
    user_id: str,
    limit: int | None = None,
    entity_cursor: str | None = None,
    relation_cursor: str | None = None,
    as_of: datetime | None = None,
    relations: Literal["all"] | None = None,
) -> Call[Graph]:
    params = _drop_none(
        {
            "user_id": user_id,
            "limit": limit,
            "entity_cursor": entity_cursor,
            "relation_cursor": relation_cursor,
            "as_of": as_of,
            "relations": relations,
        }
    )
    return Call("GET", "/v1/graph", Graph.model_validate, params=params)


def entity(entity_id: str) -> Call[Entity]:
    return Call("GET", f"/v1/graph/entities/{entity_id}", Entity.model_validate)


def delete_relation(relation_id: str) -> Call[RelationDeleted]:
    return Call("DELETE", f"/v1/graph/relations/{relation_id}", RelationDeleted.model_validate)


def health(deep: bool = False) -> Call[Health]:
    return Call("GET", "/health", Health.model_validate, params={"deep": "true"} if deep else None)


def openapi() -> Call[dict[str, Any]]:
    return Call("GET", "/openapi.json", dict)


def queue_metrics(window: Literal["hour", "day"] = "hour") -> Call[QueueMetrics]:
    return Call("GET", "/v1/metrics/extraction-queue", QueueMetrics.model_validate, params={"window": window})


def usage(start: date | None = None, end: date | None = None) -> Call[Usage]:
    params = {k: v.isoformat() for k, v in (("from", start), ("to", end)) if v is not None}
    return Call("GET", "/v1/usage", Usage.model_validate, params=params or None)


def chat_completions(user_id: str, messages: Sequence[Mapping[str, Any]], **params: Any) -> Call[dict[str, Any]]:
    """OpenAI's chat completions through Engram's proxy (not streamed): memories in, the exchange remembered."""
    body = {**params, "user": user_id, "messages": [dict(m) for m in messages], "stream": False}
    return Call("POST", "/v1/chat/completions", dict, body=body)


def start_maintenance(actions: Sequence[MaintenanceStep], user_id: str | None = None) -> Call[MaintenanceStarted]:
    body = _drop_none({"actions": list(actions), "user_id": user_id})
    return Call("POST", "/v1/maintenance", MaintenanceStarted.model_validate, body=body)


def maintenance_run(execution_id: str) -> Call[MaintenanceRun]:
    return Call("GET", f"/v1/maintenance/{execution_id}", MaintenanceRun.model_validate)


def users_page(limit: int | None = None, cursor: str | None = None) -> Call[UsersPage]:
    params = _drop_none({"limit": limit, "cursor": cursor})
    return Call("GET", "/v1/users", UsersPage.model_validate, params=params or None)


def get_config() -> Call[TenantConfig]:
    return Call("GET", "/v1/config", TenantConfig.model_validate)


def put_config(config: TenantConfig | Mapping[str, Any]) -> Call[TenantConfig]:
    """Replaces the tenant's configuration whole (fields left out are reset)."""
    body = config.model_dump() if isinstance(config, TenantConfig) else _plain(config)
    return Call("PUT", "/v1/config", TenantConfig.model_validate, body=body)


def test_policy(text: str, user_id: str | None = None, policy: Mapping[str, Any] | None = None) -> Call[dict[str, Any]]:
    """How the memory policy reads a sentence: per clause kept, excluded or not included, and the closest topic."""
    body = _drop_none({"text": text, "user_id": user_id, "policy": _plain(policy) if policy is not None else None})
    return Call("POST", "/v1/config/policy/test", dict, body=body)


# Every operation of the API (as its /openapi.json lists it) -> the method of Engram and AsyncEngram that
# calls it. tests/e2e/test_client_routes.py compares this with the live document, so a new route
# without a client method fails the tests.
ROUTES: dict[tuple[str, str], str] = {
    ("GET", "/health"): "health",
    ("GET", "/openapi.json"): "openapi",
    ("POST", "/v1/memories"): "add",
    ("GET", "/v1/memories"): "list_page",
    ("DELETE", "/v1/memories"): "delete_all",
    ("POST", "/v1/memories/search"): "search",
    ("POST", "/v1/memories/import"): "import_memories",
    ("GET", "/v1/memories/{memory_id}"): "get",
    ("PATCH", "/v1/memories/{memory_id}"): "update",
    ("DELETE", "/v1/memories/{memory_id}"): "delete",
    ("GET", "/v1/memories/{memory_id}/history"): "history",
    ("GET", "/v1/tasks/{task_id}"): "task",
    ("POST", "/v1/attachments"): "upload_attachment",
    ("GET", "/v1/attachments/{attachment_id}"): "attachment",
    ("GET", "/v1/graph"): "graph",
    ("GET", "/v1/graph/entities/{entity_id}"): "entity",
    ("DELETE", "/v1/graph/relations/{relation_id}"): "delete_relation",
    ("GET", "/v1/metrics/extraction-queue"): "queue_metrics",
    ("GET", "/v1/usage"): "usage",
    ("POST", "/v1/maintenance"): "start_maintenance",
    ("GET", "/v1/maintenance/{execution_id}"): "maintenance_run",
    ("GET", "/v1/users"): "users_page",
    ("POST", "/v1/chat/completions"): "chat_completions",
    ("GET", "/v1/config"): "get_config",
    ("PUT", "/v1/config"): "put_config",
    ("POST", "/v1/config/policy/test"): "test_policy",
}
