"""ApiKeyStore on DynamoDB. Only the SHA-256 of a key is stored; the plaintext is shown once.

Table key `key_hash`; GSI `by_tenant` (tenant_id, created_at) lists a tenant's keys and GSI
`by_key_id` (key_id) finds a key to revoke without knowing its plaintext.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from datetime import datetime
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from engram.adapters.aws.clients import aws_errors, error_code
from engram.domain.api_keys import ApiKey
from engram.domain.errors import ConflictError, NotFoundError, UnauthorizedError, ValidationError
from engram.domain.models import utcnow

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient

KEY_PREFIX = "egm_"
TENANT_INDEX = "by_tenant"
KEY_ID_INDEX = "by_key_id"
# Tenant ids become parts of storage keys elsewhere (`T#{tenant}#...`), so they stay plain.
_TENANT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_KEY_ID = re.compile(r"^[0-9a-f]{16}$")


def hash_key(plaintext: str) -> str:
    return hashlib.sha256(plaintext.encode("utf-8")).hexdigest()


class DynamoApiKeyStore:
    def __init__(self, client: DynamoDBClient, table_name: str) -> None:
        self._db = client
        self._table = table_name

    def create(self, tenant_id: str, description: str | None = None) -> tuple[ApiKey, str]:
        if not _TENANT_ID.match(tenant_id):
            raise ValidationError("tenant_id", "use 1-64 letters, digits, '.', '_' or '-'")
        # key_id is hex so that it never contains the '_' separating it from the secret.
        record = ApiKey(key_id=secrets.token_hex(8), tenant_id=tenant_id, description=description)
        plaintext = f"{KEY_PREFIX}{record.key_id}_{secrets.token_urlsafe(32)}"
        item: dict[str, Any] = {
            "key_hash": {"S": hash_key(plaintext)},
            "key_id": {"S": record.key_id},
            "tenant_id": {"S": tenant_id},
            "created_at": {"S": record.created_at.isoformat()},
            "revoked": {"BOOL": False},
        }
        if description is not None:
            item["description"] = {"S": description}
        with aws_errors(self._table):
            try:
                self._db.put_item(
                    TableName=self._table, Item=item, ConditionExpression="attribute_not_exists(key_hash)"
                )
            except ClientError as err:
                if error_code(err) == "ConditionalCheckFailedException":  # a 256-bit collision: never
                    raise ConflictError("generated API key exists already; try again") from err
                raise
        return record, plaintext

    def resolve(self, plaintext: str) -> ApiKey:
        if not plaintext.startswith(KEY_PREFIX):
            raise UnauthorizedError("malformed API key")
        presented = hash_key(plaintext)
        with aws_errors(self._table):
            resp = self._db.get_item(TableName=self._table, Key={"key_hash": {"S": presented}}, ConsistentRead=True)
        item = resp.get("Item")
        # The lookup already matched the hash; compare again in constant time as a belt and braces.
        if item is None or not hmac.compare_digest(item["key_hash"]["S"], presented):
            raise UnauthorizedError("unknown API key")
        record = _record(item)
        if record.revoked:
            raise UnauthorizedError("revoked API key")
        return record

    def list(self, tenant_id: str | None = None) -> list[ApiKey]:
        params: dict[str, Any] = {"TableName": self._table}
        if tenant_id is not None:
            params.update(
                IndexName=TENANT_INDEX,
                KeyConditionExpression="tenant_id = :t",
                ExpressionAttributeValues={":t": {"S": tenant_id}},
            )
        items: list[dict[str, Any]] = []
        while True:
            with aws_errors(self._table):
                resp = self._db.query(**params) if tenant_id is not None else self._db.scan(**params)
            items.extend(resp.get("Items", []))
            last = resp.get("LastEvaluatedKey")
            if not last:
                break
            params["ExclusiveStartKey"] = last
        return sorted((_record(i) for i in items), key=lambda k: (k.tenant_id, k.created_at, k.key_id))

    def revoke(self, key_id: str) -> None:
        """Marks the key revoked (kept for audit). Raises NotFoundError for an unknown key_id."""
        if not _KEY_ID.match(key_id):
            raise NotFoundError("api key", key_id)
        with aws_errors(self._table):
            resp = self._db.query(
                TableName=self._table,
                IndexName=KEY_ID_INDEX,
                KeyConditionExpression="key_id = :k",
                ExpressionAttributeValues={":k": {"S": key_id}},
            )
        items = resp.get("Items", [])
        if not items:
            raise NotFoundError("api key", key_id)
        with aws_errors(self._table):
            for item in items:
                try:
                    self._db.update_item(
                        TableName=self._table,
                        Key={"key_hash": item["key_hash"]},
                        UpdateExpression="SET #revoked = :yes, #revoked_at = :now",
                        ConditionExpression="attribute_exists(key_hash)",
                        ExpressionAttributeNames={"#revoked": "revoked", "#revoked_at": "revoked_at"},
                        ExpressionAttributeValues={":yes": {"BOOL": True}, ":now": {"S": utcnow().isoformat()}},
                    )
                except ClientError as err:
                    if error_code(err) == "ConditionalCheckFailedException":
                        raise NotFoundError("api key", key_id) from err
                    raise


def _record(item: dict[str, Any]) -> ApiKey:
    description = item.get("description", {}).get("S")
    return ApiKey(
        key_id=item["key_id"]["S"],
        tenant_id=item["tenant_id"]["S"],
        created_at=datetime.fromisoformat(item["created_at"]["S"]),
        revoked=bool(item.get("revoked", {}).get("BOOL", False)),
        description=description,
    )
