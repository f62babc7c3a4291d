"""ConnectionStore on DynamoDB: item `{tenant}` / `{connection_id}` per connection (queried per tenant)
and `connection#{id}` / `-` pointing back at the tenant (for subscribe and disconnect, which only know
the connection id). Both expire through the table's TTL attribute `expires_at`, in case a disconnect
is never delivered."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from engram.adapters.aws.clients import aws_errors
from engram.domain.operations import EventConnection

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient

CONNECTION_TTL_S = 2 * 3600  # API Gateway closes a WebSocket after 2 hours anyway


def _back(connection_id: str) -> dict[str, Any]:
    return {"pk": {"S": f"connection#{connection_id}"}, "sk": {"S": "-"}}


class DynamoConnectionStore:
    def __init__(self, client: DynamoDBClient, table_name: str) -> None:
        self._db = client
        self._table = table_name

    def add(self, connection: EventConnection) -> None:
        expires = {"N": str(int(time.time()) + CONNECTION_TTL_S)}
        item: dict[str, Any] = {
            "pk": {"S": connection.tenant_id},
            "sk": {"S": connection.connection_id},
            "expires_at": expires,
        }
        if connection.user_id:
            item["user_id"] = {"S": connection.user_id}
        with aws_errors(self._table):
            self._db.put_item(TableName=self._table, Item=item)
            back = {**_back(connection.connection_id), "tenant_id": {"S": connection.tenant_id}, "expires_at": expires}
            self._db.put_item(TableName=self._table, Item=back)

    def subscribe(self, connection_id: str, user_id: str | None) -> None:
        tenant_id = self._tenant_of(connection_id)
        if tenant_id is None:
            return
        key = {"pk": {"S": tenant_id}, "sk": {"S": connection_id}}
        with aws_errors(self._table):
            if user_id:
                self._db.update_item(
                    TableName=self._table,
                    Key=key,
                    UpdateExpression="SET user_id = :u",
                    ExpressionAttributeValues={":u": {"S": user_id}},
                )
            else:
                self._db.update_item(TableName=self._table, Key=key, UpdateExpression="REMOVE user_id")

    def remove(self, connection_id: str) -> None:
        tenant_id = self._tenant_of(connection_id)
        with aws_errors(self._table):
            if tenant_id is not None:
                self._db.delete_item(TableName=self._table, Key={"pk": {"S": tenant_id}, "sk": {"S": connection_id}})
            self._db.delete_item(TableName=self._table, Key=_back(connection_id))

    def for_tenant(self, tenant_id: str) -> list[EventConnection]:
        found: list[EventConnection] = []
        params: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": "pk = :t",
            "ExpressionAttributeValues": {":t": {"S": tenant_id}},
        }
        with aws_errors(self._table):
            while True:
                page = self._db.query(**params)
                for item in page.get("Items", []):
                    user = item.get("user_id", {}).get("S")
                    found.append(EventConnection(connection_id=item["sk"]["S"], tenant_id=tenant_id, user_id=user))
                if "LastEvaluatedKey" not in page:
                    return found
                params["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def _tenant_of(self, connection_id: str) -> str | None:
        with aws_errors(self._table):
            item = self._db.get_item(TableName=self._table, Key=_back(connection_id)).get("Item")
        return item["tenant_id"]["S"] if item else None
