"""DynamoTaskStore against moto: round trip, TTL, create/save rules, tenant isolation, large tasks."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import boto3
import pytest
from moto import mock_aws

from engram.adapters.aws.s3_blob_store import S3BlobStore
from engram.adapters.dynamo.task_store import DynamoTaskStore
from engram.domain.errors import ConflictError, NotFoundError, PayloadTooLargeError
from engram.domain.models import (
    AddRequest,
    Event,
    ExtractionPrompt,
    Message,
    ReconcileStrategy,
    Task,
    TaskResult,
    TaskStatus,
    Usage,
)
from tests.integration.aws_tables import create_bucket, create_tables

TABLE = "engram-tasks"
T0 = datetime(2024, 6, 1, 9, 30, 15, 500000, tzinfo=UTC)


@pytest.fixture
def clients() -> Iterator[tuple[Any, Any]]:
    with mock_aws():
        db = boto3.client("dynamodb", region_name="us-east-1")
        s3 = boto3.client("s3", region_name="us-east-1")
        create_tables(db)
        create_bucket(s3)
        yield db, s3


@pytest.fixture
def store(clients: tuple[Any, Any]) -> DynamoTaskStore:
    db, s3 = clients
    return DynamoTaskStore(db, TABLE, S3BlobStore(s3, "engram-blobs"))


def task(tenant: str = "acme", content: str = "I moved to Lisbon", **kw: Any) -> Task:
    request = AddRequest(
        # Long contents are split over messages of at most MAX_MESSAGE_CHARS, as a client must send them.
        messages=[Message(role="user", content=content[i : i + 100_000]) for i in range(0, len(content), 100_000)]
        + [Message(role="assistant", content="Noted", name="bot")],
        user_id="u1",
        agent_id="agent-1",
        run_id="run-9",
        metadata={"source": "app", "score": 0.5},
        infer=False,
        deduplicate=False,
        prompt=ExtractionPrompt.AGENT,
        strategy=ReconcileStrategy.RELEVANCE,
    )
    return Task(tenant_id=tenant, user_id="u1", request=request, created_at=T0, updated_at=T0, **kw)


def test_every_task_field_round_trips(store: DynamoTaskStore) -> None:
    original = task(
        status=TaskStatus.COMPLETED,
        payload_key="payloads/x.json",
        error="first attempt timed out",
        attempts=2,
        counts={"added": 1, "updated": 0},
        usage=Usage(llm_calls=2, prompt_tokens=300),
        results=[TaskResult(id="m1", memory="lives in Lisbon", event=Event.UPDATE, previous_memory="Porto")],
        started_at=T0 + timedelta(seconds=1),
        finished_at=T0 + timedelta(seconds=9),
    )
    store.create(original)
    assert store.get("acme", original.task_id) == original


def test_item_is_keyed_by_tenant_and_expires_after_30_days(clients: tuple[Any, Any], store: DynamoTaskStore) -> None:
    t = task()
    store.create(t)
    item = clients[0].get_item(TableName=TABLE, Key={"pk": {"S": f"acme#{t.task_id}"}})["Item"]
    assert int(item["expires_at"]["N"]) == int((T0 + timedelta(days=30)).timestamp())
    assert Task.model_validate_json(item["doc"]["S"]) == t


def test_create_refuses_an_existing_task(store: DynamoTaskStore) -> None:
    t = task()
    store.create(t)
    with pytest.raises(ConflictError):
        store.create(t.model_copy(update={"status": TaskStatus.FAILED}))
    assert store.get("acme", t.task_id).status is TaskStatus.QUEUED


def test_save_overwrites_an_existing_task(store: DynamoTaskStore) -> None:
    t = task()
    store.create(t)
    done = t.model_copy(update={"status": TaskStatus.COMPLETED, "attempts": 1, "counts": {"added": 2}})
    store.save(done)
    assert store.get("acme", t.task_id) == done


def test_many_tasks_read_and_saved_in_batches(store: DynamoTaskStore) -> None:
    tasks = [task(content=f"fact {i}") for i in range(30)]  # more than one BatchWriteItem (25)
    for t in tasks:
        store.create(t)
    ids = [t.task_id for t in reversed(tasks)]

    read = store.get_many("acme", ids)
    assert [t.task_id for t in read] == ids  # in the order asked
    for t in read:
        t.status, t.attempts = TaskStatus.PROCESSING, 1
    store.save_many([*read, read[0]])  # a task named twice is written once

    assert store.get_many("acme", ids) == read
    with pytest.raises(NotFoundError):
        store.get_many("globex", ids[:3])  # another tenant's ids are unknown
    with pytest.raises(NotFoundError, match="no-such-task"):
        store.get_many("acme", [ids[0], "no-such-task"])


def test_save_of_a_task_never_created_is_not_found(store: DynamoTaskStore) -> None:
    t = task()
    with pytest.raises(NotFoundError):
        store.save(t)
    with pytest.raises(NotFoundError):
        store.get("acme", t.task_id)


def test_another_tenant_cannot_read_a_task(store: DynamoTaskStore) -> None:
    t = task(tenant="acme")
    store.create(t)
    with pytest.raises(NotFoundError):
        store.get("globex", t.task_id)
    with pytest.raises(NotFoundError):
        store.get("acme#x", t.task_id)
    # The same task id under another tenant is a different task.
    theirs = t.model_copy(update={"tenant_id": "globex", "status": TaskStatus.FAILED})
    store.create(theirs)
    assert store.get("globex", t.task_id).status is TaskStatus.FAILED
    assert store.get("acme", t.task_id).status is TaskStatus.QUEUED


def test_unknown_task_is_not_found(store: DynamoTaskStore) -> None:
    with pytest.raises(NotFoundError):
        store.get("acme", "no-such-task")


def test_a_task_too_large_for_an_item_lives_in_the_blob_store(clients: tuple[Any, Any], store: DynamoTaskStore) -> None:
    big = task(content="x" * 420_000)
    store.create(big)
    assert store.get("acme", big.task_id) == big
    item = clients[0].get_item(TableName=TABLE, Key={"pk": {"S": f"acme#{big.task_id}"}})["Item"]
    assert "doc" not in item
    assert clients[1].get_object(Bucket="engram-blobs", Key=item["doc_key"]["S"])["ContentLength"] > 420_000
    # It can shrink back inline on save.
    small = big.model_copy(update={"request": None, "payload_key": "payloads/big.json"})
    store.save(small)
    assert store.get("acme", big.task_id) == small


def test_a_task_too_large_without_a_blob_store_is_rejected(clients: tuple[Any, Any]) -> None:
    store = DynamoTaskStore(clients[0], TABLE, None)
    big = task(content="x" * 420_000)
    with pytest.raises(PayloadTooLargeError):
        store.create(big)
    with pytest.raises(NotFoundError):
        store.get("acme", big.task_id)
