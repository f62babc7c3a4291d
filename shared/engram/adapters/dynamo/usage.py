"""UsageCounters on DynamoDB, in the tasks table: per tenant per UTC day, `!usage#{tenant}#{day}` written
as `shards` items (`shards.py`: each add goes to the next shard, so a busy tenant's workers do not
all write one key), changed by UpdateItem ADD only (concurrent workers never lose a count) and read by
BatchGetItem of every shard of the days asked for, summed (never a scan). The items carry no expiry:
usage is kept."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from engram.adapters.aws.clients import aws_errors
from engram.adapters.dynamo.batch import batch_get
from engram.adapters.dynamo.shards import ShardTurn, shard_key, shard_keys
from engram.domain.operations import USAGE_FIELDS, UsageDay

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient


def usage_key(tenant_id: str, day: str) -> str:
    return f"!usage#{tenant_id}#{day}"


class DynamoUsageCounters:
    def __init__(self, client: DynamoDBClient, table_name: str, shards: int = 1) -> None:
        self._db = client
        self._table = table_name
        self._turn = ShardTurn(shards)

    def add(self, tenant_id: str, day: str, counts: Mapping[str, int]) -> None:
        adds = {k: int(v) for k, v in counts.items() if k in USAGE_FIELDS and v}
        if not adds:
            return
        with aws_errors(self._table):
            self._db.update_item(
                TableName=self._table,
                Key={"pk": {"S": shard_key(usage_key(tenant_id, day), self._turn.next())}},
                UpdateExpression="ADD " + ", ".join(f"#{k} :{k}" for k in adds),
                ExpressionAttributeNames={f"#{k}": k for k in adds},
                ExpressionAttributeValues={f":{k}": {"N": str(v)} for k, v in adds.items()},
            )

    def days(self, tenant_id: str, days: Sequence[str]) -> list[UsageDay]:
        n = self._turn.shards
        keys = [{"pk": {"S": key}} for day in days for key in shard_keys(usage_key(tenant_id, day), n)]
        items: dict[str, dict[str, Any]] = {i["pk"]["S"]: i for i in batch_get(self._db, self._table, keys)}
        found = []
        for day in days:
            shards = [items.get(key, {}) for key in shard_keys(usage_key(tenant_id, day), n)]
            sums = {k: sum(int(i[k]["N"]) for i in shards if k in i) for k in USAGE_FIELDS}
            found.append(UsageDay(date=day, **sums))
        return found
