"""The WebSocket API's function: $connect checks the API key (header or query) and records the
connection for its tenant; subscribe narrows it; $disconnect removes it."""

from __future__ import annotations

import json
from typing import Any

from tests.integration.aws_tables import create_connections_table
from tests.integration.stack import Stack
from tests.support.handlers import FakeContext, load_function


def ws_event(route: str, connection_id: str = "c1", **extra: Any) -> dict[str, Any]:
    return {"requestContext": {"routeKey": route, "connectionId": connection_id}, **extra}


def with_connections_table(stack: Stack) -> Any:
    create_connections_table(stack.dynamodb)
    c = stack.container
    c.settings = c.settings.model_copy(update={"connections_table": "engram-connections"})
    return load_function("websocket").lambda_handler


def test_connect_subscribe_disconnect(stack: Stack) -> None:
    handler = with_connections_table(stack)
    _, key = stack.container.keys.create("acme")
    connections = stack.container.connections

    assert handler(ws_event("$connect", headers={"X-Api-Key": key}), FakeContext()) == {"statusCode": 200}
    assert (
        handler(ws_event("$connect", "c2", queryStringParameters={"api_key": key, "user_id": "bob"}), FakeContext())[
            "statusCode"
        ]
        == 200
    )
    assert sorted((c.connection_id, c.user_id) for c in connections.for_tenant("acme")) == [("c1", None), ("c2", "bob")]

    reply = handler(ws_event("subscribe", body=json.dumps({"action": "subscribe", "user_id": "alice"})), FakeContext())
    assert json.loads(reply["body"]) == {"type": "subscribed", "user_id": "alice"}
    handler(ws_event("$disconnect", "c2"), FakeContext())
    assert [(c.connection_id, c.user_id) for c in connections.for_tenant("acme")] == [("c1", "alice")]


def test_connect_without_a_valid_key_is_refused(stack: Stack) -> None:
    handler = with_connections_table(stack)
    assert handler(ws_event("$connect", headers={"x-api-key": "nope"}), FakeContext()) == {"statusCode": 401}
    assert handler(ws_event("$connect"), FakeContext()) == {"statusCode": 401}
    assert stack.container.connections.for_tenant("acme") == []


def test_a_connection_is_logged_with_its_tenant_and_never_the_key(stack: Stack, caplog: Any) -> None:
    """The WebSocket access log names the connection only; the function's line says whose it is."""
    handler = with_connections_table(stack)
    record, key = stack.container.keys.create("acme")
    caplog.set_level("INFO")
    handler(ws_event("$connect", "c9", queryStringParameters={"api_key": key}), FakeContext())
    [connected] = [r for r in caplog.records if r.getMessage() == "connected"]
    fields = vars(connected)
    assert (fields["connection_id"], fields["tenant_id"], fields["key_id"]) == ("c9", "acme", record.key_id)
    assert all(key not in repr(vars(r)) for r in caplog.records)
