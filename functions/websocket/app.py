"""WebSocket API routes for task events: $connect (API key in the x-api-key header or the api_key
query parameter, like the REST authorizer; optional user_id), subscribe, $disconnect."""

from __future__ import annotations

import json
from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.utilities.typing import LambdaContext

from engram.bootstrap import container
from engram.domain.operations import EventConnection
from engram.http.authorization import authorize

logger = Logger()
container().settings.require("keys_table", "connections_table")


def _connect(event: dict[str, Any], connection_id: str) -> dict[str, Any]:
    headers = {k.lower(): v for k, v in (event.get("headers") or {}).items()}
    query = event.get("queryStringParameters") or {}
    grant = authorize(container().keys, headers.get("x-api-key") or query.get("api_key"))
    if not grant.allowed:
        logger.info("connection refused", extra={"connection_id": connection_id})
        return {"statusCode": 401}
    user_id = query.get("user_id") or None
    tenant_id = grant.context["tenant_id"]
    container().connections.add(EventConnection(connection_id=connection_id, tenant_id=tenant_id, user_id=user_id))
    # The WebSocket access log has the connection id only (API Gateway never sees the tenant): this
    # line says whose it is. Ids only, never the key.
    logger.info(
        "connected",
        extra={"connection_id": connection_id, "tenant_id": tenant_id, "key_id": grant.context["key_id"]},
    )
    return {"statusCode": 200}


def _subscribe(event: dict[str, Any], connection_id: str) -> dict[str, Any]:
    try:
        message = json.loads(event.get("body") or "{}")
    except ValueError:
        return {"statusCode": 400, "body": "expected JSON"}
    user_id = message.get("user_id") if isinstance(message, dict) else None
    container().connections.subscribe(connection_id, user_id if isinstance(user_id, str) and user_id else None)
    return {"statusCode": 200, "body": json.dumps({"type": "subscribed", "user_id": user_id or None})}


@logger.inject_lambda_context(log_event=False)  # the event carries the API key or user content
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    request = event["requestContext"]
    connection_id = request["connectionId"]
    route = request["routeKey"]
    if route == "$connect":
        return _connect(event, connection_id)
    if route == "$disconnect":
        container().connections.remove(connection_id)
        return {"statusCode": 200}
    return _subscribe(event, connection_id)
