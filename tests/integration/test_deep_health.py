"""GET /health stays open and cheap; GET /health?deep=true (with a key) checks each dependency."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from engram.domain.errors import TransientError
from tests.integration.stack import Stack
from tests.support.handlers import FakeContext, api_event, load_function

CHECKS = {"dynamodb", "sqs", "search_index", "embedder", "llm"}


@pytest.fixture
def health(stack: Stack) -> Any:
    """health(key, deep=True) -> (status, body) through the API function, as the gateway sends it
    (no authorizer on /health: no tenant in the context)."""
    api = load_function("api")

    def _call(key: str | None, deep: bool = True) -> tuple[int, Any]:
        event = api_event("GET", "/health", query={"deep": "true"} if deep else None, tenant=None)
        event["headers"] = {"x-api-key": key} if key else {}
        resp = api.lambda_handler(event, FakeContext())
        return resp["statusCode"], json.loads(resp["body"])

    return _call


@pytest.fixture
def key(stack: Stack) -> str:
    return stack.container.keys.create("acme")[1]


def test_plain_health_is_open_and_checks_nothing(health: Any) -> None:
    assert health(None, deep=False) == (200, {"status": "ok"})


@pytest.mark.parametrize("key", [None, "not-a-key"])
def test_deep_health_needs_a_valid_key(health: Any, key: str | None) -> None:
    status, body = health(key)
    assert status == 401 and body["error"] == "UnauthorizedError"


def test_deep_health_checks_every_dependency(health: Any, key: str) -> None:
    status, body = health(key)
    assert status == 200, body
    assert body["status"] == "ok" and body["down"] == []
    assert set(body["checks"]) == CHECKS
    assert all(c["ok"] and c["latency_ms"] >= 0 and "error" not in c for c in body["checks"].values())
    assert body["checks"]["llm"]["detail"].startswith("not configured")  # the offline extractor
    assert body["checks"]["embedder"]["detail"] == "hash-test"


class BrokenEmbedder:
    model_id, dimensions = "broken", 64

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        raise TransientError("embeddings: cannot reach the server")


class BrokenQueue:
    def pending(self) -> int:
        raise TransientError("cannot reach the queue")


def test_a_down_dependency_is_named_with_503(health: Any, key: str, stack: Stack) -> None:
    stack.container.embedder = BrokenEmbedder()
    stack.container.queue = BrokenQueue()
    status, body = health(key)
    assert status == 503
    assert body["status"] == "down" and body["down"] == ["embedder", "sqs"]
    assert "cannot reach the server" in body["checks"]["embedder"]["error"]
    assert body["checks"]["dynamodb"]["ok"] and body["checks"]["search_index"]["ok"]


class HangingLLM:
    def __init__(self) -> None:
        self.release = threading.Event()

    def ping(self) -> None:
        self.release.wait(30)


@pytest.fixture
def hanging_llm(stack: Stack) -> Iterator[HangingLLM]:
    llm = HangingLLM()
    stack.container.llm = llm
    stack.container.settings = stack.container.settings.model_copy(update={"health_timeout_s": 0.2})
    yield llm
    llm.release.set()


def test_a_check_that_does_not_answer_is_down_after_the_timeout(health: Any, key: str, hanging_llm: Any) -> None:
    status, body = health(key)
    # Only the LLM is sure to time out (the others answer in time unless the machine is very busy).
    assert status == 503 and "llm" in body["down"] and set(body["checks"]) == CHECKS
    assert body["checks"]["llm"]["error"] == "timed out after 0.2s"


def test_a_missing_table_is_dynamodb_down(health: Any, key: str, stack: Stack) -> None:
    stack.dynamodb.delete_table(TableName=stack.container.settings.memory_table)
    status, body = health(key)
    assert status == 503 and body["down"] == ["dynamodb"]
    assert stack.container.settings.memory_table in body["checks"]["dynamodb"]["error"]
