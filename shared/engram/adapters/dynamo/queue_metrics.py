"""QueueMetrics on DynamoDB, in the tasks table, by UpdateItem (ADD, and DELETE of a stamp).

`!queue#{tenant}` holds the gauges (pending, processing) and `pending_at`, a number set with one
stamp per pending task (its creation time in ms, plus a per-task fraction so two tasks of the same
millisecond stay distinct) whose minimum gives the oldest pending age; a shard with nothing pending
has no age, and stamps still on it are taken off when read. `!queue#{tenant}#{start}`
holds one 10-minute bucket of totals (completed, failed, duration_ms); a window reads its buckets.

Both are write-sharded over `shards` items (`shards.py`), summed when read, so a busy tenant's
workers do not all write one key. A task's gauge shard follows from its user (crc32): the stamp it
adds when pending must be deleted from the same item when it leaves, and a batch (one user's tasks)
stays one write. One user's tasks are one FIFO message group (≤ 300 a second), so ≤ 900 gauge writes
a second on their shard; totals go to the next of their `total_shards` in turn."""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from engram.adapters.aws.clients import aws_errors
from engram.adapters.dynamo.batch import batch_get
from engram.adapters.dynamo.shards import ShardTurn, shard_key, shard_keys
from engram.domain.errors import ConflictError
from engram.domain.models import Task
from engram.domain.operations import QueueFigures

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient

BUCKET_S = 600
_GAUGES = ("pending", "processing")


def _stamp(task: Task) -> str:
    return f"{int(task.created_at.timestamp() * 1000)}.{zlib.crc32(task.task_id.encode()):010d}"


class DynamoQueueMetrics:
    def __init__(
        self,
        client: DynamoDBClient,
        table_name: str,
        clock: Callable[[], float] = time.time,
        shards: int = 1,
        total_shards: int | None = None,
    ) -> None:
        self._db = client
        self._table = table_name
        self._clock = clock
        self._shards = max(1, shards)  # the gauge's
        self._turn = ShardTurn(shards if total_shards is None else total_shards)  # the totals'

    def moved(self, tasks: Sequence[Task], source: str | None, target: str) -> None:
        by_shard: dict[tuple[str, int], list[Task]] = {}
        for task in tasks:
            shard = zlib.crc32(task.user_id.encode()) % self._shards
            by_shard.setdefault((task.tenant_id, shard), []).append(task)
        for (tenant_id, shard), group in by_shard.items():
            self._moved(tenant_id, shard, group, source, target)

    def _moved(self, tenant_id: str, shard: int, tasks: list[Task], source: str | None, target: str) -> None:
        n = len(tasks)
        adds: dict[str, int] = {}
        if source in _GAUGES:
            adds[str(source)] = -n
        if target in _GAUGES:
            adds[target] = adds.get(target, 0) + n
        adds = {k: v for k, v in adds.items() if v}
        stamps = {"NS": [_stamp(task) for task in tasks]}
        parts = [f"#{k} :{k}" for k in adds]
        values: dict[str, Any] = {f":{k}": {"N": str(v)} for k, v in adds.items()}
        names = {f"#{k}": k for k in adds}
        update = ""
        if target == "pending":
            parts.append("pending_at :stamp")
            values[":stamp"] = stamps
        if parts:
            update = "ADD " + ", ".join(parts)
        if source == "pending" and target != "pending":
            update += " DELETE pending_at :stamp"
            values[":stamp"] = stamps
        if update:
            self._update(shard_key(f"!queue#{tenant_id}", shard), update.strip(), names, values)
        if target in ("completed", "failed"):
            total_ms = 0
            for task in tasks:
                started = task.started_at or task.created_at
                finished = task.finished_at or task.updated_at
                total_ms += max(0, int((finished - started).total_seconds() * 1000))
            bucket = int(self._clock()) // BUCKET_S * BUCKET_S
            self._update(
                shard_key(f"!queue#{tenant_id}#{bucket}", self._turn.next()),
                "ADD #n :one, duration_ms :d",
                {"#n": target},
                {":one": {"N": str(n)}, ":d": {"N": str(total_ms if target == "completed" else 0)}},
            )

    def figures(self, tenant_id: str, window_s: int) -> QueueFigures:
        now = self._clock()
        first = int(now - window_s) // BUCKET_S * BUCKET_S + BUCKET_S
        n = self._turn.shards
        gauge_keys = shard_keys(f"!queue#{tenant_id}", self._shards)
        keys = gauge_keys + [
            key for b in range(first, int(now) + 1, BUCKET_S) for key in shard_keys(f"!queue#{tenant_id}#{b}", n)
        ]
        with aws_errors(self._table):
            items = {i["pk"]["S"]: i for i in batch_get(self._db, self._table, [{"pk": {"S": k}} for k in keys])}
        gauges = [items.pop(k, {}) for k in gauge_keys]

        def total(found: Sequence[dict[str, Any]], name: str) -> int:
            return sum(int(i.get(name, {}).get("N", "0")) for i in found)

        totals = {name: total(list(items.values()), name) for name in ("completed", "failed", "duration_ms")}
        stamps: list[float] = []
        for key, gauge in zip(gauge_keys, gauges, strict=True):
            found = gauge.get("pending_at", {}).get("NS", [])
            if total([gauge], "pending") > 0:
                stamps += [float(s) for s in found]
            elif found:  # nothing pending on this shard: what it still holds are leftovers
                self._forget_leftovers(key, found)
        return QueueFigures(
            pending=max(0, total(gauges, "pending")),
            processing=max(0, total(gauges, "processing")),
            completed=totals["completed"],
            failed=totals["failed"],
            avg_duration_sec=round(totals["duration_ms"] / totals["completed"] / 1000, 3)
            if totals["completed"]
            else 0.0,
            oldest_pending_age_sec=round(max(0.0, now - min(stamps) / 1000), 3) if stamps else 0.0,
        )

    def _forget_leftovers(self, pk: str, stamps: list[str]) -> None:
        """Take stamps off a shard while its pending gauge is still 0, so a task pending later is aged
        from its own stamp. Left by an add counted queued after a worker had already taken it (fixed:
        MemoryService counts before it sends); a task queued meanwhile keeps them until the next read."""
        try:
            with aws_errors(self._table):
                self._db.update_item(
                    TableName=self._table,
                    Key={"pk": {"S": pk}},
                    UpdateExpression="DELETE pending_at :stamps",
                    ConditionExpression="attribute_not_exists(#p) OR #p <= :zero",
                    ExpressionAttributeNames={"#p": "pending"},
                    ExpressionAttributeValues={":stamps": {"NS": stamps}, ":zero": {"N": "0"}},
                )
        except ConflictError:
            return  # something became pending since the read: the next read cleans up

    def _update(self, pk: str, expression: str, names: dict[str, str], values: dict[str, Any]) -> None:
        params: dict[str, Any] = {"ExpressionAttributeNames": names} if names else {}
        with aws_errors(self._table):
            self._db.update_item(
                TableName=self._table,
                Key={"pk": {"S": pk}},
                UpdateExpression=expression,
                ExpressionAttributeValues=values,
                **params,
            )
