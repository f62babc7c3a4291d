"""TaskStore on DynamoDB: one item per task, key `{tenant_id}#{task_id}`, the Task as JSON in `doc`."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from engram.adapters.aws_clients import aws_errors, error_code
from engram.domain.errors import (
    ConflictError,
    EngramError,
    NotFoundError,
    PayloadTooLargeError,
    ValidationError,
)
from engram.domain.models import Task

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient

    from engram.domain.ports import BlobStore

TASK_TTL = timedelta(days=30)
# DynamoDB items stop at 400 KB; a task whose JSON nears that (a large request plus many results)
# keeps its JSON in the blob store and only a pointer in the item.
MAX_INLINE_DOC_BYTES = 350_000


def task_pk(tenant_id: str, task_id: str) -> str:
    if not tenant_id or "#" in tenant_id:  # '#' would make `{tenant}#{task}` ambiguous
        raise ValidationError("tenant_id", "must be non-empty and must not contain '#'")
    return f"{tenant_id}#{task_id}"


def task_doc_key(tenant_id: str, task_id: str) -> str:
    return f"tasks/{tenant_id}/{task_id}.json"


class DynamoTaskStore:
    def __init__(self, client: DynamoDBClient, table_name: str, blobs: BlobStore | None = None) -> None:
        self._db = client
        self._table = table_name
        self._blobs = blobs

    def create(self, task: Task) -> None:
        """Raises ConflictError when a task with this id exists for the tenant already."""
        self._put(task, "attribute_not_exists(pk)")

    def save(self, task: Task) -> None:
        """Overwrites an existing task; raises NotFoundError if it was never created (or expired)."""
        self._put(task, "attribute_exists(pk)")

    def get(self, tenant_id: str, task_id: str) -> Task:
        if not tenant_id or "#" in tenant_id:
            raise NotFoundError("task", task_id)
        with aws_errors(self._table):
            resp = self._db.get_item(
                TableName=self._table, Key={"pk": {"S": task_pk(tenant_id, task_id)}}, ConsistentRead=True
            )
        item = resp.get("Item")
        if item is None or item.get("tenant_id", {}).get("S") != tenant_id:
            raise NotFoundError("task", task_id)
        if "doc" in item:
            doc = item["doc"].get("S", "")
        else:
            if self._blobs is None:
                raise EngramError(f"task {task_id!r} keeps its JSON in the blob store, which is not configured")
            doc = self._blobs.get(item["doc_key"]["S"]).decode("utf-8")
        return Task.model_validate_json(doc)

    def _put(self, task: Task, condition: str) -> None:
        doc = task.model_dump_json()
        item: dict[str, Any] = {
            "pk": {"S": task_pk(task.tenant_id, task.task_id)},
            "tenant_id": {"S": task.tenant_id},
            "task_id": {"S": task.task_id},
            "user_id": {"S": task.user_id},
            "status": {"S": task.status.value},
            "created_at": {"S": task.created_at.isoformat()},
            "updated_at": {"S": task.updated_at.isoformat()},
            "expires_at": {"N": str(int((task.created_at + TASK_TTL).timestamp()))},
        }
        encoded = doc.encode("utf-8")
        if len(encoded) <= MAX_INLINE_DOC_BYTES:
            item["doc"] = {"S": doc}
        else:
            if self._blobs is None:
                raise PayloadTooLargeError(
                    "task", f"task JSON is over {MAX_INLINE_DOC_BYTES} bytes and no blob store is configured"
                )
            key = task_doc_key(task.tenant_id, task.task_id)
            self._blobs.put(key, encoded, "application/json")
            item["doc_key"] = {"S": key}
        with aws_errors(self._table):
            try:
                self._db.put_item(TableName=self._table, Item=item, ConditionExpression=condition)
            except ClientError as err:
                if error_code(err) == "ConditionalCheckFailedException":
                    if condition.startswith("attribute_not_exists"):
                        raise ConflictError(f"task {task.task_id!r} exists already") from err
                    raise NotFoundError("task", task.task_id) from err
                raise
