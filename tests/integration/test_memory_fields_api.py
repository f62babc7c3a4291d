"""Every field of a memory is visible and usable through the API: source, validity, protection,
bank, key; listings filter by them; "as of" reads show the versions current at a past time."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

from tests.fakes import facts_json
from tests.integration.stack import Stack


def add_and_process(call: Any, stack: Stack, *contents: str, answer: str) -> dict[str, Any]:
    """Add through the API, run the queued task through the worker, return the finished task view."""
    messages = [{"role": "user", "content": c} for c in contents]
    status, accepted = call("POST", "/v1/memories", {"messages": messages, "user_id": "alice"})
    assert status == 202
    stack.llm.answers.append(answer)
    stack.container.worker.process("acme", accepted["task_id"])
    status, task = call("GET", f"/v1/tasks/{accepted['task_id']}")
    assert status == 200 and task["status"] == "completed"
    return dict(task)


def now() -> str:
    time.sleep(0.01)  # versions written before and after differ in their valid_from
    moment = datetime.now(UTC).isoformat()
    time.sleep(0.01)
    return moment


def test_a_memory_shows_where_it_came_from_and_the_source_messages(call: Any, stack: Stack) -> None:
    task = add_and_process(call, stack, "Hello there", "I live in Lisbon", answer=facts_json("Lives in Lisbon"))
    (result,) = task["results"]

    status, view = call("GET", f"/v1/memories/{result['id']}")
    assert status == 200
    assert view["source"]["task_id"] == task["task_id"]
    assert view["source_messages"] is None  # only when asked for
    for field in ("importance", "memory_bank", "is_protected", "valid_from", "valid_to", "summarized_from"):
        assert field in view
    assert view["valid_to"] is None and view["is_protected"] is False

    status, view = call("GET", f"/v1/memories/{result['id']}", query={"include": "source"})
    assert status == 200
    assert [m["content"] for m in view["source_messages"]] == ["Hello there", "I live in Lisbon"]
    # The task that memories came from outlives the usual task expiry.
    item = stack.dynamodb.get_item(
        TableName=stack.container.settings.tasks_table, Key={"pk": {"S": f"acme#{task['task_id']}"}}
    )["Item"]
    assert item.get("expires_at") is None


def test_a_stored_as_given_memory_points_at_its_own_message(call: Any, stack: Stack) -> None:
    messages = [{"role": "user", "content": "first turn"}, {"role": "user", "content": "second turn"}]
    status, accepted = call("POST", "/v1/memories", {"messages": messages, "user_id": "alice", "infer": False})
    assert status == 202
    stack.container.worker.process("acme", accepted["task_id"])
    results = call("GET", f"/v1/tasks/{accepted['task_id']}")[1]["results"]
    second = next(r for r in results if r["memory"] == "second turn")
    view = call("GET", f"/v1/memories/{second['id']}", query={"include": "source"})[1]
    assert view["source"]["message_index"] == 1
    assert [m["content"] for m in view["source_messages"]] == ["second turn"]


def test_a_memory_says_who_said_it_through_dynamodb(call: Any, stack: Stack) -> None:
    messages = [
        {"role": "user", "content": "My gate code is 4711", "name": "alice"},
        {"role": "assistant", "content": "Noted, I will remember it."},
        {"role": "tool", "content": "gate=4711", "name": "vault"},
        {"role": "user", "content": "Thanks!"},
    ]
    status, accepted = call("POST", "/v1/memories", {"messages": messages, "user_id": "alice", "infer": False})
    assert status == 202
    stack.container.worker.process("acme", accepted["task_id"])
    results = call("GET", f"/v1/tasks/{accepted['task_id']}")[1]["results"]
    sources = {r["memory"]: call("GET", f"/v1/memories/{r['id']}")[1]["source"] for r in results}
    assert {m: (s["role"], s["name"], s["message_index"]) for m, s in sources.items()} == {
        "My gate code is [credential]": ("user", "alice", 0),  # a secret said as such is never stored
        "Noted, I will remember it.": ("assistant", None, 1),
        "gate=[credential]": ("tool", "vault", 2),  # and wherever the request repeats it
        "Thanks!": ("user", None, 3),
    }
    listed = call("GET", "/v1/memories", query={"user_id": "alice"})[1]["results"]
    assert {m["memory"]: m["source"]["role"] for m in listed}["Noted, I will remember it."] == "assistant"


def test_listings_filter_by_bank_protection_and_key(call: Any, stack: Stack) -> None:
    answer = (
        '{"facts": [{"text": "Lives in Oslo", "fact_key": "location", "fact_value": "Oslo", '
        '"memory_bank": "Personal", "importance": 0.8}, {"text": "Works at Brightwave", "fact_key": "employer", '
        '"fact_value": "Brightwave", "memory_bank": "Work", "importance": 0.7}]}'
    )
    task = add_and_process(call, stack, "I live in Oslo and work at Brightwave", answer=answer)
    ids = {r["memory"]: r["id"] for r in task["results"]}
    oslo = call("GET", f"/v1/memories/{ids['Lives in Oslo']}")[1]
    assert (oslo["fact_key"], oslo["fact_value"], oslo["memory_bank"]) == ("location", "Oslo", "Personal")

    status, patched = call("PATCH", f"/v1/memories/{ids['Works at Brightwave']}", {"is_protected": True})
    assert status == 200 and patched["is_protected"] is True

    def listed(**query: str) -> list[str]:
        status, page = call("GET", "/v1/memories", query={"user_id": "alice", **query})
        assert status == 200, page
        return sorted(m["memory"] for m in page["results"])

    assert listed(memory_bank="Work") == ["Works at Brightwave"]
    assert listed(is_protected="true") == ["Works at Brightwave"]
    assert listed(is_protected="false") == ["Lives in Oslo"]
    assert listed(fact_key="location") == ["Lives in Oslo"]
    assert call("GET", "/v1/memories", query={"user_id": "alice", "memory_bank": "Nope"})[0] == 422

    status, moved = call("PATCH", f"/v1/memories/{ids['Lives in Oslo']}", {"memory_bank": "Events"})
    assert status == 200 and moved["memory_bank"] == "Events" and moved["version"] == 2
    assert listed(memory_bank="Events") == ["Lives in Oslo"]


def test_as_of_reads_show_the_versions_current_then(call: Any, stack: Stack) -> None:
    before = now()
    task = add_and_process(call, stack, "I live in Graz", answer=facts_json("Lives in Graz"))
    memory_id = task["results"][0]["id"]
    in_graz = now()
    assert call("PATCH", f"/v1/memories/{memory_id}", {"text": "Lives in Turin"})[0] == 200
    in_turin = now()
    assert call("DELETE", f"/v1/memories/{memory_id}")[0] == 200
    after = now()

    def as_of(moment: str) -> list[str]:
        status, page = call("GET", "/v1/memories", query={"user_id": "alice", "as_of": moment})
        assert status == 200, page
        return [m["memory"] for m in page["results"]]

    assert as_of(before) == []
    assert as_of(in_graz) == ["Lives in Graz"]
    assert as_of(in_turin) == ["Lives in Turin"]
    assert as_of(after) == []
    assert call("GET", "/v1/memories", query={"user_id": "alice"})[1]["results"] == []

    status, found = call("POST", "/v1/memories/search", {"query": "where", "user_id": "alice", "as_of": in_graz})
    assert status == 200 and [r["memory"] for r in found["results"]] == ["Lives in Graz"]
    assert found["results"][0]["valid_to"] is not None  # that version has been closed since
    status, found = call("POST", "/v1/memories/search", {"query": "where", "user_id": "alice"})
    assert found["results"] == []


def test_as_of_reads_are_scoped_to_the_tenant(call: Any, stack: Stack) -> None:
    add_and_process(call, stack, "I live in Graz", answer=facts_json("Lives in Graz"))
    moment = now()
    page = call("GET", "/v1/memories", query={"user_id": "alice", "as_of": moment}, tenant="globex")[1]
    assert page["results"] == []
    found = call("POST", "/v1/memories/search", {"query": "Graz", "user_id": "alice", "as_of": moment}, tenant="globex")
    assert found[1]["results"] == []


def test_history_says_why_a_memory_was_closed(call: Any, stack: Stack) -> None:
    task = add_and_process(call, stack, "I like tea", answer=facts_json("Likes tea"))
    memory_id = task["results"][0]["id"]
    stack.container.settings = stack.container.settings.model_copy(update={"prune_cap": 0})
    stack.container.rebuild("maintenance")  # the worker built it already, with the old policy
    stack.container.maintenance.run("prune", "acme", "alice")
    history = call("GET", f"/v1/memories/{memory_id}/history")[1]["results"]
    assert [(h["event"], h["actor"], h["note"]) for h in history] == [
        ("ADD", "extraction", None),
        ("DELETE", "maintenance", "pruned"),
    ]


def test_saving_a_memory_unchanged_makes_no_new_version(call: Any, stack: Stack) -> None:
    """A form saved without edits sends the memory's own values back: nothing changes, so no version."""
    task = add_and_process(call, stack, "I live in Lund", answer=facts_json("Lives in Lund"))
    memory_id = task["results"][0]["id"]
    status, memory = call("GET", f"/v1/memories/{memory_id}")
    assert status == 200
    same = {
        "text": memory["memory"],
        "importance": memory["importance"],
        "is_protected": memory["is_protected"],
        "memory_bank": memory["memory_bank"],
        "metadata": memory["metadata"],
    }

    status, saved = call("PATCH", f"/v1/memories/{memory_id}", same)

    assert status == 200 and saved["version"] == memory["version"], saved
    history = call("GET", f"/v1/memories/{memory_id}/history")[1]["results"]
    assert [h["event"] for h in history] == ["ADD"]
    status, changed = call("PATCH", f"/v1/memories/{memory_id}", {**same, "text": "Lives in Malmo"})
    assert status == 200 and changed["version"] == memory["version"] + 1
