"""UsageCounters on DynamoDB, in the tasks table: one item per tenant per UTC day, `!usage#{tenant}#{day}`,
changed by UpdateItem ADD only (concurrent workers never lose a count) and read by BatchGetItem of the
days asked for (never a scan). The items carry no expiry: usage is kept."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from engram.adapters.aws_clients import aws_errors
from engram.adapters.dynamo_batch import batch_get
from engram.domain.operations import USAGE_FIELDS, UsageDay

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient


def usage_key(tenant_id: str, day: str) -> str:
    return f"!usage#{tenant_id}#{day}"


class DynamoUsageCounters:
    def __init__(self, client: DynamoDBClient, table_name: str) -> None:
        self._db = client
        self._table = table_name

    def add(self, tenant_id: str, day: str, counts: Mapping[str, int]) -> None:
        adds = {k: int(v) for k, v in counts.items() if k in USAGE_FIELDS and v}
        if not adds:
            return
        with aws_errors(self._table):
            self._db.update_item(
                TableName=self._table,
                Key={"pk": {"S": usage_key(tenant_id, day)}},
                UpdateExpression="ADD " + ", ".join(f"#{k} :{k}" for k in adds),
                ExpressionAttributeNames={f"#{k}": k for k in adds},
                ExpressionAttributeValues={f":{k}": {"N": str(v)} for k, v in adds.items()},
            )

    def days(self, tenant_id: str, days: Sequence[str]) -> list[UsageDay]:
        keys = [{"pk": {"S": usage_key(tenant_id, day)}} for day in days]
        items: dict[str, dict[str, Any]] = {i["pk"]["S"]: i for i in batch_get(self._db, self._table, keys)}
        found = []
        for day in days:
            item = items.get(usage_key(tenant_id, day), {})
            found.append(UsageDay(date=day, **{k: int(item[k]["N"]) for k in USAGE_FIELDS if k in item}))
        return found
