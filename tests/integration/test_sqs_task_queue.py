"""SqsTaskQueue against a moto FIFO queue: body, group id, dedup id, ordering, odd user ids."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws

from engram.adapters.aws.sqs_task_queue import SqsTaskQueue, message_group_id
from engram.domain.errors import EngramError
from engram.domain.models import Task
from tests.integration.aws_tables import create_fifo_queue


@pytest.fixture
def sqs() -> Iterator[tuple[Any, str]]:
    with mock_aws():
        client = boto3.client("sqs", region_name="us-east-1")
        yield client, create_fifo_queue(client)


def receive_all(client: Any, url: str) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    while True:
        resp = client.receive_message(
            QueueUrl=url, MaxNumberOfMessages=10, MessageSystemAttributeNames=["All"], VisibilityTimeout=60
        )
        batch = resp.get("Messages", [])
        if not batch:
            return messages
        messages.extend(batch)


def test_message_carries_ids_group_and_dedup_id(sqs: tuple[Any, str]) -> None:
    client, url = sqs
    task = Task(tenant_id="acme", user_id="u1")
    SqsTaskQueue(client, url).enqueue(task)
    [message] = receive_all(client, url)
    assert json.loads(message["Body"]) == {"tenant_id": "acme", "task_id": task.task_id, "user_id": "u1"}
    assert message["Attributes"]["MessageGroupId"] == "acme#u1"
    assert message["Attributes"]["MessageDeduplicationId"] == task.task_id


def test_sending_the_same_task_twice_yields_one_message(sqs: tuple[Any, str]) -> None:
    client, url = sqs
    queue = SqsTaskQueue(client, url)
    task = Task(tenant_id="acme", user_id="u1")
    queue.enqueue(task)
    queue.enqueue(task)
    assert [json.loads(m["Body"])["task_id"] for m in receive_all(client, url)] == [task.task_id]


def test_one_users_tasks_share_a_group_in_order(sqs: tuple[Any, str]) -> None:
    client, url = sqs
    queue = SqsTaskQueue(client, url)
    tasks = [Task(tenant_id="acme", user_id="u1") for _ in range(3)]
    for task in tasks:
        queue.enqueue(task)
    queue.enqueue(Task(tenant_id="acme", user_id="u2"))
    messages = receive_all(client, url)
    u1 = [m for m in messages if m["Attributes"]["MessageGroupId"] == "acme#u1"]
    assert [json.loads(m["Body"])["task_id"] for m in u1] == [t.task_id for t in tasks]
    assert {m["Attributes"]["MessageGroupId"] for m in messages} == {"acme#u1", "acme#u2"}


@pytest.mark.parametrize("user_id", ["Zoë Müller", "user with spaces", "u" * 200])
def test_user_ids_sqs_would_reject_still_get_a_stable_group(sqs: tuple[Any, str], user_id: str) -> None:
    client, url = sqs
    queue = SqsTaskQueue(client, url)
    queue.enqueue(Task(tenant_id="acme", user_id=user_id))
    queue.enqueue(Task(tenant_id="acme", user_id=user_id))
    groups = {m["Attributes"]["MessageGroupId"] for m in receive_all(client, url)}
    assert groups == {message_group_id("acme", user_id)}
    assert len(next(iter(groups))) <= 128
    assert message_group_id("acme", user_id) != message_group_id("acme", user_id + "2")


def test_a_missing_queue_is_a_clear_error(sqs: tuple[Any, str]) -> None:
    client, url = sqs
    missing = url.replace("engram-tasks.fifo", "no-such-queue.fifo")
    with pytest.raises(EngramError, match="no-such-queue"):
        SqsTaskQueue(client, missing).enqueue(Task(tenant_id="acme", user_id="u1"))
