"""UserDirectory on the memory table: one item per user of a tenant, in one partition per tenant.

Keys: pk=T#{tenant}#M#USERS, sk=U#{user_id}; `last_active_at` is overwritten as the worker finishes a
user's adds. Listing a tenant's users is then one Query on that partition, never a Scan of memories."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from engram.adapters.aws.clients import aws_errors
from engram.adapters.dynamo.cursor import decode_cursor, encode_cursor
from engram.adapters.dynamo.fact_store import memory_pk
from engram.adapters.dynamo.values import iso
from engram.domain.models import UserActivity, UserPage

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient

_KEYS = ("pk", "sk")
_USER_PREFIX = "U#"


def users_pk(tenant_id: str) -> str:
    # memory_pk checks the tenant id (no "#"); "USERS" is never a memory id (those are uuid4s)
    return memory_pk(tenant_id, "USERS")


class DynamoUserDirectory:
    def __init__(self, client: DynamoDBClient, table: str) -> None:
        self._db = client
        self._table = table

    def touch(self, tenant_id: str, user_id: str, when: datetime) -> None:
        with aws_errors("dynamodb"):
            self._db.put_item(
                TableName=self._table,
                Item={
                    "pk": {"S": users_pk(tenant_id)},
                    "sk": {"S": _USER_PREFIX + user_id},
                    "item_type": {"S": "user"},
                    "user_id": {"S": user_id},
                    "last_active_at": {"S": iso(when)},
                },
            )

    def forget(self, tenant_id: str, user_id: str) -> None:
        with aws_errors("dynamodb"):
            key = {"pk": {"S": users_pk(tenant_id)}, "sk": {"S": _USER_PREFIX + user_id}}
            self._db.delete_item(TableName=self._table, Key=key)

    def list(self, tenant_id: str, limit: int, cursor: str | None = None) -> UserPage:
        pk = users_pk(tenant_id)
        query: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :u)",
            "ExpressionAttributeValues": {":pk": {"S": pk}, ":u": {"S": _USER_PREFIX}},
            "Limit": limit,
        }
        if cursor:
            query["ExclusiveStartKey"] = decode_cursor(cursor, _KEYS, "pk", pk)
        with aws_errors("dynamodb"):
            reply = self._db.query(**query)
        items = [
            UserActivity(user_id=i["user_id"]["S"], last_active_at=datetime.fromisoformat(i["last_active_at"]["S"]))
            for i in reply.get("Items", [])
        ]
        last = reply.get("LastEvaluatedKey")
        return UserPage(items=items, next_cursor=encode_cursor(last, _KEYS) if last else None)
