"""Queue counters of tasks that move together: right figures, one write per counter item."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from engram.adapters.dynamo.queue_metrics import DynamoQueueMetrics
from engram.domain.models import Task
from engram.settings import Settings


def test_a_batch_moves_the_counters_in_one_write_per_item(db: Any) -> None:
    metrics = DynamoQueueMetrics(db, Settings().tasks_table)
    tasks = [Task(tenant_id="acme", user_id="alice") for _ in range(3)]
    other = Task(tenant_id="other", user_id="bob")
    metrics.moved([*tasks, other], None, "pending")
    calls: list[str] = []
    db.meta.events.register("before-call.dynamodb", lambda model, **_: calls.append(model.name))

    metrics.moved(tasks[:2], "pending", "processing")
    for task in tasks[:2]:
        task.started_at = task.created_at
        task.finished_at = task.created_at + timedelta(seconds=2)
    metrics.moved(tasks[:2], "processing", "completed")

    assert calls == ["UpdateItem"] * 3  # gauges, then gauges and the completion bucket
    figures = metrics.figures("acme", 3600)
    assert (figures.pending, figures.processing, figures.completed) == (1, 0, 2)
    assert figures.avg_duration_sec == 2.0
    gauge = db.get_item(TableName=Settings().tasks_table, Key={"pk": {"S": "!queue#acme"}})["Item"]
    assert len(gauge["pending_at"]["NS"]) == 1  # the started tasks' stamps left the pending set
    assert metrics.figures("other", 3600).pending == 1  # each tenant its own counters
