"""An LLM outage with the circuit breaker: 100 adds queued while the LLM answers 500 for 10 (simulated)
minutes. Nothing is dead-lettered, everything completes after recovery, the breaker opens and closes
once, and the LLM is called no more than threshold + one trial times during the outage."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engram.adapters.dynamo_breaker_store import DynamoBreakerStore
from engram.domain.errors import TransientError
from engram.domain.models import AddRequest, LLMReply, Message, TaskStatus, Usage
from engram.domain.operations import BreakerStatus
from engram.pipeline.llm_extractor import LLMFactExtractor
from engram.reconcile.llm import LLMReconciler
from engram.services.circuit_breaker import CircuitBreaker, GuardedLLM
from engram.services.worker import ExtractionWorker
from tests.fakes import Clock, facts_json
from tests.integration.stack import Stack
from tests.support.handlers import FakeContext, load_function

OUTAGE_S = 600
STEP_S = 30  # simulated time between two polls of the queue
MAX_RECEIVES = 3


class OutageLLM:
    """Answers 500 until the clock passes `until`, then extracts one fact per conversation."""

    def __init__(self, clock: Clock, until: float) -> None:
        self.clock, self.until = clock, until
        self.calls_during_outage = 0
        self.calls = 0

    def complete_json(self, system: str, user: str, schema: dict[str, Any], schema_name: str) -> LLMReply:
        self.calls += 1
        if self.clock() < self.until:
            self.calls_during_outage += 1
            raise TransientError("LLM: 500 Internal Server Error")
        if schema_name != "facts":
            raise AssertionError(f"unexpected {schema_name} call: each user has one fact, nothing to reconcile")
        user_line = next(line for line in user.splitlines() if "My name is" in line)
        name = user_line.split("My name is ", 1)[1].split(".")[0]
        return LLMReply(content=facts_json(f"Name is {name}"), usage=Usage(llm_calls=1))


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


@pytest.mark.parametrize("adds", [100])
def test_an_llm_outage_loses_no_task_and_fills_no_dlq(stack: Stack, adds: int) -> None:
    clock = Clock()
    llm = OutageLLM(clock, until=clock.now + OUTAGE_S)
    c = stack.container
    breaker = CircuitBreaker(DynamoBreakerStore(c.aws.dynamodb, c.settings.tasks_table), clock=clock)
    guarded = GuardedLLM(llm, breaker)
    c.pipeline.extractor = LLMFactExtractor(guarded)
    c.pipeline.reconciler = LLMReconciler(guarded)
    c.worker = ExtractionWorker(c.tasks, c.pipeline, c.blobs, c.task_events, breaker)
    dlq_url = stack.sqs.create_queue(QueueName="engram-dlq.fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
    dlq_arn = stack.sqs.get_queue_attributes(QueueUrl=dlq_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    policy = {"deadLetterTargetArn": dlq_arn, "maxReceiveCount": MAX_RECEIVES}
    stack.sqs.set_queue_attributes(QueueUrl=stack.queue_url, Attributes={"RedrivePolicy": json.dumps(policy)})
    handler = load_function("extraction").lambda_handler

    task_ids = []
    for i in range(adds):
        request = AddRequest(messages=[Message(role="user", content=f"My name is User{i}.")], user_id=f"u{i}")
        task_ids.append(c.memories.submit("acme", request).task_id)
    waiting: list[Any] = []
    for step in range(400):
        if poll(stack, handler, stack.queue_url) == 0 and clock.now > llm.until:
            break
        if step == 4:  # two minutes in: the breaker is open and tasks say why they wait
            waiting = [t for t in c.tasks.get_many("acme", task_ids) if t.status is TaskStatus.WAITING]
        clock.now += STEP_S

    assert waiting and all("circuit breaker open" in (t.error or "") for t in waiting)
    tasks = c.tasks.get_many("acme", task_ids)
    assert [t.task_id for t in tasks if t.status is not TaskStatus.COMPLETED] == []
    assert stack.sqs.receive_message(QueueUrl=dlq_url, MaxNumberOfMessages=10).get("Messages", []) == []
    state = breaker.state()
    assert state.status is BreakerStatus.CLOSED
    assert (state.times_opened, state.times_closed) == (1, 1)
    assert llm.calls_during_outage <= breaker.threshold + 1
    assert sum(len(t.results) for t in tasks) == adds  # every conversation's fact was stored once
