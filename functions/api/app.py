"""API function: HTTP glue only. Parse (pydantic, via the resolver), call the service, answer.

No Powertools Tracer here: the X-Ray SDK it loads is 0.3 s of a 0.7 s cold start, and API Gateway and
Lambda's active tracing already record each request's segment; the extraction function keeps it."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from aws_lambda_powertools import Logger
from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response, content_types
from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError
from aws_lambda_powertools.event_handler.openapi.params import Query
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.utilities.typing import LambdaContext

from engram.bootstrap import container
from engram.domain.errors import EngramError
from engram.domain.filters import ListFilters
from engram.domain.limits import ID_PATTERN, MAX_ID_CHARS
from engram.domain.models import AddRequest, MemoryBank
from engram.http import agentcore_routes, chat_routes, config_routes, graph_routes, import_routes, operations_routes
from engram.http.authorization import tenant_of
from engram.http.cors import cors_config
from engram.http.docs import openapi_document, swagger_page
from engram.http.errors import error_response, retry_headers, to_http, validation_response
from engram.http.graph_models import RelationView
from engram.http.models import (
    Accepted,
    AttachmentCreate,
    AttachmentCreated,
    AttachmentView,
    Deleted,
    HistoryResponse,
    HistoryView,
    ListResponse,
    MemoryView,
    PatchBody,
    SearchBody,
    SearchResponse,
    TaskView,
    aware,
)
from engram.http.operation_docs import OPERATIONS
from engram.http.screen import screen

logger = Logger()
app = APIGatewayRestResolver(enable_validation=True, cors=cors_config(container().settings.cors_origin_list))

# /v1/chat/completions; /v1/graph; /v1/config; /v1/memories/import; /health, /v1/usage...; AgentCore's /memories/...
for routes in (chat_routes, graph_routes, config_routes, import_routes, operations_routes, agentcore_routes):
    app.include_router(routes.router)
container().settings.require("memory_table", "tasks_table", "bucket", "queue_url")

UserId = Annotated[str, Query(min_length=1, max_length=MAX_ID_CHARS, pattern=ID_PATTERN)]


def tenant() -> str:
    """The tenant the authorizer resolved from the API key; never taken from the request body."""
    return tenant_of(app.current_event)


@app.exception_handler(EngramError)
def domain_error(error: EngramError) -> Response[Any]:
    status, body = to_http(error)
    if status >= 500:
        logger.exception("request failed")
    return error_response(app.current_event.resource, status, body, retry_headers(error))


@app.exception_handler(RequestValidationError)
def invalid_request(error: RequestValidationError) -> Response[Any]:
    return error_response(app.current_event.resource, *validation_response(error.errors(), error.body))


@app.get("/openapi.json", **OPERATIONS["openapi"])
def openapi() -> Response[str]:
    return openapi_document(app)


@app.get("/docs", include_in_schema=False)
def docs() -> Response[str]:
    return swagger_page(app)  # Swagger UI and the OpenAPI models load on first use, not at cold start


@app.post("/v1/memories", **OPERATIONS["add_memories"])
def add_memories(body: AddRequest) -> Response[Accepted]:
    task = container().memories.submit(tenant(), body)
    container().task_events.queued(task)
    return Response(202, content_types.APPLICATION_JSON, Accepted(task_id=task.task_id, status=task.status))


@app.get("/v1/tasks/<task_id>", **OPERATIONS["get_task"])
def get_task(task_id: str) -> TaskView:
    return TaskView.of(container().memories.task(tenant(), task_id))


@app.post("/v1/memories/search", **OPERATIONS["search"])
def search(body: SearchBody) -> SearchResponse:
    memories = container().memories
    query = body.to_query()
    with container().accounting.search(tenant()):  # the tenant's usage, the latency metric
        hits = memories.search(tenant(), query)
    details = memories.attachment_details(tenant(), [fact for fact, _ in hits])
    related = memories.related(tenant(), query, body.graph_hops) if body.graph else []
    return SearchResponse(
        results=[MemoryView.of(fact, score, details) for fact, score in hits], relations=RelationView.scored(related)
    )


@app.get("/v1/memories", **OPERATIONS["list_memories"])
def list_memories(
    user_id: UserId,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    cursor: Annotated[str | None, Query(max_length=4096)] = None,
    agent_id: Annotated[str | None, Query(max_length=256)] = None,
    run_id: Annotated[str | None, Query(max_length=256)] = None,
    attachment_id: Annotated[str | None, Query(max_length=64)] = None,
    memory_bank: Annotated[MemoryBank | None, Query()] = None,
    is_protected: Annotated[bool | None, Query()] = None,
    fact_key: Annotated[str | None, Query(max_length=256)] = None,
    as_of: Annotated[datetime | None, Query()] = None,
) -> ListResponse:
    memories = container().memories
    bank = memory_bank.value if memory_bank else None
    filters = ListFilters(
        agent_id=agent_id, run_id=run_id, memory_bank=bank, is_protected=is_protected, fact_key=fact_key
    )
    page = memories.list_memories(tenant(), user_id, limit, cursor, filters, attachment_id, aware(as_of))
    details = memories.attachment_details(tenant(), page.items)
    return ListResponse(results=[MemoryView.of(f, None, details) for f in page.items], next_cursor=page.next_cursor)


@app.delete("/v1/memories", **OPERATIONS["delete_all"])
def delete_all(user_id: UserId) -> Response[Accepted]:
    task = container().memories.delete_all(tenant(), user_id)
    container().task_events.queued(task)
    return Response(202, content_types.APPLICATION_JSON, Accepted(task_id=task.task_id, status=task.status))


@app.get("/v1/memories/<memory_id>", **OPERATIONS["get_memory"])
def get_memory(memory_id: str, include: Annotated[Literal["source"] | None, Query()] = None) -> MemoryView:
    memories = container().memories
    fact = memories.get(tenant(), memory_id)
    view = MemoryView.of(fact, None, memories.attachment_details(tenant(), [fact]))
    if include == "source":
        view.source_messages = memories.source_messages(tenant(), fact)
    return view


@app.patch("/v1/memories/<memory_id>", **OPERATIONS["patch_memory"])
def patch_memory(memory_id: str, body: PatchBody) -> MemoryView:
    fact = container().memories.update(tenant(), memory_id, body)
    return MemoryView.of(fact)


@app.delete("/v1/memories/<memory_id>", **OPERATIONS["delete_memory"])
def delete_memory(memory_id: str) -> Deleted:
    container().memories.delete(tenant(), memory_id)
    return Deleted(deleted=1, message=f"memory {memory_id} deleted")


@app.get("/v1/memories/<memory_id>/history", **OPERATIONS["memory_history"])
def memory_history(
    memory_id: str,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    cursor: Annotated[str | None, Query(max_length=4096)] = None,
) -> HistoryResponse:
    page = container().memories.history(tenant(), memory_id, limit, cursor)
    return HistoryResponse(results=[HistoryView.of(e) for e in page.items], next_cursor=page.next_cursor)


@app.post("/v1/attachments", **OPERATIONS["create_attachment"])
def create_attachment(body: AttachmentCreate) -> Response[AttachmentCreated]:
    attachment, upload_url = container().attachments.create(
        tenant(), body.name, body.media_type, body.description, body.content_base64
    )
    created = AttachmentCreated(attachment_id=attachment.id, upload_url=upload_url, stored=attachment.stored)
    return Response(201, content_types.APPLICATION_JSON, created)


@app.get("/v1/attachments/<attachment_id>", **OPERATIONS["get_attachment"])
def get_attachment(
    attachment_id: str,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    cursor: Annotated[str | None, Query(max_length=4096)] = None,
) -> AttachmentView:
    attachment, url, holders, more = container().attachments.get(tenant(), attachment_id, limit, cursor)
    return AttachmentView(**attachment.model_dump(), download_url=url, memory_ids=holders, next_cursor=more)


# log_event=False whatever POWERTOOLS_LOGGER_LOG_EVENT says: the event carries the x-api-key header.
@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_REST, log_event=False)
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    try:
        return screen(event) or app.resolve(event, context)
    finally:
        container().metrics.flush()  # one EMF line per invocation, when a metric was added
