"""The extraction function through its Lambda handler: batches, order, redelivery, failure, DLQ."""

from __future__ import annotations

from typing import Any

import pytest

from engram.domain.models import AddRequest, Message, TaskStatus
from tests.fakes import facts_json, memory_json
from tests.integration.stack import Stack
from tests.support.handlers import FakeContext, load_function, sqs_record


@pytest.fixture
def handler(stack: Stack) -> Any:
    return load_function("extraction").lambda_handler


def submit(stack: Stack, text: str, user: str = "alice", tenant: str = "acme") -> dict[str, Any]:
    request = AddRequest(messages=[Message(role="user", content=text)], user_id=user)
    task = stack.container.memories.submit(tenant, request)
    return sqs_record({"tenant_id": tenant, "task_id": task.task_id, "user_id": user}, f"{tenant}#{user}")


def current(stack: Stack, user: str = "alice") -> list[str]:
    return sorted(f.text for f in stack.container.facts.list_current("acme", user).items)


def test_a_batch_completes_its_tasks_with_results_counts_and_usage(stack: Stack, handler: Any) -> None:
    record = submit(stack, "I love jazz")
    stack.llm.answers.append(facts_json("Loves jazz"))
    assert handler({"Records": [record]}, FakeContext()) == {"batchItemFailures": []}
    task = stack.container.tasks.get("acme", record["attributes"]["MessageDeduplicationId"])
    assert task.status is TaskStatus.COMPLETED
    assert [(r.event.value, r.memory) for r in task.results] == [("ADD", "Loves jazz")]
    assert task.counts["ADD"] == 1 and task.usage.llm_calls == 1 and task.usage.prompt_tokens > 0
    assert current(stack) == ["Loves jazz"]


def test_consecutive_messages_of_one_user_are_extracted_together_in_order(stack: Stack, handler: Any) -> None:
    first, second = submit(stack, "I live in Berlin"), submit(stack, "I moved to Munich")
    stack.llm.answers.append(facts_json("Lives in Munich"))
    assert handler({"Records": [first, second]}, FakeContext()) == {"batchItemFailures": []}
    (call,) = stack.llm.calls  # one extraction for both messages
    assert call["user"].index("Berlin") < call["user"].index("Munich")
    tasks = [stack.container.tasks.get("acme", r["attributes"]["MessageDeduplicationId"]) for r in (first, second)]
    assert [t.status for t in tasks] == [TaskStatus.COMPLETED, TaskStatus.COMPLETED]
    assert tasks[0].processed_with == tasks[1].processed_with == [t.task_id for t in tasks]
    assert [t.usage.llm_calls for t in tasks] == [1, 0]  # counted once
    assert current(stack) == ["Lives in Munich"]


def test_messages_asking_for_different_treatment_are_applied_one_after_the_other(stack: Stack, handler: Any) -> None:
    first = submit(stack, "I live in Berlin")
    request = AddRequest(
        messages=[Message(role="user", content="I moved to Munich")], user_id="alice", metadata={"source": "mobile"}
    )
    task = stack.container.memories.submit("acme", request)
    second = sqs_record({"tenant_id": "acme", "task_id": task.task_id, "user_id": "alice"}, "acme#alice")
    stack.llm.answers += [
        facts_json("Lives in Berlin"),
        facts_json("Lives in Munich"),
        memory_json({"id": "0", "text": "Lives in Munich", "event": "UPDATE", "old_memory": "Lives in Berlin"}),
    ]
    assert handler({"Records": [first, second]}, FakeContext()) == {"batchItemFailures": []}
    assert current(stack) == ["Lives in Munich"]
    (fact,) = stack.container.facts.list_current("acme", "alice").items
    assert [e.new_memory for e in stack.container.facts.history("acme", fact.id)] == [
        "Lives in Berlin",
        "Lives in Munich",
    ]


