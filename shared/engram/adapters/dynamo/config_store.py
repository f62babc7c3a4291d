"""ConfigStore on DynamoDB: one item per tenant in the tasks table (key `!config#{tenant}`; tenant ids
never hold '#', so no task key can take that form), the configuration as JSON in `doc`. A PUT replaces
it whole; it carries no expiry."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engram.adapters.aws.clients import aws_errors
from engram.domain.models import utcnow
from engram.domain.policy import TenantConfig

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient


def config_pk(tenant_id: str) -> str:
    return f"!config#{tenant_id}"


class DynamoConfigStore:
    def __init__(self, client: DynamoDBClient, table_name: str) -> None:
        self._db = client
        self._table = table_name

    def get(self, tenant_id: str) -> TenantConfig | None:
        with aws_errors(self._table):
            item = self._db.get_item(
                TableName=self._table, Key={"pk": {"S": config_pk(tenant_id)}}, ConsistentRead=True
            )
        doc = item.get("Item", {}).get("doc", {}).get("S")
        return TenantConfig.model_validate_json(doc) if doc is not None else None

    def put(self, tenant_id: str, config: TenantConfig) -> None:
        item = {
            "pk": {"S": config_pk(tenant_id)},
            "doc": {"S": config.model_dump_json()},
            "updated_at": {"S": utcnow().isoformat()},
        }
        with aws_errors(self._table):
            self._db.put_item(TableName=self._table, Item=item)
