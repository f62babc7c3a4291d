""" "As of" reads of the memory table: the versions of one user's memories that were current at an
instant, from the `by_user_time` index (every fact and version item, keyed by when it became valid);
and every version, which is what an export writes.

Whether a version was still current then (valid_to after the instant) and the listing filters are
read in Python: the stored times are pydantic's ISO text, whose width varies, so they are compared
as datetimes, never as strings. Each request reads at most MAX_READS pages, so its cost does not grow
with a user's history; a page may then hold fewer items than asked, with a cursor to go on.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from engram.adapters.aws.clients import aws_errors
from engram.adapters.dynamo.cursor import decode_cursor, encode_cursor
from engram.adapters.dynamo.values import iso, plain_item
from engram.domain.errors import ValidationError
from engram.domain.filters import matches
from engram.domain.models import Fact, Page, SearchFilters

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

TIME_INDEX = "by_user_time"
MAX_READS = 5
_READ = 100
_CURSOR_KEYS = ("pk", "sk", "gsi2pk", "gsi2sk")


def list_as_of(
    db: DynamoDBClient,
    table: str,
    partition: str,
    as_of: datetime,
    limit: int,
    cursor: str | None,
    filters: SearchFilters | None,
) -> Page:
    if limit < 1:
        raise ValidationError("limit", "must be at least 1")
    params: dict[str, Any] = {
        "TableName": table,
        "IndexName": TIME_INDEX,
        # '$' sorts right after the '#' that follows the time: every version valid from <= as_of.
        "KeyConditionExpression": "gsi2pk = :u AND gsi2sk < :upper",
        "ExpressionAttributeValues": {":u": {"S": partition}, ":upper": {"S": iso(as_of) + "$"}},
        "ScanIndexForward": False,
        "Limit": _READ,
    }
    start = decode_cursor(cursor, _CURSOR_KEYS, "gsi2pk", partition) if cursor else None
    found: list[tuple[Fact, dict[str, Any]]] = []
    for _ in range(MAX_READS):
        if start is not None:
            params["ExclusiveStartKey"] = start
        with aws_errors(table):
            resp = db.query(**params)
        for item in resp.get("Items", []):
            fact = Fact.model_validate(plain_item(item))
            if (fact.valid_to is None or fact.valid_to > as_of) and matches(fact, filters):
                found.append((fact, item))
        start = resp.get("LastEvaluatedKey")
        if not start or len(found) >= limit:
            break
    if len(found) > limit:
        next_key: dict[str, Any] | None = found[limit - 1][1]
    else:
        next_key = start  # the end, or a page cut short by MAX_READS: go on from what was read
    items = [fact for fact, _ in found[:limit]]
    return Page(items=items, next_cursor=encode_cursor(next_key, _CURSOR_KEYS) if next_key else None)


def list_versions(db: DynamoDBClient, table: str, partition: str, limit: int, cursor: str | None) -> Page:
    """Every version of one user's memories, current and closed, a page of the index at a time."""
    if limit < 1:
        raise ValidationError("limit", "must be at least 1")
    params: dict[str, Any] = {
        "TableName": table,
        "IndexName": TIME_INDEX,
        "KeyConditionExpression": "gsi2pk = :u",
        "ExpressionAttributeValues": {":u": {"S": partition}},
        "Limit": limit,
    }
    if cursor:
        params["ExclusiveStartKey"] = decode_cursor(cursor, _CURSOR_KEYS, "gsi2pk", partition)
    with aws_errors(table):
        resp = db.query(**params)
    last = resp.get("LastEvaluatedKey")
    items = [Fact.model_validate(plain_item(i)) for i in resp.get("Items", [])]
    return Page(items=items, next_cursor=encode_cursor(last, _CURSOR_KEYS) if last else None)
