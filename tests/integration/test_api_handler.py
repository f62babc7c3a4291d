"""The API function end to end through its Lambda handler, on moto (DynamoDB, S3, SQS)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engram.domain.models import AddRequest, Message, Scope
from tests.fakes import facts_json
from tests.integration.stack import Stack


def remember(stack: Stack, tenant: str, user: str, *texts: str) -> list[str]:
    """Put memories in directly through the pipeline (the extraction path is tested elsewhere)."""
    stack.llm.answers.append(facts_json(*texts))
    request = AddRequest(messages=[Message(role="user", content=" ".join(texts))], user_id=user)
    outcome = stack.container.pipeline.run(Scope(tenant_id=tenant, user_id=user), request, f"seed-{user}-{texts[0]}")
    return [r.id for r in outcome.results]


def test_health_needs_no_key(call: Any) -> None:
    assert call("GET", "/health", tenant=None) == (200, {"status": "ok"})


def test_add_stores_the_input_and_queues_it_before_answering_202(call: Any, stack: Stack) -> None:
    status, body = call(
        "POST", "/v1/memories", {"messages": [{"role": "user", "content": "I love jazz"}], "user_id": "alice"}
    )
    assert status == 202 and body["status"] == "queued"
    task = stack.container.tasks.get("acme", body["task_id"])
    assert task.request is not None and task.request.messages[0].content == "I love jazz"
    (message,) = stack.queued()
    assert message["Attributes"]["MessageGroupId"] == "acme#alice"
    assert json.loads(message["Body"])["task_id"] == body["task_id"]
    assert call("GET", f"/v1/tasks/{body['task_id']}")[1]["status"] == "queued"


def test_large_input_goes_to_the_blob_store(call: Any, stack: Stack) -> None:
    stack.container.memories.max_inline_payload_bytes = 1000
    status, body = call(
        "POST", "/v1/memories", {"messages": [{"role": "user", "content": "x " * 2000}], "user_id": "alice"}
    )
    assert status == 202
    task = stack.container.tasks.get("acme", body["task_id"])
    assert task.request is None and task.payload_key
    assert AddRequest.model_validate_json(stack.container.blobs.get(task.payload_key)).user_id == "alice"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"messages": [{"role": "user", "content": "hi"}]}, "user_id"),
        ({"messages": [], "user_id": "alice"}, "messages"),
        ({"messages": [{"role": "robot", "content": "hi"}], "user_id": "alice"}, "role"),
        ({"messages": [{"role": "user", "content": "hi"}], "user_id": "alice", "infer": "maybe"}, "infer"),
        ({"messages": [{"role": "user", "content": "hi"}], "user_id": "alice", "colour": 1}, "colour"),
        (
            {"messages": [{"role": "user", "content": "hi", "created_at": "2023-05-08T13:56:00"}], "user_id": "a"},
            "messages.0.created_at",
        ),
        (
            {"messages": [{"role": "user", "content": "a"}, {"role": "user", "content": "b", "created_at": "soon"}]}
            | {"user_id": "alice"},
            "messages.1.created_at",
        ),
        (
            {"messages": [{"role": "user", "content": "hi", "created_at": "2999-01-01T00:00:00Z"}], "user_id": "a"},
            "messages.0.created_at",
        ),
    ],
)
def test_bad_add_input_is_a_4xx_naming_the_field(call: Any, body: dict[str, Any], field: str) -> None:
    status, answer = call("POST", "/v1/memories", body)
    assert 400 <= status < 500
    assert field in json.dumps(answer)


def test_malformed_json_is_a_4xx(call: Any) -> None:
    status, _ = call("POST", "/v1/memories", raw_body="{not json")
    assert 400 <= status < 500


def test_missing_tenant_context_is_401(call: Any) -> None:
    assert call("GET", "/v1/memories", query={"user_id": "alice"}, tenant=None)[0] == 401


def test_search_list_get_patch_history_delete(call: Any, stack: Stack) -> None:
    remember(stack, "acme", "alice", "Lives in Berlin", "Loves pizza", "Has a dog named Max")
    status, found = call(
        "POST", "/v1/memories/search", {"query": "where does she live", "user_id": "alice", "top_k": 2}
    )
    assert status == 200 and len(found["results"]) <= 2
    status, found = call("POST", "/v1/memories/search", {"query": "Berlin", "user_id": "alice"})
    top = found["results"][0]
    assert top["memory"] == "Lives in Berlin" and top["score"] > 0 and top["user_id"] == "alice"

    status, listed = call("GET", "/v1/memories", query={"user_id": "alice", "limit": "2"})
    assert status == 200 and len(listed["results"]) == 2 and listed["next_cursor"]
    status, rest = call("GET", "/v1/memories", query={"user_id": "alice", "cursor": listed["next_cursor"]})
    assert {m["memory"] for m in listed["results"] + rest["results"]} == {
        "Lives in Berlin",
        "Loves pizza",
        "Has a dog named Max",
    }

    memory_id = top["id"]
    status, patched = call("PATCH", f"/v1/memories/{memory_id}", {"text": "Lives in Munich"})
    assert status == 200 and patched["memory"] == "Lives in Munich" and patched["version"] == 2
    assert call("GET", f"/v1/memories/{memory_id}")[1]["memory"] == "Lives in Munich"
    status, history = call("GET", f"/v1/memories/{memory_id}/history")
    assert [(h["event"], h["old_memory"], h["new_memory"]) for h in history["results"]] == [
        ("ADD", None, "Lives in Berlin"),
        ("UPDATE", "Lives in Berlin", "Lives in Munich"),
    ]
    found = call("POST", "/v1/memories/search", {"query": "Munich", "user_id": "alice"})[1]
    assert found["results"][0]["id"] == memory_id

    assert call("DELETE", f"/v1/memories/{memory_id}")[0] == 200
    assert call("GET", f"/v1/memories/{memory_id}")[0] == 404
    assert call("GET", f"/v1/memories/{memory_id}/history")[1]["results"][-1]["event"] == "DELETE"
    found = call("POST", "/v1/memories/search", {"query": "Munich", "user_id": "alice"})[1]
    assert memory_id not in [r["id"] for r in found["results"]]

    status, accepted = call("DELETE", "/v1/memories", query={"user_id": "alice"})
    assert status == 202 and accepted["status"] == "queued"  # tests/integration/test_delete_all.py runs it


def test_another_tenant_sees_nothing(call: Any, stack: Stack) -> None:
    (memory_id,) = remember(stack, "acme", "alice", "Allergic to peanuts")
    for method, path, body in [
        ("GET", f"/v1/memories/{memory_id}", None),
        ("PATCH", f"/v1/memories/{memory_id}", {"text": "hacked"}),
        ("DELETE", f"/v1/memories/{memory_id}", None),
        ("GET", f"/v1/memories/{memory_id}/history", None),
    ]:
        status, answer = call(method, path, body, tenant="globex")
        assert status == 404 and "peanuts" not in json.dumps(answer)
    found = call("POST", "/v1/memories/search", {"query": "peanuts", "user_id": "alice"}, tenant="globex")[1]
    assert found["results"] == []
    assert call("GET", "/v1/memories", query={"user_id": "alice"}, tenant="globex")[1]["results"] == []
    assert call("GET", f"/v1/memories/{memory_id}")[1]["memory"] == "Allergic to peanuts"


def test_unknown_ids_are_404_not_500(call: Any) -> None:
    assert call("GET", "/v1/tasks/nope")[0] == 404
    assert call("GET", "/v1/memories/nope")[0] == 404
    assert call("PATCH", "/v1/memories/nope", {"text": "x"})[0] == 404


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/v1/memories/search", {"user_id": "alice"}, "query"),
        ("/v1/memories/search", {"query": "x", "user_id": "alice", "top_k": 0}, "top_k"),
        ("/v1/memories/search", {"query": "x", "user_id": "alice", "threshold": 2}, "threshold"),
        (
            "/v1/memories/search",
            {"query": "x", "user_id": "alice", "time_range": {"from": "2024-01-01T00:00:00Z", "to": "2023-01-01"}},
            "time_range",
        ),
        ("/v1/memories/search", {"query": "x", "user_id": "alice", "time_range": {"from": "2024-01-01"}}, "to"),
        ("/v1/memories/search", {"query": "x", "user_id": "alice", "now": "tomorrow"}, "now"),
    ],
)
def test_bad_search_input_names_the_field(call: Any, path: str, body: dict[str, Any], field: str) -> None:
    status, answer = call("POST", path, body)
    assert status == 422 and field in json.dumps(answer)


def test_patch_needs_something_to_change(call: Any, stack: Stack) -> None:
    (memory_id,) = remember(stack, "acme", "alice", "Likes tea")
    status, answer = call("PATCH", f"/v1/memories/{memory_id}", {})
    assert status == 422 and "text" in json.dumps(answer)


@pytest.mark.parametrize("value", [7, -0.5, 1.0001, float("inf")])
def test_patch_importance_outside_0_to_1_is_refused_naming_the_field(call: Any, stack: Stack, value: float) -> None:
    (memory_id,) = remember(stack, "acme", "alice", "Likes tea")
    status, answer = call("PATCH", f"/v1/memories/{memory_id}", {"importance": value})
    assert status == 422 and "importance" in json.dumps(answer)
    assert call("GET", f"/v1/memories/{memory_id}")[1]["importance"] == 0.5  # unchanged
    assert call("PATCH", f"/v1/memories/{memory_id}", {"importance": 1})[1]["importance"] == 1.0


def test_list_requires_user_id(call: Any) -> None:
    status, answer = call("GET", "/v1/memories")
    assert status == 422 and "user_id" in json.dumps(answer)


def test_openapi_and_docs(call: Any) -> None:
    status, spec = call("GET", "/openapi.json", tenant=None)
    assert status == 200 and "/v1/memories/search" in spec["paths"]
    status, page = call("GET", "/docs", tenant=None)
    assert status == 200 and "swagger" in str(page).lower()
