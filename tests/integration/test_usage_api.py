"""GET /v1/usage: per-day counters kept as tasks finish and searches answer, per tenant."""

from __future__ import annotations

from typing import Any

import pytest

from engram.domain.errors import TransientError
from engram.domain.models import utcnow
from tests.fakes import facts_json, memory_json
from tests.integration.stack import Stack


def outage(system: str, user: str) -> str:
    raise TransientError("LLM: 503")


def test_usage_counts_what_ran(call: Any, stack: Stack) -> None:
    adds, failing, searches = 8, {2, 5}, 3
    task_ids = []
    for i in range(adds):
        body = {"messages": [{"role": "user", "content": f"I like colour {i}"}], "user_id": "alice"}
        task_ids.append(call("POST", "/v1/memories", body)[1]["task_id"])
    for i, task_id in enumerate(task_ids):
        if i in failing:
            stack.llm.answers.append(outage)
            with pytest.raises(TransientError):
                stack.container.worker.process("acme", task_id, final_attempt=True)
        else:
            # extraction, then reconciliation of the one fact (the LLM reconciler adds it)
            stack.llm.answers.append(facts_json(f"Likes colour {i}"))
            stack.llm.answers.append(memory_json({"id": "new", "text": f"Likes colour {i}", "event": "ADD"}))
            stack.container.worker.process("acme", task_id)
    for _ in range(searches):
        assert call("POST", "/v1/memories/search", {"query": "colour", "user_id": "alice"})[0] == 200
    tasks = [call("GET", f"/v1/tasks/{t}")[1] for t in task_ids]

    today = utcnow().date().isoformat()
    status, report = call("GET", "/v1/usage", query={"from": today, "to": today})
    assert status == 200
    assert (report["from"], report["to"]) == (today, today)
    (day,) = report["days"]
    assert day["date"] == today
    assert day["adds"] == adds - len(failing) == sum(t["status"] == "completed" for t in tasks)
    assert day["failed_adds"] == len(failing)
    assert day["searches"] == searches
    assert day["llm_calls"] == sum(t["usage"]["llm_calls"] for t in tasks) == len(stack.llm.calls) - len(failing)
    assert day["prompt_tokens"] == sum(t["usage"]["prompt_tokens"] for t in tasks) > 0
    assert day["completion_tokens"] == sum(t["usage"]["completion_tokens"] for t in tasks) > 0
    stored = call("GET", "/v1/memories", query={"user_id": "alice"})[1]["results"]
    assert day["memories_stored"] == len(stored) == adds - len(failing)
    assert report["totals"]["adds"] == day["adds"]

    status, other = call("GET", "/v1/usage", query={"from": today, "to": today}, tenant="globex")
    assert status == 200 and other["totals"]["adds"] == other["totals"]["searches"] == 0


def test_every_day_of_the_range_is_answered_oldest_first(call: Any) -> None:
    status, report = call("GET", "/v1/usage", query={"from": "2026-02-27", "to": "2026-03-02"})
    assert status == 200
    assert [d["date"] for d in report["days"]] == ["2026-02-27", "2026-02-28", "2026-03-01", "2026-03-02"]
    assert all(d["adds"] == 0 for d in report["days"])


def test_without_a_range_the_last_30_days(call: Any) -> None:
    status, report = call("GET", "/v1/usage")
    assert status == 200 and len(report["days"]) == 30 and report["to"] == utcnow().date().isoformat()


@pytest.mark.parametrize(
    ("query", "status", "field"),
    [
        ({"from": "2026-03-02", "to": "2026-03-01"}, 400, "from"),
        ({"from": "2025-01-01", "to": "2026-01-02"}, 400, "to"),
        ({"from": "yesterday"}, 422, "from"),
        ({"to": "2026-13-01"}, 422, "to"),
    ],
)
def test_a_bad_range_is_a_4xx_naming_the_field(call: Any, query: dict[str, str], status: int, field: str) -> None:
    got, body = call("GET", "/v1/usage", query=query)
    assert got == status
    fields = [d["field"] for d in body.get("detail", [])] or [body.get("field")]
    assert field in fields


@pytest.mark.parametrize("query", [{"from": "9999-12-25"}, {"to": "0001-01-03"}])
def test_a_range_at_the_calendars_end_answers_the_days_that_exist(call: Any, query: dict[str, str]) -> None:
    status, report = call("GET", "/v1/usage", query=query)
    assert status == 200 and 0 < len(report["days"]) < 30


def test_a_year_range_answers(call: Any) -> None:
    status, report = call("GET", "/v1/usage", query={"from": "2025-01-01", "to": "2026-01-01"})
    assert status == 200 and len(report["days"]) == 366


def test_memories_stored_is_net_of_corrections_and_deletions(call: Any, stack: Stack) -> None:
    script = [
        ("I live in Berlin and I love pizza", [facts_json("Lives in Berlin", "Loves pizza")]),
        (
            "I moved to Munich",
            [
                facts_json("Lives in Munich"),
                memory_json({"id": "0", "text": "Lives in Munich", "event": "UPDATE", "old_memory": "Lives in Berlin"}),
            ],
        ),
        (
            "I can't stand pizza now",
            [facts_json("Hates pizza"), memory_json({"id": "1", "text": "Loves pizza", "event": "DELETE"})],
        ),
    ]
    applied = []
    for text, answers in script:
        body = {"messages": [{"role": "user", "content": text}], "user_id": "bo"}
        task_id = call("POST", "/v1/memories", body)[1]["task_id"]
        stack.llm.answers += answers
        applied.append([r.event.value for r in stack.container.worker.process("acme", task_id).results])
    assert applied == [["ADD", "ADD"], ["UPDATE"], ["DELETE"]]
    status, report = call("GET", "/v1/usage")
    assert status == 200
    stored = call("GET", "/v1/memories", query={"user_id": "bo"})[1]["results"]
    assert report["totals"]["memories_stored"] == len(stored) == 1  # 2 added, 1 corrected, 1 deleted
    assert report["totals"]["adds"] == 3
