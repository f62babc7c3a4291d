"""BreakerStore on DynamoDB: one item per breaker in the tasks table (key `!breaker#{name}`; tenant
ids never hold '#', so no task key can take that form), the state as JSON in `doc`, and a `version`
that every write is conditional on."""

from __future__ import annotations

from typing import TYPE_CHECKING

from botocore.exceptions import ClientError

from engram.adapters.aws.clients import aws_errors, error_code, translate_client_error
from engram.domain.operations import BreakerState

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient


def breaker_pk(name: str) -> str:
    return f"!breaker#{name}"


class DynamoBreakerStore:
    def __init__(self, client: DynamoDBClient, table_name: str) -> None:
        self._db = client
        self._table = table_name

    def load(self, name: str) -> BreakerState:
        with aws_errors(self._table):
            item = self._db.get_item(TableName=self._table, Key={"pk": {"S": breaker_pk(name)}}, ConsistentRead=True)
        doc = item.get("Item", {}).get("doc", {}).get("S")
        return BreakerState.model_validate_json(doc) if doc else BreakerState(name=name)

    def save(self, state: BreakerState, expected_version: int) -> bool:
        try:
            self._db.put_item(
                TableName=self._table,
                Item={
                    "pk": {"S": breaker_pk(state.name)},
                    "doc": {"S": state.model_dump_json()},
                    "version": {"N": str(state.version)},
                },
                # Versions start at 1 on the first save, so version 0 means "not saved yet".
                ConditionExpression="attribute_not_exists(pk) OR version = :v",
                ExpressionAttributeValues={":v": {"N": str(expected_version)}},
            )
        except ClientError as err:
            if error_code(err) == "ConditionalCheckFailedException":
                return False
            raise translate_client_error(err, self._table) from err
        return True
