"""A message that keeps failing is retried, then lands in the DLQ with its task `failed`."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest

from tests.e2e.stack_process import Api, StackProcess
from tests.support.openai_stub import OpenAIStub

pytestmark = pytest.mark.e2e

DLQ_NAME = "engram-local-ExtractionDLQ.fifo"
QUEUE_NAME = "engram-local-ExtractionQueue.fifo"


@pytest.fixture(scope="module")
def broken_llm() -> Iterator[OpenAIStub]:
    with OpenAIStub() as stub:
        stub.fail_next(100_000, status=500)  # every call
        yield stub


@pytest.fixture(scope="module")
def failing_stack(tmp_path_factory: pytest.TempPathFactory, broken_llm: OpenAIStub) -> Iterator[StackProcess]:
    data_dir: Path = tmp_path_factory.mktemp("engram-dlq") / "data"
    env = {
        "ENGRAM_OPENAI_BASE_URL": broken_llm.base_url,
        "ENGRAM_SHORTCUTS": "false",  # no offline shortcut around the LLM
        "ENGRAM_LLM_MAX_RETRIES": "0",  # the queue does the retrying here; keeps the test quick
        # With the LLM circuit breaker on, an LLM that always answers 500 is an outage: tasks would
        # wait for it instead of failing. This file is about failures that end in the DLQ.
        "ENGRAM_BREAKER_ENABLED": "false",
    }
    process = StackProcess(data_dir, "acme:key-acme-1", env).start()
    yield process
    process.stop()


def test_a_message_that_keeps_failing_goes_to_the_dlq(failing_stack: StackProcess, broken_llm: OpenAIStub) -> None:
    api = Api(failing_stack, "key-acme-1")
    task_id = api.add("alice", "Hi, I'm Alice. I live in Berlin and I love pizza.", infer=True)

    task = api.wait(task_id)

    assert task["status"] == "failed", task
    assert task["error"], task
    assert task["attempts"] == 3  # the queue's maxReceiveCount
    assert len(broken_llm.chat_requests) >= 3
    sqs = boto3.client("sqs", endpoint_url=failing_stack.moto_endpoint, region_name="us-east-1")
    dlq_url = sqs.get_queue_url(QueueName=DLQ_NAME)["QueueUrl"]
    bodies = _wait_for_messages(sqs, dlq_url)
    assert [json.loads(b)["task_id"] for b in bodies] == [task_id]
    queue_url = sqs.get_queue_url(QueueName=QUEUE_NAME)["QueueUrl"]
    left = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["All"])["Attributes"]
    assert left["ApproximateNumberOfMessages"] == "0" and left["ApproximateNumberOfMessagesNotVisible"] == "0"


def _wait_for_messages(sqs: Any, queue_url: str, timeout_s: float = 30) -> list[str]:
    """Bodies in the queue once it holds any (SQS moves a message on the receive after its last failure)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        resp = sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10, WaitTimeSeconds=1)
        if resp.get("Messages"):
            return [m["Body"] for m in resp["Messages"]]
    return []


def test_a_failing_task_sends_failed_events_with_attempts(failing_stack: StackProcess) -> None:
    from tests.e2e.test_local_events import events_socket

    api = Api(failing_stack, "key-acme-1")
    with events_socket(failing_stack, "key-acme-1", "?user_id=dora") as ws:
        task_id = api.add("dora", "Hi, I'm Dora. I live in Oslo.", infer=True)
        events = []
        while not events or events[-1].get("will_retry") is not False:
            events.append(json.loads(ws.recv(timeout=90)))

    failed = [e for e in events if e["type"] == "memory_extraction_failed"]
    assert {e["task_id"] for e in events} == {task_id}
    assert [(e["attempts"], e["will_retry"]) for e in failed] == [(1, True), (2, True), (3, False)]
    assert all(e["error"] for e in failed)
    assert events[0]["type"] == "memory_extraction_queued"
    assert events[-1]["status"] == "failed"
