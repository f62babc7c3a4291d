"""DynamoFinishedRuns against moto: a run's finished tasks and its user's directory entry are one
BatchWriteItem (two tables, one request), and an entry the batch leaves unprocessed is still written."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import boto3
import pytest
from moto import mock_aws

import engram.adapters.dynamo.batch
from engram.adapters.dynamo.task_store import DynamoFinishedRuns, DynamoTaskStore
from engram.adapters.dynamo.user_directory import DynamoUserDirectory
from engram.domain.models import AddRequest, Message, Task, TaskStatus, UserActivity
from engram.settings import Settings
from tests.integration.aws_tables import create_tables

T0 = datetime(2024, 6, 1, 9, 30, tzinfo=UTC)


@pytest.fixture
def db() -> Iterator[Any]:
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        create_tables(client)
        yield client


def stores(db: Any) -> tuple[DynamoTaskStore, DynamoUserDirectory]:
    settings = Settings()
    return DynamoTaskStore(db, settings.tasks_table), DynamoUserDirectory(db, settings.memory_table)


def finished_tasks(tasks: DynamoTaskStore, n: int) -> list[Task]:
    made = []
    for i in range(n):
        request = AddRequest(messages=[Message(role="user", content=f"fact {i}")], user_id="alice")
        task = Task(tenant_id="acme", user_id="alice", request=request, created_at=T0 + timedelta(seconds=i))
        tasks.create(task)
        made.append(task.model_copy(update={"status": TaskStatus.COMPLETED}))
    return made


def sent(db: Any) -> list[str]:
    names: list[str] = []
    db.meta.events.register("before-send.dynamodb", lambda event_name, **_: names.append(event_name.split(".")[-1]))
    return names


def test_a_runs_tasks_and_its_users_entry_are_written_in_one_request(db: Any) -> None:
    tasks, users = stores(db)
    done = finished_tasks(tasks, 3)
    requests = sent(db)
    DynamoFinishedRuns(db, tasks, users).save(done, UserActivity(user_id="alice", last_active_at=T0))
    assert requests == ["BatchWriteItem"]
    assert [t.status for t in tasks.get_many("acme", [t.task_id for t in done])] == [TaskStatus.COMPLETED] * 3
    assert users.list("acme", 10).items == [UserActivity(user_id="alice", last_active_at=T0)]


def test_an_entry_the_batch_leaves_unprocessed_is_written_alone(db: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The memory table throttles the entry past the batch's retries while the tasks are written: the
    user is listed all the same (the run does not end with finished tasks and no listing)."""
    tasks, users = stores(db)
    done = finished_tasks(tasks, 2)
    monkeypatch.setattr(engram.adapters.dynamo.batch, "_back_off", lambda attempt: None)
    real = db.batch_write_item

    def throttling_the_users_entry(RequestItems: dict[str, Any]) -> dict[str, Any]:  # boto3 names it so
        kept = {t: reqs for t, reqs in RequestItems.items() if t != users.table}
        if kept:
            real(RequestItems=kept)
        left = {t: reqs for t, reqs in RequestItems.items() if t == users.table}
        return {"UnprocessedItems": left}

    monkeypatch.setattr(db, "batch_write_item", throttling_the_users_entry)
    DynamoFinishedRuns(db, tasks, users).save(done, UserActivity(user_id="alice", last_active_at=T0))
    assert users.list("acme", 10).items == [UserActivity(user_id="alice", last_active_at=T0)]
    assert [t.status for t in tasks.get_many("acme", [t.task_id for t in done])] == [TaskStatus.COMPLETED] * 2
