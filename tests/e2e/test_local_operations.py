"""Deep health and usage through `make run`'s stack (real gateway front, moto, ONNX embedder)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

import pytest

from tests.e2e.stack_process import Api, StackProcess

pytestmark = pytest.mark.e2e


def test_health_is_open_and_deep_health_needs_a_key(stack: StackProcess, acme: Api) -> None:
    anonymous = Api(stack, None)
    assert anonymous.request("GET", "/health").json() == {"status": "ok"}
    assert anonymous.request("GET", "/health", params={"deep": "true"}).status_code == 401
    assert Api(stack, "not-a-key").request("GET", "/health", params={"deep": "true"}).status_code == 401

    response = acme.request("GET", "/health", params={"deep": "true"})
    assert response.status_code == 200, response.text
    report = response.json()
    assert report["status"] == "ok" and report["down"] == []
    assert set(report["checks"]) == {"dynamodb", "sqs", "search_index", "embedder", "llm"}
    assert all(check["ok"] for check in report["checks"].values())


def today_usage(api: Api) -> dict[str, Any]:
    today = datetime.now(UTC).date().isoformat()
    response = api.request("GET", "/v1/usage", params={"from": today, "to": today})
    assert response.status_code == 200, response.text
    (day,) = response.json()["days"]
    return dict(day)


def test_usage_counts_adds_searches_and_memories(acme: Api) -> None:
    user = f"dana-{uuid.uuid4().hex[:8]}"
    before = today_usage(acme)
    for text in ("I live in Lisbon.", "I love surfing."):
        acme.wait(acme.add(user, text))
    for query in ("where do I live", "hobbies", "surf"):
        acme.search(user, query)
    after = today_usage(acme)
    assert after["adds"] - before["adds"] == 2
    assert after["searches"] - before["searches"] == 3
    assert after["memories_stored"] - before["memories_stored"] == len(acme.memories(user))
