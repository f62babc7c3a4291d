"""An LLM outage with the circuit breaker: 100 adds queued while the LLM answers 500 for 10 (simulated)
minutes. Nothing is dead-lettered, everything completes after recovery, the breaker opens and closes
once, and the LLM is called no more than threshold + one trial times during the outage."""

from __future__ import annotations

from typing import Any

import pytest

from engram.adapters.dynamo.breaker_store import DynamoBreakerStore
from engram.domain.errors import TransientError
from engram.domain.models import AddRequest, Message, TaskStatus, Usage
from engram.domain.operations import BreakerStatus
from engram.domain.steps import LLMReply
from engram.operations.circuit_breaker import CircuitBreaker, GuardedLLM
from engram.pipeline.llm_extractor import LLMFactExtractor
from engram.reconcile.llm import LLMReconciler
from engram.services.worker import ExtractionWorker
from tests.fakes import Clock, facts_json
from tests.integration.stack import Stack, poll, with_dlq
from tests.support.handlers import load_function

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
    dlq_url = with_dlq(stack, MAX_RECEIVES)
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
