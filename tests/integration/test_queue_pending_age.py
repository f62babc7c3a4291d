"""The oldest pending age counts tasks that are pending: stamps a task left behind on a shard whose
pending gauge is 0 (an add counted queued after a worker had taken it, before that was fixed) say
nothing, and are taken off when read, so a task pending later is not aged from them."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from engram.adapters.dynamo.queue_metrics import DynamoQueueMetrics
from engram.domain.models import Task
from engram.settings import Settings

TABLE = Settings().tasks_table
NOW = 1_800_000_000.0


def task(user: str, seconds_ago: float) -> Task:
    return Task(tenant_id="acme", user_id=user, created_at=datetime.fromtimestamp(NOW - seconds_ago, UTC))


def left_over(metrics: DynamoQueueMetrics, stale: Task) -> None:
    """The order that left a stamp behind: taken and run before it was counted queued."""
    metrics.moved([stale], "pending", "processing")
    metrics.moved([stale], "processing", "completed")
    metrics.moved([stale], None, "pending")


def test_nothing_pending_is_no_age_even_with_a_stamp_left_behind(db: Any) -> None:
    metrics = DynamoQueueMetrics(db, TABLE, clock=lambda: NOW, shards=4)
    left_over(metrics, task("alice", 678))

    figures = metrics.figures("acme", 3600)

    assert (figures.pending, figures.completed, figures.oldest_pending_age_sec) == (0, 1, 0)


def test_a_task_pending_later_is_aged_from_its_own_stamp(db: Any) -> None:
    metrics = DynamoQueueMetrics(db, TABLE, clock=lambda: NOW, shards=1)
    left_over(metrics, task("alice", 678))
    metrics.figures("acme", 3600)  # reads the shard with nothing pending

    metrics.moved([task("alice", 5)], None, "pending")
    figures = metrics.figures("acme", 3600)

    assert (figures.pending, figures.oldest_pending_age_sec) == (1, 5)
