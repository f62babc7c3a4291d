"""TaskStore on DynamoDB: one item per task, key `{tenant_id}#{task_id}`, the Task as JSON in `doc`.

The index `by_user` (user_key=T#{tenant}#U#{user}, user_sk={created_at}#{task_id}, keys only) finds a
user's tasks in creation order, for delete-all."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from engram.adapters.aws.clients import aws_errors, error_code
from engram.adapters.dynamo.batch import batch_get, batch_put, batch_put_tables
from engram.adapters.dynamo.cursor import decode_cursor, encode_cursor
from engram.adapters.dynamo.fact_store import user_gsi_pk
from engram.adapters.dynamo.values import iso
from engram.domain.errors import (
    ConflictError,
    EngramError,
    NotFoundError,
    PayloadTooLargeError,
    TransientError,
    ValidationError,
)
from engram.domain.models import Task, UserActivity

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient

    from engram.adapters.dynamo.user_directory import DynamoUserDirectory
    from engram.domain.ports import BlobStore

TASK_TTL = timedelta(days=30)
# DynamoDB items stop at 400 KB; a task whose JSON nears that (a large request plus many results)
# keeps its JSON in the blob store and only a pointer in the item.
MAX_INLINE_DOC_BYTES = 350_000
USER_INDEX = "by_user"
_USER_CURSOR_KEYS = ("pk", "user_key", "user_sk")


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

    def save_many(self, tasks: Sequence[Task]) -> None:
        """Overwrites tasks just read from this store, 25 per request. Unconditional (BatchWriteItem
        takes no conditions): callers pass only tasks they hold, never ids from outside."""
        latest = {(t.tenant_id, t.task_id): t for t in tasks}  # one request may not name a key twice
        batch_put(self._db, self._table, [self.item(task) for task in latest.values()])

    def get(self, tenant_id: str, task_id: str) -> Task:
        return self.get_many(tenant_id, [task_id])[0]

    def get_many(self, tenant_id: str, task_ids: Sequence[str]) -> list[Task]:
        """In the order asked; raises NotFoundError for the first unknown (or other tenant's) id."""
        if not tenant_id or "#" in tenant_id:
            raise NotFoundError("task", task_ids[0] if task_ids else "")
        wanted = list(dict.fromkeys(task_ids))  # BatchGetItem rejects duplicate keys
        if len(wanted) == 1:
            with aws_errors(self._table):
                resp = self._db.get_item(
                    TableName=self._table, Key={"pk": {"S": task_pk(tenant_id, wanted[0])}}, ConsistentRead=True
                )
            items = [resp["Item"]] if "Item" in resp else []
        else:
            items = batch_get(self._db, self._table, [{"pk": {"S": task_pk(tenant_id, t)}} for t in wanted])
        found = {i["task_id"]["S"]: i for i in items if i.get("tenant_id", {}).get("S") == tenant_id}
        missing = [t for t in wanted if t not in found]
        if missing:
            raise NotFoundError("task", missing[0])
        return [self._task(found[t]) for t in task_ids]

    def user_tasks(
        self, tenant_id: str, user_id: str, before: Task, limit: int = 100, cursor: str | None = None
    ) -> tuple[list[Task], str | None]:
        """The user's tasks created before `before`, oldest first, a page at a time."""
        partition = user_gsi_pk(tenant_id, user_id)
        params: dict[str, Any] = {
            "TableName": self._table,
            "IndexName": USER_INDEX,
            "KeyConditionExpression": "user_key = :u AND user_sk < :before",
            "ExpressionAttributeValues": {":u": {"S": partition}, ":before": {"S": _user_sk(before)}},
            "Limit": limit,
        }
        if cursor:
            params["ExclusiveStartKey"] = decode_cursor(cursor, _USER_CURSOR_KEYS, "user_key", partition)
        with aws_errors(self._table):
            resp = self._db.query(**params)
        keys = [{"pk": item["pk"]} for item in resp.get("Items", [])]
        items = batch_get(self._db, self._table, keys) if keys else []
        tasks = [self._task(i) for i in items if i.get("tenant_id", {}).get("S") == tenant_id]
        tasks.sort(key=lambda t: (t.created_at, t.task_id))
        last = resp.get("LastEvaluatedKey")
        return tasks, encode_cursor(last, _USER_CURSOR_KEYS) if last else None

    def forget_inputs(self, tasks: Sequence[Task]) -> None:
        """Rewrites the tasks without what the user sent or what became of it (request, payload
        reference, results), no longer retained, and drops a task JSON kept in the blob store."""
        forgotten = [
            t.model_copy(update={"request": None, "payload_key": None, "results": [], "retained": False}) for t in tasks
        ]
        self.save_many(forgotten)
        if self._blobs is not None:
            for task in tasks:
                self._blobs.delete(task_doc_key(task.tenant_id, task.task_id))

    def _task(self, item: dict[str, Any]) -> Task:
        if "doc" in item:
            doc = item["doc"].get("S", "")
        else:
            if self._blobs is None:
                task_id = item["task_id"]["S"]
                raise EngramError(f"task {task_id!r} keeps its JSON in the blob store, which is not configured")
            doc = self._blobs.get(item["doc_key"]["S"]).decode("utf-8")
        return Task.model_validate_json(doc)

    def _put(self, task: Task, condition: str) -> None:
        item = self.item(task)
        with aws_errors(self._table):
            try:
                self._db.put_item(TableName=self._table, Item=item, ConditionExpression=condition)
            except ClientError as err:
                if error_code(err) == "ConditionalCheckFailedException":
                    if condition.startswith("attribute_not_exists"):
                        raise ConflictError(f"task {task.task_id!r} exists already") from err
                    raise NotFoundError("task", task.task_id) from err
                raise

    @property
    def table(self) -> str:
        return self._table

    def item(self, task: Task) -> dict[str, Any]:
        doc = task.model_dump_json()
        item: dict[str, Any] = {
            "pk": {"S": task_pk(task.tenant_id, task.task_id)},
            "tenant_id": {"S": task.tenant_id},
            "task_id": {"S": task.task_id},
            "user_id": {"S": task.user_id},
            "status": {"S": task.status.value},
            "created_at": {"S": task.created_at.isoformat()},
            "updated_at": {"S": task.updated_at.isoformat()},
            "user_key": {"S": user_gsi_pk(task.tenant_id, task.user_id)},
            "user_sk": {"S": _user_sk(task)},
        }
        if not task.retained:  # a task that is the source of memories outlives the usual expiry
            item["expires_at"] = {"N": str(int((task.created_at + TASK_TTL).timestamp()))}
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
        return item


class DynamoFinishedRuns:
    """FinishedRuns: a run's finished tasks and its user's directory entry in one BatchWriteItem (the
    two tables in one request; the same write units as two requests).

    The worker used to write the entry first, then the tasks, so a failure between them only left a
    task to run again. One batch may write the tasks and leave the entry unprocessed (throttled past
    its retries); then the entry is written alone and the tasks again, in the old order, and only if
    that fails too does the run fail with its tasks already finished: the user then goes unlisted
    until their next add (docs/scale.md)."""

    def __init__(self, client: DynamoDBClient, tasks: DynamoTaskStore, users: DynamoUserDirectory) -> None:
        self._db = client
        self._tasks = tasks
        self._users = users

    def save(self, tasks: Sequence[Task], active: UserActivity) -> None:
        if not tasks:
            return
        tenant_id = tasks[0].tenant_id
        latest = {(t.tenant_id, t.task_id): t for t in tasks}  # one request may not name a key twice
        entry = self._users.entry(tenant_id, active.user_id, active.last_active_at)
        items = [(self._users.table, entry)] + [(self._tasks.table, self._tasks.item(t)) for t in latest.values()]
        try:
            batch_put_tables(self._db, items)
        except TransientError:
            self._users.touch(tenant_id, active.user_id, active.last_active_at)
            self._tasks.save_many(tasks)


def _user_sk(task: Task) -> str:
    return f"{iso(task.created_at)}#{task.task_id}"
