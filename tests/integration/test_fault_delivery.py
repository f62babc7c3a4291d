"""Faults on the way in, counted: SQS delivering a message twice (or a task in two messages),
DynamoDB throttling, and an LLM whose JSON is broken 30 % of the time. Every accepted add ends
stored exactly once, or visibly failed with its reason and dead-lettered; never silently short."""

from __future__ import annotations

import json
import random
from types import SimpleNamespace
from typing import Any

import pytest
from moto.core.botocore_stubber import BotocoreStubber

from engram.domain.errors import TransientError
from engram.domain.models import AddRequest, Message, TaskStatus
from engram.pipeline.llm_extractor import LLMFactExtractor
from tests.figures import record
from tests.integration.stack import Stack, dead_letters, poll, with_dlq
from tests.support.fault_llms import FlakyLLM, RephrasingLLM, fact_of
from tests.support.handlers import FakeContext, load_function, sqs_record


def submit(stack: Stack, user: str, text: str) -> str:
    request = AddRequest(messages=[Message(role="user", content=text)], user_id=user)
    return stack.container.memories.submit("acme", request).task_id


def stored(stack: Stack, users: list[str]) -> dict[str, list[str]]:
    return {u: sorted(f.text for f in stack.container.facts.list_current("acme", u).items) for u in users}


def test_duplicate_deliveries_of_a_message_or_a_task_store_one_set_of_memories(stack: Stack) -> None:
    llm = RephrasingLLM()  # a second extraction would word the facts differently: it would show
    stack.container.pipeline.extractor = LLMFactExtractor(llm)
    handler = load_function("extraction").lambda_handler
    users = [f"dup{i}" for i in range(10)]
    records = []
    for user in users:
        task_id = submit(stack, user, f"My dog is called Rex{user}.")
        records.append(sqs_record({"tenant_id": "acme", "task_id": task_id, "user_id": user}, f"acme#{user}"))

    deliveries = 0
    for message in records:
        same_task_other_message = dict(message, messageId=f"{message['messageId']}-copy")
        # One batch holding the task twice (a producer that sent it twice), then the same message
        # again (SQS at-least-once), then the copy again after its visibility timeout.
        for batch in ([message, same_task_other_message], [message], [same_task_other_message]):
            assert handler({"Records": batch}, FakeContext()) == {"batchItemFailures": []}
            deliveries += len(batch)

    memories = stored(stack, users)
    duplicates = sum(len(texts) - 1 for texts in memories.values() if texts)
    lost = sum(not texts for texts in memories.values())
    record(
        "faults: duplicate SQS deliveries",
        tasks=len(users),
        deliveries=deliveries,
        extractions=llm.calls,
        accepted_adds_lost=lost,
        duplicates=duplicates,
    )
    assert memories == {u: [f"My dog is called Rex{u}"] for u in users}
    assert llm.calls == len(users)  # each task extracted once, however often it was delivered
    tasks = stack.container.tasks.get_many("acme", [json.loads(r["body"])["task_id"] for r in records])
    assert all(t.status is TaskStatus.COMPLETED and len(t.results) == 1 for t in tasks)


