"""DynamoDB batch reads and writes with their unprocessed remainder retried (throttling), shared by
the fact and task stores."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from engram.adapters.aws.clients import aws_errors
from engram.domain.errors import TransientError

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient

Item = dict[str, Any]

BATCH_GET_LIMIT = 100  # keys per BatchGetItem
BATCH_WRITE_LIMIT = 25  # requests per BatchWriteItem
RETRIES = 8


def _back_off(attempt: int) -> None:
    time.sleep(min(0.05 * 2**attempt, 2.0))  # unprocessed items mean throttling


def batch_get(db: DynamoDBClient, table: str, keys: list[Item]) -> list[Item]:
    """Strongly consistent reads of `keys` (any number); items that do not exist are absent."""
    items: list[Item] = []
    for start in range(0, len(keys), BATCH_GET_LIMIT):
        request: dict[str, Any] = {table: {"Keys": keys[start : start + BATCH_GET_LIMIT], "ConsistentRead": True}}
        for attempt in range(RETRIES):
            with aws_errors(table):
                resp = db.batch_get_item(RequestItems=request)
            items.extend(resp.get("Responses", {}).get(table, []))
            request = dict(resp.get("UnprocessedKeys") or {})
            if not request:
                break
            _back_off(attempt)
        else:
            raise TransientError(f"BatchGetItem on {table} left keys unprocessed after retries")
    return items


def batch_put(db: DynamoDBClient, table: str, items: list[Item]) -> None:
    """Unconditional puts of `items` (any number), 25 per request."""
    _batch_write(db, table, [{"PutRequest": {"Item": item}} for item in items])


def batch_delete(db: DynamoDBClient, table: str, keys: list[Item]) -> None:
    """Deletes of `keys` (any number; absent keys are fine), 25 per request."""
    _batch_write(db, table, [{"DeleteRequest": {"Key": key}} for key in keys])


def batch_put_tables(db: DynamoDBClient, items: list[tuple[str, Item]]) -> None:
    """Unconditional puts of (table, item) pairs, 25 per request whatever their tables: items of two
    tables written together cost one request, not two."""
    _batch_write_tables(db, [(table, {"PutRequest": {"Item": item}}) for table, item in items])


def _batch_write(db: DynamoDBClient, table: str, requests: list[Item]) -> None:
    _batch_write_tables(db, [(table, r) for r in requests])


def _batch_write_tables(db: DynamoDBClient, requests: list[tuple[str, Item]]) -> None:
    for start in range(0, len(requests), BATCH_WRITE_LIMIT):
        request: dict[str, Any] = {}
        for table, one in requests[start : start + BATCH_WRITE_LIMIT]:
            request.setdefault(table, []).append(one)
        tables = ", ".join(request)
        for attempt in range(RETRIES):
            with aws_errors(tables):
                resp = db.batch_write_item(RequestItems=request)
            request = dict(resp.get("UnprocessedItems") or {})
            if not request:
                break
            _back_off(attempt)
        else:
            raise TransientError(f"BatchWriteItem on {tables} left items unprocessed after retries")
