"""A user's adds received in one batch run through the pipeline together, which no task can tell:
each reports the memories made from its own messages (results, counts, completed event), and an add
repeating an earlier one of the run stores nothing, as if the tasks had run one after another."""

from __future__ import annotations

from typing import Any

import pytest

from engram.domain.models import AddRequest, Message, TaskStatus
from engram.services.task_events import TaskEvents
from tests.fakes import facts_json, memory_json
from tests.integration.stack import Stack
from tests.support.handlers import FakeContext, load_function, sqs_record


class Recorder:
    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def publish(self, tenant_id: str, user_id: str, event: dict[str, Any]) -> None:
        self.sent.append(event)


@pytest.fixture
def handler(stack: Stack) -> Any:
    return load_function("extraction").lambda_handler


def submit(stack: Stack, text: str, **options: Any) -> tuple[str, dict[str, Any]]:
    request = AddRequest(messages=[Message(role="user", content=text)], user_id="alice", **options)
    task = stack.container.memories.submit("acme", request)
    return task.task_id, sqs_record({"tenant_id": "acme", "task_id": task.task_id, "user_id": "alice"}, "acme#alice")


def run_batch(stack: Stack, handler: Any, texts: list[str], **options: Any) -> list[str]:
    """Queue the adds, then process them as one batch (one run); their task ids in order."""
    submitted = [submit(stack, text, **options) for text in texts]
    assert handler({"Records": [record for _, record in submitted]}, FakeContext()) == {"batchItemFailures": []}
    task_ids = [task_id for task_id, _ in submitted]
    for task_id in task_ids:  # merged into one run, or this test proves nothing
        assert stack.container.tasks.get("acme", task_id).processed_with == task_ids
    return task_ids


def sources(stack: Stack) -> dict[str, str]:
    """Each current memory's id -> the task whose message it was made from."""
    return {f.id: f.source.task_id for f in stack.container.facts.list_current("acme", "alice").items if f.source}


def test_each_task_of_a_merged_run_reports_only_the_memories_of_its_own_messages(stack: Stack, handler: Any) -> None:
    recorder = Recorder()
    stack.container.worker.events = TaskEvents(recorder)
    texts = ["I live in Berlin", "I like jazz", "I own a cat", "I work as a nurse"]
    task_ids = run_batch(stack, handler, texts, infer=False)

    made_by = sources(stack)
    assert len(made_by) == 4
    for task_id, text in zip(task_ids, texts, strict=True):
        task = stack.container.tasks.get("acme", task_id)
        assert task.status is TaskStatus.COMPLETED
        assert [(r.event.value, r.memory) for r in task.results] == [("ADD", text)]
        assert made_by[task.results[0].id] == task_id
        assert (task.counts["facts"], task.counts["ADD"], task.counts["NONE"]) == (1, 1, 0)
    completed = {e["task_id"]: e for e in recorder.sent if e["type"] == "memory_extraction_completed"}
    assert [completed[t]["facts_count"] for t in task_ids] == [1, 1, 1, 1]
    assert [[r["memory"] for r in completed[t]["results"]] for t in task_ids] == [[text] for text in texts]


def test_identical_adds_merged_into_one_run_store_one_memory(stack: Stack, handler: Any) -> None:
    task_ids = run_batch(stack, handler, ["I love pizza."] * 3, infer=False)

    (memory,) = stack.container.facts.list_current("acme", "alice").items
    tasks = [stack.container.tasks.get("acme", t) for t in task_ids]
    # The first stores it; the others find it already known, as they would run after it.
    assert [[(r.event.value, r.id) for r in t.results] for t in tasks] == [[("ADD", memory.id)], [], []]
    assert [(t.counts["ADD"], t.counts["NONE"]) for t in tasks] == [(1, 0), (0, 1), (0, 1)]
    assert memory.source is not None and memory.source.task_id == task_ids[0]


def test_the_same_fact_extracted_twice_in_one_run_is_stored_once(stack: Stack, handler: Any) -> None:
    stack.llm.answers.append(facts_json("Loves pizza", "Loves pizza"))  # one extraction for both adds
    run_batch(stack, handler, ["I love pizza.", "I love pizza."])
    assert [f.text for f in stack.container.facts.list_current("acme", "alice").items] == ["Loves pizza"]


def test_an_update_is_reported_by_the_task_whose_message_made_it(stack: Stack, handler: Any) -> None:
    first, record = submit(stack, "I live in Berlin", infer=False)
    assert handler({"Records": [record]}, FakeContext()) == {"batchItemFailures": []}
    (berlin,) = stack.container.facts.list_current("acme", "alice").items
    stack.llm.answers.append(
        memory_json(
            {"id": "0", "text": "I live in Munich", "event": "UPDATE", "old_memory": "I live in Berlin"},
            {"id": "1", "text": "I like jazz", "event": "ADD"},
        )
    )
    jazz, munich = run_batch(stack, handler, ["I like jazz", "I live in Munich"], infer=False)

    jazz_task, munich_task = (stack.container.tasks.get("acme", t) for t in (jazz, munich))
    assert [(r.event.value, r.memory) for r in jazz_task.results] == [("ADD", "I like jazz")]
    assert [(r.event.value, r.id, r.previous_memory) for r in munich_task.results] == [
        ("UPDATE", berlin.id, "I live in Berlin")
    ]
    assert (jazz_task.counts["ADD"], jazz_task.counts["UPDATE"]) == (1, 0)
    assert (munich_task.counts["ADD"], munich_task.counts["UPDATE"]) == (0, 1)
    assert first not in (jazz, munich)
