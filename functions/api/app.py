"""API function: builds the resolver, includes the routers (every route is in engram/http/*_routes.py),
and answers errors in the API's one shape (engram/http/errors.py).

Every request body is one pydantic model the resolver parses before the route runs; a bad one is a 422
naming the field (a body that is not JSON, a 400), from `invalid_request` below.

No Powertools Tracer here: the X-Ray SDK it loads is 0.3 s of a 0.7 s cold start, and API Gateway and
Lambda's active tracing already record each request's segment; the extraction function keeps it."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response
from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.utilities.typing import LambdaContext

from engram.bootstrap import container
from engram.domain.errors import EngramError
from engram.http import (
    agentcore_routes,
    attachments_routes,
    chat_routes,
    config_routes,
    docs_routes,
    graph_routes,
    maintenance_routes,
    memories_routes,
    operations_routes,
    search_routes,
    tasks_routes,
    users_routes,
)
from engram.http.cors import cors_config
from engram.http.errors import error_response, retry_headers, to_http, validation_response
from engram.http.screen import screen

logger = Logger()
app = APIGatewayRestResolver(enable_validation=True, cors=cors_config(container().settings.cors_origin_list))
container().settings.require("memory_table", "tasks_table", "bucket", "queue_url")

ROUTERS = (
    chat_routes,
    graph_routes,
    config_routes,
    operations_routes,
    maintenance_routes,
    users_routes,
    docs_routes,
    memories_routes,
    tasks_routes,
    search_routes,
    attachments_routes,
    agentcore_routes,  # AgentCore Memory's data plane at botocore's URIs, /memories/... (docs/agentcore.md)
)
for routes in ROUTERS:
    app.include_router(routes.router)


@app.exception_handler(EngramError)
def domain_error(error: EngramError) -> Response[Any]:
    status, body = to_http(error)
    if status >= 500:
        logger.exception("request failed")
    return error_response(app.current_event.resource, status, body, retry_headers(error))


@app.exception_handler(RequestValidationError)
def invalid_request(error: RequestValidationError) -> Response[Any]:
    return error_response(app.current_event.resource, *validation_response(error.errors(), error.body))


# log_event=False whatever POWERTOOLS_LOGGER_LOG_EVENT says: the event carries the x-api-key header.
@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_REST, log_event=False)
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    try:
        return screen(event) or app.resolve(event, context)
    finally:
        container().metrics.flush()  # one EMF line per invocation, when a metric was added
