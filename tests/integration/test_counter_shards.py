"""Write-sharded tenant counters (ENGRAM_COUNTER_SHARDS): the same increments give the same usage and
queue figures with 1 shard and with 8, writes spread over the shards, and a read is one BatchGetItem."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from engram.adapters.dynamo.queue_metrics import DynamoQueueMetrics
from engram.adapters.dynamo.usage import DynamoUsageCounters, usage_key
from engram.domain.models import Task
from engram.domain.operations import QueueFigures, UsageDay
from engram.settings import Settings

TABLE = Settings().tasks_table
DAYS = ["2026-03-01", "2026-03-02"]
NOW = 1_800_000_000.0


def written_keys(db: Any, prefix: str) -> set[str]:
    items = db.scan(TableName=TABLE)["Items"]
    return {i["pk"]["S"] for i in items if i["pk"]["S"].startswith(prefix)}


def count_calls(db: Any) -> list[str]:
    calls: list[str] = []
    db.meta.events.register("before-call.dynamodb", lambda model, **_: calls.append(model.name))
    return calls


def usage_after_increments(db: Any, tenant: str, shards: int) -> list[UsageDay]:
    counters = DynamoUsageCounters(db, TABLE, shards=shards)
    for n in range(20):
        counters.add(tenant, DAYS[n % 2], {"adds": 1, "llm_calls": 2, "prompt_tokens": 100 + n, "searches": n % 3})
    counters.add(tenant, DAYS[0], {"failed_adds": 1, "memories_stored": -1})
    return counters.days(tenant, DAYS)


def test_usage_is_the_same_with_one_shard_and_eight(db: Any) -> None:
    unsharded = usage_after_increments(db, "one", 1)
    sharded = usage_after_increments(db, "eight", 8)

    assert sharded == unsharded
    assert [d.adds for d in sharded] == [10, 10] and sharded[0].failed_adds == 1
    assert sum(d.prompt_tokens for d in sharded) == sum(100 + n for n in range(20))
    assert written_keys(db, "!usage#one#") == {usage_key("one", d) for d in DAYS}
    assert len(written_keys(db, "!usage#eight#")) >= 8  # spread over shards, not one item a day
    calls = count_calls(db)
    DynamoUsageCounters(db, TABLE, shards=8).days("eight", DAYS)
    assert calls == ["BatchGetItem"]  # every shard of both days in one request


def test_usage_written_before_sharding_is_still_counted(db: Any) -> None:
    DynamoUsageCounters(db, TABLE, shards=1).add("acme", DAYS[0], {"adds": 3})
    sharded = DynamoUsageCounters(db, TABLE, shards=8)
    sharded.add("acme", DAYS[0], {"adds": 2})

    assert sharded.days("acme", DAYS[:1])[0].adds == 5


def queue_after_moves(db: Any, tenant: str, shards: int) -> QueueFigures:
    metrics = DynamoQueueMetrics(db, TABLE, clock=lambda: NOW, shards=shards)
    tasks = [Task(tenant_id=tenant, user_id=f"u{n % 3}", task_id=f"task-{n:02d}") for n in range(12)]
    for n, task in enumerate(tasks):
        task.created_at = task.created_at.fromtimestamp(NOW - 100 + n, task.created_at.tzinfo)
        task.started_at = task.created_at
        task.finished_at = task.created_at + timedelta(seconds=1 + n % 4)
    metrics.moved(tasks[:6], None, "pending")  # a batch, as enqueued together
    for task in tasks[6:]:
        metrics.moved([task], None, "pending")
    metrics.moved(tasks[:8], "pending", "processing")
    metrics.moved(tasks[:5], "processing", "completed")
    metrics.moved(tasks[5:7], "processing", "failed")
    return metrics.figures(tenant, 3600)


def test_queue_figures_are_the_same_with_one_shard_and_eight(db: Any) -> None:
    unsharded = queue_after_moves(db, "one", 1)
    sharded = queue_after_moves(db, "eight", 8)

    assert sharded == unsharded
    assert (sharded.pending, sharded.processing, sharded.completed, sharded.failed) == (4, 1, 5, 2)
    assert sharded.avg_duration_sec == (1 + 2 + 3 + 4 + 1) / 5
    assert sharded.oldest_pending_age_sec == 100 - 8  # task-08, the oldest still pending
    assert written_keys(db, "!queue#one") == {"!queue#one", f"!queue#one#{int(NOW) // 600 * 600}"}
    assert len(written_keys(db, "!queue#eight")) > 2  # spread over shards
    calls = count_calls(db)
    DynamoQueueMetrics(db, TABLE, clock=lambda: NOW, shards=8).figures("eight", 3600)
    assert calls == ["BatchGetItem"]  # gauge and bucket shards of the hour in one request


def test_one_users_batch_moves_its_gauge_shard_in_one_write(db: Any) -> None:
    metrics = DynamoQueueMetrics(db, TABLE, clock=lambda: NOW, shards=8)
    batch = [Task(tenant_id="acme", user_id="alice") for _ in range(10)]
    metrics.moved(batch, None, "pending")
    calls = count_calls(db)

    metrics.moved(batch, "pending", "processing")

    assert calls == ["UpdateItem"]  # backlog batches keep their bookkeeping at one write per move
    assert metrics.figures("acme", 3600).processing == 10
