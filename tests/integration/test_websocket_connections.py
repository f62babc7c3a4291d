"""AWS side of the task events: connections in DynamoDB (moto), posts through the Management API
(a recording client), gone connections removed, tenants kept apart."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from moto import mock_aws

from engram.adapters.aws.apigw_event_publisher import ApiGatewayEventPublisher
from engram.adapters.dynamo.connection_store import DynamoConnectionStore
from engram.domain.operations import EventConnection
from tests.integration.aws_tables import create_connections_table


class ManagementApi:
    """Records post_to_connection calls; answers 410 Gone for the ids in `gone`."""

    def __init__(self, gone: set[str] | None = None) -> None:
        self.posts: list[tuple[str, Any]] = []
        self.gone = gone or set()

    def post_to_connection(self, ConnectionId: str, Data: bytes) -> None:
        if ConnectionId in self.gone:
            raise ClientError({"Error": {"Code": "GoneException", "Message": "gone"}}, "PostToConnection")
        self.posts.append((ConnectionId, json.loads(Data)))


@pytest.fixture
def connections() -> Iterator[DynamoConnectionStore]:
    with mock_aws():
        db = boto3.client("dynamodb", region_name="us-east-1")
        create_connections_table(db, "connections")
        yield DynamoConnectionStore(db, "connections")


EVENT = {"type": "memory_extraction_completed", "task_id": "t1", "user_id": "alice", "facts_count": 2}


def test_events_go_to_the_tenants_connections_for_that_user(connections: DynamoConnectionStore) -> None:
    connections.add(EventConnection(connection_id="c-all", tenant_id="acme"))
    connections.add(EventConnection(connection_id="c-alice", tenant_id="acme", user_id="alice"))
    connections.add(EventConnection(connection_id="c-bob", tenant_id="acme", user_id="bob"))
    connections.add(EventConnection(connection_id="c-globex", tenant_id="globex"))
    api = ManagementApi()

    ApiGatewayEventPublisher(connections, api).publish("acme", "alice", EVENT)

    assert sorted(api.posts, key=lambda p: p[0]) == [("c-alice", EVENT), ("c-all", EVENT)]


def test_subscribe_narrows_and_widens_a_connection(connections: DynamoConnectionStore) -> None:
    connections.add(EventConnection(connection_id="c1", tenant_id="acme"))
    connections.subscribe("c1", "bob")
    api = ManagementApi()
    publisher = ApiGatewayEventPublisher(connections, api)

    publisher.publish("acme", "alice", EVENT)
    assert api.posts == []
    connections.subscribe("c1", None)
    publisher.publish("acme", "alice", EVENT)
    assert api.posts == [("c1", EVENT)]


def test_a_gone_connection_is_removed(connections: DynamoConnectionStore) -> None:
    connections.add(EventConnection(connection_id="c-gone", tenant_id="acme"))
    connections.add(EventConnection(connection_id="c-open", tenant_id="acme"))
    api = ManagementApi(gone={"c-gone"})

    ApiGatewayEventPublisher(connections, api).publish("acme", "alice", EVENT)

    assert api.posts == [("c-open", EVENT)]
    assert [c.connection_id for c in connections.for_tenant("acme")] == ["c-open"]


def test_disconnect_removes_both_items(connections: DynamoConnectionStore) -> None:
    connections.add(EventConnection(connection_id="c1", tenant_id="acme", user_id="alice"))
    connections.remove("c1")
    connections.subscribe("c1", "bob")  # a late subscribe of a closed connection changes nothing
    assert connections.for_tenant("acme") == []
