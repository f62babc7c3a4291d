"""Attachment records in the memory table: pk=T#{tenant}#A#{id}, sk=ATT, holders as a string set."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from boto3.dynamodb.types import TypeDeserializer, TypeSerializer

from engram.adapters.aws.clients import aws_errors
from engram.adapters.dynamo.values import from_dynamo, to_dynamo
from engram.domain.errors import NotFoundError, ValidationError
from engram.domain.models import Attachment

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient

_SER = TypeSerializer()
_DE = TypeDeserializer()
_SK = "ATT"
_META = {"pk", "sk", "holders", "item_type"}


def attachment_pk(tenant_id: str, attachment_id: str) -> str:
    if not tenant_id or "#" in tenant_id or "#" in attachment_id:
        raise ValidationError("attachment_id", "must not contain '#'")
    return f"T#{tenant_id}#A#{attachment_id}"


class DynamoAttachmentStore:
    def __init__(self, client: DynamoDBClient, table_name: str) -> None:
        self._db = client
        self._table = table_name

    def _key(self, tenant_id: str, attachment_id: str) -> dict[str, Any]:
        return {"pk": {"S": attachment_pk(tenant_id, attachment_id)}, "sk": {"S": _SK}}

    def _item(self, attachment: Attachment) -> dict[str, Any]:
        dumped = attachment.model_dump(mode="json")
        item = {k: _SER.serialize(to_dynamo(v, k)) for k, v in dumped.items() if v is not None}
        item.update(self._key(attachment.tenant_id, attachment.id), item_type={"S": "attachment"})
        return item

    @staticmethod
    def _model(item: dict[str, Any]) -> Attachment:
        return Attachment.model_validate(
            {k: from_dynamo(_DE.deserialize(v)) for k, v in item.items() if k not in _META}
        )

    def create(self, attachment: Attachment) -> None:
        with aws_errors(self._table):
            self._db.put_item(
                TableName=self._table, Item=self._item(attachment), ConditionExpression="attribute_not_exists(pk)"
            )

    def save(self, attachment: Attachment) -> None:
        """Overwrite the record's fields; the holder set is left as it is."""
        item = self._item(attachment)
        fields = {k: v for k, v in item.items() if k not in ("pk", "sk")}
        names = {f"#f{i}": k for i, k in enumerate(fields)}
        values = {f":v{i}": v for i, v in enumerate(fields.values())}
        with aws_errors(self._table):
            self._db.update_item(
                TableName=self._table,
                Key=self._key(attachment.tenant_id, attachment.id),
                UpdateExpression="SET " + ", ".join(f"#f{i} = :v{i}" for i in range(len(fields))),
                ExpressionAttributeNames=names,
                ExpressionAttributeValues=values,
                ConditionExpression="attribute_exists(pk)",
            )

    def get(self, tenant_id: str, attachment_id: str) -> Attachment:
        with aws_errors(self._table):
            resp = self._db.get_item(
                TableName=self._table, Key=self._key(tenant_id, attachment_id), ConsistentRead=True
            )
        if "Item" not in resp:
            raise NotFoundError("attachment", attachment_id)
        return self._model(resp["Item"])

    def get_many(self, tenant_id: str, attachment_ids: Sequence[str]) -> dict[str, Attachment]:
        found: dict[str, Attachment] = {}
        for attachment_id in dict.fromkeys(attachment_ids):
            try:
                found[attachment_id] = self.get(tenant_id, attachment_id)
            except NotFoundError:
                continue
        return found

    def link(self, tenant_id: str, attachment_id: str, memory_id: str) -> None:
        with aws_errors(self._table):
            self._db.update_item(
                TableName=self._table,
                Key=self._key(tenant_id, attachment_id),
                UpdateExpression="ADD holders :m SET deleted = :f",
                ExpressionAttributeValues={":m": {"SS": [memory_id]}, ":f": {"BOOL": False}},
                ConditionExpression="attribute_exists(pk)",
            )

    def unlink(self, tenant_id: str, attachment_id: str, memory_id: str) -> int:
        with aws_errors(self._table):
            resp = self._db.update_item(
                TableName=self._table,
                Key=self._key(tenant_id, attachment_id),
                UpdateExpression="DELETE holders :m",
                ExpressionAttributeValues={":m": {"SS": [memory_id]}},
                ConditionExpression="attribute_exists(pk)",
                ReturnValues="ALL_NEW",
            )
        return len(resp.get("Attributes", {}).get("holders", {}).get("SS", []))

    def holders(self, tenant_id: str, attachment_id: str) -> list[str]:
        with aws_errors(self._table):
            resp = self._db.get_item(
                TableName=self._table, Key=self._key(tenant_id, attachment_id), ProjectionExpression="holders"
            )
        if "Item" not in resp:
            raise NotFoundError("attachment", attachment_id)
        return sorted(resp["Item"].get("holders", {}).get("SS", []))