def test_a_redelivered_message_changes_nothing(stack: Stack, handler: Any) -> None:
    record = submit(stack, "I love jazz")
    stack.llm.answers.append(facts_json("Loves jazz"))
    handler({"Records": [record]}, FakeContext())
    calls = len(stack.llm.calls)
    assert handler({"Records": [record]}, FakeContext()) == {"batchItemFailures": []}  # same message id
    again = dict(record, messageId="another-delivery-of-the-same-task")
    assert handler({"Records": [again]}, FakeContext()) == {"batchItemFailures": []}
    assert len(stack.llm.calls) == calls  # no second extraction
    assert current(stack) == ["Loves jazz"]


def test_a_run_of_one_users_messages_is_done_once_and_redelivered_changes_nothing(stack: Stack, handler: Any) -> None:
    records = [submit(stack, f"I love genre number {i}") for i in range(4)]
    stack.llm.answers.append(facts_json(*(f"Loves genre number {i}" for i in range(4))))
    assert handler({"Records": records}, FakeContext()) == {"batchItemFailures": []}
    tasks = [stack.container.tasks.get("acme", r["attributes"]["MessageDeduplicationId"]) for r in records]
    assert {t.status for t in tasks} == {TaskStatus.COMPLETED}
    calls = len(stack.llm.calls)
    # The whole batch again (a retried invocation), and a follower alone under a new message id.
    assert handler({"Records": records}, FakeContext()) == {"batchItemFailures": []}
    again = dict(records[2], messageId="another-delivery-of-the-third")
    assert handler({"Records": [again]}, FakeContext()) == {"batchItemFailures": []}
    assert len(stack.llm.calls) == calls == 1
    assert current(stack) == sorted(f"Loves genre number {i}" for i in range(4))


def test_a_failure_retries_the_rest_of_the_group_but_not_other_users(stack: Stack, handler: Any) -> None:
    bad, after_bad = submit(stack, "I love jazz"), submit(stack, "I love blues")
    other = submit(stack, "I love opera", user="bob")
    stack.llm.answers += ["garbage", "garbage", "garbage", facts_json("Loves opera")]
    result = handler({"Records": [bad, after_bad, other]}, FakeContext())
    assert {f["itemIdentifier"] for f in result["batchItemFailures"]} == {bad["messageId"], after_bad["messageId"]}
    task = stack.container.tasks.get("acme", bad["attributes"]["MessageDeduplicationId"])
    assert task.status is TaskStatus.QUEUED and "LLMOutputError" in (task.error or "")
    assert current(stack, "bob") == ["Loves opera"]
    # the retry succeeds: the idempotency record of a failed attempt does not block it
    stack.llm.answers.append(facts_json("Loves jazz", "Loves blues"))  # both retried messages in one run
    retry = [
        dict(bad, attributes={**bad["attributes"], "ApproximateReceiveCount": "2"}),
        dict(after_bad, attributes={**after_bad["attributes"], "ApproximateReceiveCount": "2"}),
    ]
    assert handler({"Records": retry}, FakeContext()) == {"batchItemFailures": []}
    assert current(stack) == ["Loves blues", "Loves jazz"]


def test_the_last_receive_marks_the_task_failed_with_the_reason(stack: Stack, handler: Any) -> None:
    record = submit(stack, "I love jazz")
    record["attributes"]["ApproximateReceiveCount"] = "3"  # the queue's maxReceiveCount
    stack.llm.answers += ["garbage"] * 3
    result = handler({"Records": [record]}, FakeContext())
    assert result["batchItemFailures"] == [{"itemIdentifier": record["messageId"]}]
    task = stack.container.tasks.get("acme", record["attributes"]["MessageDeduplicationId"])
    assert task.status is TaskStatus.FAILED and "no usable answer" in (task.error or "")
    assert task.attempts == 1


def test_a_malformed_message_is_reported_not_swallowed(stack: Stack, handler: Any) -> None:
    record = sqs_record({"task_id": "x"}, "acme#alice")
    record["body"] = "{broken"
    result = handler({"Records": [record]}, FakeContext())
    assert result["batchItemFailures"] == [{"itemIdentifier": record["messageId"]}]
