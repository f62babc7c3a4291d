"""EventPublisher through the API Gateway Management API: posts each event to the tenant's open
WebSocket connections; a connection API Gateway reports gone (410) is removed."""

from __future__ import annotations

import json
from typing import Any

from aws_lambda_powertools import Logger
from botocore.exceptions import BotoCoreError, ClientError

from engram.adapters.aws.clients import error_code
from engram.domain.operations_ports import ConnectionStore

logger = Logger(child=True)


class ApiGatewayEventPublisher:
    def __init__(self, connections: ConnectionStore, management_api: Any) -> None:
        self._connections = connections
        self._api = management_api  # a boto3 "apigatewaymanagementapi" client for the stage's URL

    def publish(self, tenant_id: str, user_id: str, event: dict[str, Any]) -> None:
        data = json.dumps(event).encode()
        for connection in self._connections.for_tenant(tenant_id):
            if connection.user_id not in (None, user_id):
                continue
            try:
                self._api.post_to_connection(ConnectionId=connection.connection_id, Data=data)
            except ClientError as err:
                if error_code(err) == "GoneException":
                    self._connections.remove(connection.connection_id)
                else:
                    _not_posted(connection.connection_id, err)
            except BotoCoreError as err:
                _not_posted(connection.connection_id, err)


def _not_posted(connection_id: str, err: Exception) -> None:
    logger.warning("event not posted", extra={"connection": connection_id, "error": str(err)})
