"""FactScanner over the DynamoDB memory table: a filtered Scan for scopes, the by_user GSI per user.

The Scan reads the whole table (one pass per maintenance run) but returns only the two scope
attributes of current FACT items; the per-user listing reuses DynamoFactStore.list_current so the
item -> Fact mapping lives in one place.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from engram.adapters.aws.clients import aws_errors
from engram.adapters.dynamo.fact_store import FACT_SK, DynamoFactStore
from engram.domain.models import Fact

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient

_LIST_PAGE = 500


class DynamoFactScanner:
    def __init__(self, client: DynamoDBClient, table_name: str, store: DynamoFactStore | None = None) -> None:
        self._db = client
        self._table = table_name
        self._store = store or DynamoFactStore(client, table_name)

    def scopes(self) -> Iterator[tuple[str, str]]:
        params: dict[str, Any] = {
            "TableName": self._table,
            "FilterExpression": "#sk = :fact AND attribute_not_exists(#valid_to)",
            "ProjectionExpression": "#tenant, #user",
            "ExpressionAttributeNames": {
                "#sk": "sk",
                "#valid_to": "valid_to",
                "#tenant": "tenant_id",
                "#user": "user_id",
            },
            "ExpressionAttributeValues": {":fact": {"S": FACT_SK}},
        }
        seen: set[tuple[str, str]] = set()
        while True:
            with aws_errors(self._table):
                resp = self._db.scan(**params)
            for item in resp.get("Items", []):
                tenant, user = item.get("tenant_id", {}).get("S"), item.get("user_id", {}).get("S")
                if tenant is None or user is None:
                    continue  # not a fact item (the filter should already have excluded it)
                scope = (tenant, user)
                if scope not in seen:
                    seen.add(scope)
                    yield scope
            last = resp.get("LastEvaluatedKey")
            if not last:
                return
            params["ExclusiveStartKey"] = last

    def current(self, tenant_id: str, user_id: str) -> list[Fact]:
        facts: list[Fact] = []
        cursor: str | None = None
        while True:
            page = self._store.list_current(tenant_id, user_id, limit=_LIST_PAGE, cursor=cursor)
            facts.extend(page.items)
            if page.next_cursor is None:
                return facts
            cursor = page.next_cursor
