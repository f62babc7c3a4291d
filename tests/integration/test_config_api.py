"""GET/PUT /v1/config through the API handler, stored in DynamoDB (moto): the tenant's memory policy,
applied by the worker to the tenant's adds and to no other tenant's."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engram.domain.policy import MAX_PROMPT_CHARS
from tests.integration.stack import Stack

CONFIG = {
    "instructions": "Never store health details.",
    "include": [],
    "exclude": ["Health"],
    "examples": {},
    "prompts": {"extraction": None, "reconcile": None, "graph": None},
    "redact": [],
    "stored_instructions": "flag",
    "inject_instructions": False,
    "events_include_text": False,
}


def facts(*items: tuple[str, str]) -> str:
    return json.dumps({"facts": [{"text": t, "memory_bank": b, "importance": 0.5} for t, b in items]})


def test_a_put_config_is_read_back_and_shapes_the_tenants_adds_only(call: Any, stack: Stack) -> None:
    assert call("GET", "/v1/config") == (200, {**CONFIG, "instructions": "", "exclude": []})
    assert call("PUT", "/v1/config", CONFIG) == (200, {**CONFIG, "warnings": []})  # an LLM reads the instructions
    assert call("GET", "/v1/config") == (200, CONFIG)
    assert call("GET", "/v1/config", tenant="globex")[1]["exclude"] == []

    body = {"messages": [{"role": "user", "content": "Peanuts make my throat swell up, and I live in Berlin"}]}
    task_id = call("POST", "/v1/memories", {**body, "user_id": "alice"})[1]["task_id"]
    stack.llm.answers.append(facts(("Allergic to peanuts", "Health"), ("Lives in Berlin", "Personal")))
    stack.container.worker.process("acme", task_id)
    status, task = call("GET", f"/v1/tasks/{task_id}")
    assert status == 200 and task["status"] == "completed"
    # the clause is cut by its meaning before the LLM reads the message; the (scripted) LLM's fact after it
    assert task["skipped"] == [
        {"text": "a clause of 31 characters", "reason": "excluded: Health"},
        {"text": "a fact of 19 characters", "reason": "excluded: Health"},
    ]
    assert task["counts"]["excluded"] == 2
    assert "peanut" not in stack.llm.calls[-1]["user"].lower()
    assert "Never store health details." in stack.llm.calls[-1]["system"]
    listed = call("GET", "/v1/memories", query={"user_id": "alice"})[1]["results"]
    assert [m["memory"] for m in listed] == ["Lives in Berlin"]

    # another tenant, the same words: its own (empty) policy
    other = call("POST", "/v1/memories", {**body, "user_id": "alice"}, tenant="globex")[1]["task_id"]
    stack.llm.answers.append(facts(("Allergic to peanuts", "Health"), ("Lives in Berlin", "Personal")))
    stack.container.worker.process("globex", other)
    assert call("GET", f"/v1/tasks/{other}", tenant="globex")[1]["skipped"] == []
    assert "Never store health details." not in stack.llm.calls[-1]["system"]
    theirs = call("GET", "/v1/memories", query={"user_id": "alice"}, tenant="globex")[1]["results"]
    assert sorted(m["memory"] for m in theirs) == ["Allergic to peanuts", "Lives in Berlin"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"prompts": {"extraction": "List what the user said."}}, "prompts.extraction"),
        ({"prompts": {"reconcile": 'JSON {"memory": []} with ADD or NONE'}}, "prompts.reconcile"),
        ({"prompts": {"graph": "x" * (MAX_PROMPT_CHARS + 1)}}, "prompts.graph"),
        ({"instructions": "x" * 4001}, "instructions"),
        ({"exclude": ["Health"] * 51}, "exclude"),
        ({"include": ["y" * 101]}, "include.0"),
        ({"excludes": ["Health"]}, "excludes"),
    ],
)
def test_a_bad_config_is_a_422_naming_the_field_and_stores_nothing(call: Any, body: dict[str, Any], field: str) -> None:
    status, answer = call("PUT", "/v1/config", body)
    assert status == 422 and field in [d["field"] for d in answer["detail"]]
    assert call("GET", "/v1/config")[1]["prompts"] == {"extraction": None, "reconcile": None, "graph": None}


def test_an_adds_policy_fields_are_validated_too(call: Any) -> None:
    body = {"messages": [{"role": "user", "content": "hi"}], "user_id": "alice", "exclude": ["x" * 101]}
    status, answer = call("POST", "/v1/memories", body)
    assert status == 422 and answer["detail"][0]["field"] == "exclude.0"
