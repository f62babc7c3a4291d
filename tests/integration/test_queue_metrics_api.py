"""GET /v1/metrics/extraction-queue: figures kept by counters as tasks move, per tenant."""

from __future__ import annotations

import time
from typing import Any

import pytest

from engram.domain.errors import TransientError
from engram.domain.models import Task
from tests.fakes import facts_json
from tests.integration.stack import Stack


def outage(system: str, user: str) -> str:
    raise TransientError("LLM: 503")


def test_figures_agree_with_the_tasks_run(call: Any, stack: Stack) -> None:
    task_ids = []
    for i in range(20):
        body = {"messages": [{"role": "user", "content": f"I like colour {i}"}], "user_id": f"u{i}"}
        status, accepted = call("POST", "/v1/memories", body)
        assert status == 202
        task_ids.append(accepted["task_id"])

    status, before = call("GET", "/v1/metrics/extraction-queue")
    assert status == 200
    assert (before["pending"], before["processing"], before["completed"], before["failed"]) == (20, 0, 0, 0)
    assert before["oldest_pending_age_sec"] >= 0

    failing = {3, 9, 15}
    for i, task_id in enumerate(task_ids):
        stack.llm.answers.append(outage if i in failing else facts_json(f"Likes colour {i}"))
        if i in failing:
            with pytest.raises(TransientError):
                stack.container.worker.process("acme", task_id, final_attempt=True)
        else:
            stack.container.worker.process("acme", task_id)

    status, after = call("GET", "/v1/metrics/extraction-queue", query={"window": "day"})
    assert status == 200
    assert {k: after[k] for k in ("pending", "processing", "completed", "failed")} == {
        "pending": 0,
        "processing": 0,
        "completed": 17,
        "failed": 3,
    }
    assert after["oldest_pending_age_sec"] == 0 and after["avg_duration_sec"] >= 0
    statuses = [call("GET", f"/v1/tasks/{t}")[1]["status"] for t in task_ids]
    assert statuses.count("completed") == 17 and statuses.count("failed") == 3

    status, other = call("GET", "/v1/metrics/extraction-queue", tenant="globex")
    assert status == 200 and (other["pending"], other["completed"], other["failed"]) == (0, 0, 0)


def test_a_retry_goes_back_to_pending(call: Any, stack: Stack) -> None:
    status, accepted = call("POST", "/v1/memories", {"messages": [{"role": "user", "content": "hi"}], "user_id": "a"})
    assert status == 202
    stack.llm.answers.append(outage)
    with pytest.raises(TransientError):
        stack.container.worker.process("acme", accepted["task_id"])  # not the last receive

    status, figures = call("GET", "/v1/metrics/extraction-queue")
    assert status == 200
    assert (figures["pending"], figures["processing"], figures["failed"]) == (1, 0, 0)


def test_an_unknown_window_is_a_4xx_naming_it(call: Any) -> None:
    status, body = call("GET", "/v1/metrics/extraction-queue", query={"window": "year"})
    assert status == 422 and "window" in str(body)


def test_a_delete_all_task_is_counted_from_queued_to_completed(call: Any, stack: Stack) -> None:
    status, accepted = call("DELETE", "/v1/memories", query={"user_id": "alice"})
    assert status == 202
    status, queued = call("GET", "/v1/metrics/extraction-queue")
    assert (queued["pending"], queued["processing"]) == (1, 0)

    stack.container.worker.process("acme", accepted["task_id"])

    status, figures = call("GET", "/v1/metrics/extraction-queue")
    assert status == 200
    assert (figures["pending"], figures["processing"], figures["completed"]) == (0, 0, 1)


class _TakenAtOnce:
    """The task queue as `make run` has it under load: a worker takes the task and runs it before
    the API has answered the add."""

    def __init__(self, stack: Stack) -> None:
        self._stack = stack
        self._queue = stack.container.memories.queue

    def enqueue(self, task: Task) -> None:
        self._queue.enqueue(task)
        self._stack.container.worker.process(task.tenant_id, task.task_id)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._queue, name)


def test_a_task_run_before_its_add_is_answered_leaves_no_pending_age(
    call: Any, stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The memory page showed `oldest pending` growing (191 s, then 678 s) with nothing pending."""
    monkeypatch.setattr(stack.container.memories, "queue", _TakenAtOnce(stack))
    stack.llm.answers.append(facts_json("Likes tea"))
    body = {"messages": [{"role": "user", "content": "I like tea"}], "user_id": "a"}
    status, added = call("POST", "/v1/memories", body)
    assert status == 202
    status, forgot = call("DELETE", "/v1/memories", query={"user_id": "b"})
    assert status == 202
    assert [call("GET", f"/v1/tasks/{t['task_id']}")[1]["status"] for t in (added, forgot)] == ["completed"] * 2

    later = time.time() + 600  # ten minutes on: a leftover stamp would say 600 s
    monkeypatch.setattr(stack.container.queue_metrics, "_clock", lambda: later)
    status, figures = call("GET", "/v1/metrics/extraction-queue", query={"window": "day"})
    assert status == 200
    assert (figures["pending"], figures["processing"], figures["completed"]) == (0, 0, 2)
    assert figures["oldest_pending_age_sec"] == 0
