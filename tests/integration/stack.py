"""A moto-backed container with real DynamoDB/S3/SQS adapters and scripted LLM, for handler tests."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import boto3
import pytest
from moto import mock_aws

import engram.bootstrap
from engram.bootstrap import Container
from engram.pipeline.llm_extractor import LLMFactExtractor
from engram.reconcile.llm import LLMReconciler
from tests.fakes import HashEmbedder, MemoryIndex, ScriptedLLM
from tests.integration.aws_tables import create_bucket, create_fifo_queue, create_tables
from tests.support.handlers import FakeContext, api_event


@dataclass
class Stack:
    container: Container
    llm: ScriptedLLM
    sqs: Any
    dynamodb: Any

    @property
    def queue_url(self) -> str:
        return str(self.container.settings.queue_url)

    def queued(self) -> list[dict[str, Any]]:
        resp = self.sqs.receive_message(
            QueueUrl=self.queue_url, MaxNumberOfMessages=10, AttributeNames=["All"], VisibilityTimeout=0
        )
        return list(resp.get("Messages", []))


@contextmanager
def moto_stack(monkeypatch: pytest.MonkeyPatch) -> Iterator[Stack]:
    with mock_aws():
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        sqs = boto3.client("sqs", region_name="us-east-1")
        settings = create_tables(dynamodb)
        create_bucket(boto3.client("s3", region_name="us-east-1"), settings.bucket)
        # Episodes off: these tests script the LLM's facts and assert exactly those (episodes: test_episodes.py).
        # Search counts and uses written when read or closed, not by a timer in the middle of another
        # test: moto in process is not thread-safe.
        quiet = {"usage_flush_s": 3600.0, "touch_interval_s": 3600.0}
        settings = settings.model_copy(update={"queue_url": create_fifo_queue(sqs), "keep_episodes": False, **quiet})
        llm = ScriptedLLM()
        container = Container(
            settings,
            index=MemoryIndex(),
            entity_index=MemoryIndex(),  # not the data folder's file: tests share the working directory
            embedder=HashEmbedder(),
            extractor=LLMFactExtractor(llm),
            reconciler=LLMReconciler(llm),
        )
        monkeypatch.setattr(engram.bootstrap, "container", lambda: container)
        try:
            yield Stack(container, llm, sqs, dynamodb)
        finally:
            container.close()  # no search count of this test lands in the next one's tables


def api_caller(api: Any) -> Any:
    """Call the API handler with a proxy event; returns (status, parsed JSON body)."""

    def _call(method: str, path: str, body: Any = None, **kw: Any) -> tuple[int, Any]:
        resp = api.lambda_handler(api_event(method, path, body, **kw), FakeContext())
        text = resp["body"]
        try:
            return resp["statusCode"], json.loads(text) if text else None
        except json.JSONDecodeError:
            return resp["statusCode"], text

    return _call


def with_dlq(stack: Stack, max_receives: int) -> str:
    """Give the task queue a dead-letter queue after `max_receives` receives, as template.yaml does; its URL."""
    dlq_url = stack.sqs.create_queue(QueueName="engram-dlq.fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
    dlq_arn = stack.sqs.get_queue_attributes(QueueUrl=dlq_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    policy = {"deadLetterTargetArn": dlq_arn, "maxReceiveCount": max_receives}
    stack.sqs.set_queue_attributes(QueueUrl=stack.queue_url, Attributes={"RedrivePolicy": json.dumps(policy)})
    return str(dlq_url)


def dead_letters(stack: Stack, dlq_url: str) -> list[dict[str, Any]]:
    return list(stack.sqs.receive_message(QueueUrl=dlq_url, MaxNumberOfMessages=10).get("Messages", []))


def poll(stack: Stack, handler: Any, queue_url: str) -> int:
    """One receive of the event source mapping: invoke, delete what succeeded, retry the rest now."""
    resp = stack.sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10, AttributeNames=["All"])
    messages = resp.get("Messages", [])
    if not messages:
        return 0
    records = [
        {
            "messageId": m["MessageId"],
            "receiptHandle": m["ReceiptHandle"],
            "body": m["Body"],
            "attributes": m["Attributes"],
            "messageAttributes": {},
            "md5OfBody": "",
            "eventSource": "aws:sqs",
            "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:engram-tasks.fifo",
            "awsRegion": "us-east-1",
        }
        for m in messages
    ]
    failed = {f["itemIdentifier"] for f in handler({"Records": records}, FakeContext())["batchItemFailures"]}
    for record in records:
        if record["messageId"] in failed:
            stack.sqs.change_message_visibility(
                QueueUrl=queue_url, ReceiptHandle=record["receiptHandle"], VisibilityTimeout=0
            )
        else:
            stack.sqs.delete_message(QueueUrl=queue_url, ReceiptHandle=record["receiptHandle"])
    return len(records)