class Throttle:
    """DynamoDB answering ProvisionedThroughputExceededException to a share of requests (seeded),
    without applying them, as DynamoDB does; botocore's back-off sleeps are recorded, not slept."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, rate: float, seed: int) -> None:
        self.rng = random.Random(seed)
        self.rate = rate
        self.on = True
        self.burst = 0  # the next `burst` requests are all throttled
        self.requests = self.throttled = 0
        self.slept: list[float] = []
        real = BotocoreStubber.process_request

        def process_request(stubber: BotocoreStubber, request: Any) -> Any:
            target = str(request.headers.get("X-Amz-Target", b""), "utf-8") if request.headers else ""
            if target.startswith("DynamoDB_") and self.on:
                self.requests += 1
                if self.burst or self.rng.random() < self.rate:
                    self.burst = max(0, self.burst - 1)
                    self.throttled += 1
                    body = {
                        "__type": "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException",
                        "message": "The level of configured provisioned throughput for the table was exceeded.",
                    }
                    return 400, {"Content-Type": "application/x-amz-json-1.0"}, json.dumps(body).encode()
            return real(stubber, request)

        monkeypatch.setattr(BotocoreStubber, "process_request", process_request)
        monkeypatch.setattr("botocore.endpoint.time", SimpleNamespace(sleep=self.slept.append))


def test_dynamodb_throttling_is_retried_with_backoff_and_every_add_completes(
    stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    stack.container.pipeline.extractor = LLMFactExtractor(RephrasingLLM())
    dlq_url = with_dlq(stack, stack.container.settings.max_receives)
    handler = load_function("extraction").lambda_handler
    throttle = Throttle(monkeypatch, rate=0.3, seed=11)
    users = [f"thr{i}" for i in range(20)]
    tasks, refused = {}, 0
    for user in users:
        while user not in tasks:  # a client retries an add answered 503 (its retries spent)
            try:
                tasks[user] = submit(stack, user, f"I was born in Town{user}.")
            except TransientError:
                refused += 1
    # A burst longer than botocore's 5 attempts: a request gives up, and the queue retries its message.
    throttle.burst = 8
    failures: list[str] = []

    def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
        response: dict[str, Any] = handler(event, context)
        failures.extend(f["itemIdentifier"] for f in response["batchItemFailures"])
        return response

    polls = 0
    while poll(stack, lambda_handler, stack.queue_url) and polls < 200:
        polls += 1
    throttle.on = False

    memories = stored(stack, users)
    statuses = [t.status for t in stack.container.tasks.get_many("acme", list(tasks.values()))]
    record(
        "faults: DynamoDB throttling (30 % of requests)",
        adds=len(users),
        dynamodb_requests=throttle.requests,
        throttled=throttle.throttled,
        backoff_waits=len(throttle.slept),
        messages_retried_by_queue=len(failures),
        adds_refused_503=refused,
        accepted_adds_lost=sum(not texts for texts in memories.values()),
        duplicates=sum(max(0, len(texts) - 1) for texts in memories.values()),
    )
    assert throttle.throttled > 8 and len(throttle.slept) > 0 and failures  # botocore's retries, then the queue's
    assert all(0 < wait <= 20 for wait in throttle.slept)  # standard mode: jittered, capped back-off
    assert memories == {u: [f"I was born in Town{u}"] for u in users}
    assert statuses == [TaskStatus.COMPLETED] * len(users)
    assert dead_letters(stack, dlq_url) == []


def test_malformed_llm_replies_are_repaired_or_retried_and_none_silently_dropped(stack: Stack) -> None:
    llm = FlakyLLM(rate=0.3, seed=7, hopeless=frozenset({"hopeless"}))
    stack.container.pipeline.extractor = LLMFactExtractor(llm)
    dlq_url = with_dlq(stack, stack.container.settings.max_receives)
    handler = load_function("extraction").lambda_handler
    said = {f"mal{i}": f"My favourite number is {i}." for i in range(50)}
    said["hopeless"] = "My favourite number is hopeless."  # its every reply is broken: it must fail visibly
    tasks = {user: submit(stack, user, text) for user, text in said.items()}
    polls = 0
    while poll(stack, handler, stack.queue_url) and polls < 300:
        polls += 1

    memories = stored(stack, list(said))
    by_user = dict(zip(tasks, stack.container.tasks.get_many("acme", list(tasks.values())), strict=True))
    completed = {u for u, t in by_user.items() if t.status is TaskStatus.COMPLETED}
    failed = {u for u, t in by_user.items() if t.status is TaskStatus.FAILED}
    short = [u for u in completed if memories[u] != [fact_of(said[u])]]  # "completed" with facts missing
    dead = dead_letters(stack, dlq_url)
    record(
        "faults: malformed LLM replies (30 %)",
        adds=len(said),
        replies_broken=llm.served["broken"],
        replies_repairable=llm.served["repairable"],
        replies_good=llm.served["good"],
        completed=len(completed),
        failed_visibly=len(failed),
        dead_lettered=len(dead),
        facts_expected=len(completed),
        facts_stored=sum(len(memories[u]) for u in completed),
        silently_dropped=len(short),
    )
    assert short == []
    assert completed | failed == set(said)  # nothing left in between
    assert failed == {"hopeless"} and "no usable answer" in (by_user["hopeless"].error or "")
    assert memories["hopeless"] == []
    assert [json.loads(m["Body"])["task_id"] for m in dead] == [tasks["hopeless"]]
    assert llm.served["broken"] > 0 and llm.served["repairable"] > 0
