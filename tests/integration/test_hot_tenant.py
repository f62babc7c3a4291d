"""One busy tenant at 5,000 adds a second: no tenant counter item, nor the tenant's user directory
partition, may take more than a partition's ~1,000 writes a second (DynamoDB throttles a key past that).

The write pattern is recorded, not assumed: live adds run through the real handlers on moto
(request_accounting) with every DynamoDB write's partition key recorded. A partition-capacity model
then replays that pattern at 5,000 adds a second: each add's counter writes go through the real
counter adapters (their shard choice) to a recording client, and the writes per key in that second are
counted. With one shard (the old layout) the queue gauge takes 3 writes per add: 15,000 a second."""

from __future__ import annotations

import json
import re
from collections import Counter
from types import SimpleNamespace
from typing import Any

import pytest

from engram.bootstrap import Container
from engram.domain.models import Event, Task, TaskResult
from engram.operations.accounting import Accounting
from engram.settings import Settings
from tests.integration.request_accounting import accounting_stack

ADDS_PER_S = 5_000
PARTITION_WRITES_PER_S = 1_000
COUNTERS = re.compile(r"^!(usage|queue)#|^T#[^#]+#M#USERS")  # the tenant counters and user directory


def family(pk: str) -> str:
    """The counter a key belongs to, whatever its shard, bucket or day."""
    pk = re.sub(r"#s\d+$", "", pk)
    return re.sub(r"#[\d-]+$", "#<window>", pk)


def written_pks(body: dict[str, Any], operation: str) -> list[str]:
    if operation in ("UpdateItem", "DeleteItem"):
        return [body["Key"]["pk"]["S"]] if "pk" in body["Key"] else []
    if operation == "PutItem":
        return [body["Item"]["pk"]["S"]] if "pk" in body["Item"] else []
    if operation == "TransactWriteItems":
        found = [next(iter(t.values())) for t in body["TransactItems"]]
        return [(f.get("Key") or f["Item"])["pk"]["S"] for f in found]
    if operation == "BatchWriteItem":
        found = [next(iter(r.values())) for reqs in body["RequestItems"].values() for r in reqs]
        return [(f.get("Key") or f["Item"])["pk"]["S"] for f in found]
    return []


def recorded_live_adds(monkeypatch: pytest.MonkeyPatch, adds: int) -> list[list[str]]:
    """The partition keys each live add writes, through the real API and extraction handlers."""
    with accounting_stack(monkeypatch) as bench:
        bench.add("warm", "I live in Paris and I love jazz.", infer=True)
        bench.drain()
        per_add: list[list[str]] = []

        def sent(request: Any, event_name: str, **_: Any) -> None:
            operation = event_name.split(".")[-1]
            per_add[-1].extend(written_pks(json.loads(request.body or b"{}"), operation))

        bench.container.aws.dynamodb.meta.events.register("before-send.dynamodb", sent)
        for n in range(adds):
            per_add.append([])
            bench.add(f"user-{n}", "I live in Berlin and I work as a nurse.", infer=True)
            bench.drain()
        return per_add


class RecordingClient:
    """Stands in for the DynamoDB client in the replay: keeps the key of each write, stores nothing."""

    def __init__(self) -> None:
        self.writes: Counter[str] = Counter()

    def update_item(self, **request: Any) -> dict[str, Any]:
        self.writes[request["Key"]["pk"]["S"]] += 1
        return {}

    def put_item(self, **request: Any) -> dict[str, Any]:
        self.writes[request["Item"]["pk"]["S"]] += 1
        return {}


def replayed_second(shards: int) -> Counter[str]:
    """One second of one tenant at ADDS_PER_S live adds of different users, each moving its task's
    counters as a live add does (enqueued, started, finished, counted), through the counters the
    container wires with ENGRAM_COUNTER_SHARDS=shards: writes per partition key."""
    client = RecordingClient()
    # The container's own wiring of the counters, on the recording client.
    wiring = Container(Settings(counter_shards=shards), aws=SimpleNamespace(dynamodb=client))
    queue = wiring.queue_metrics
    accounting = Accounting(usage=wiring.usage_counters)
    for n in range(ADDS_PER_S):
        task = Task(tenant_id="acme", user_id=f"user-{n}")
        task.results = [TaskResult(id=f"m{n}", memory="x", event=Event.ADD)]
        queue.moved([task], None, "pending")
        queue.moved([task], "pending", "processing")
        queue.moved([task], "processing", "completed")
        accounting.completed(task)
        wiring.users.touch("acme", task.user_id, task.created_at)  # in the batch of the finished task
    return client.writes


def test_a_hot_tenant_stays_under_the_partition_limit_with_shards(monkeypatch: pytest.MonkeyPatch) -> None:
    recorded = recorded_live_adds(monkeypatch, adds=3)
    unsharded = replayed_second(1)
    sharded = replayed_second(Settings().counter_shards)

    replayed: Counter[str] = Counter()
    for pk, writes in sharded.items():
        replayed[family(pk)] += writes
    for pks in recorded:  # the replay writes the tenant counters exactly as a live add does
        per_add = Counter(family(pk) for pk in pks if COUNTERS.match(pk))
        assert {k: v * ADDS_PER_S for k, v in per_add.items()} == dict(replayed)
    assert max(unsharded.values()) == 3 * ADDS_PER_S > PARTITION_WRITES_PER_S  # the gauge: throttled
    assert max(n for pk, n in unsharded.items() if "#M#USERS" in pk) == ADDS_PER_S  # the directory: throttled
    assert max(sharded.values()) < PARTITION_WRITES_PER_S
    assert sum(sharded.values()) == sum(unsharded.values())  # as many writes, spread
