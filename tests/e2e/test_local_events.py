"""Task events over WebSocket from the local stack, with a real client (the `websockets` package)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import ClientConnection, connect

from tests.e2e.conftest import ACME_KEY, GLOBEX_KEY
from tests.e2e.stack_process import Api, StackProcess

pytestmark = pytest.mark.e2e


@contextmanager
def events_socket(stack: StackProcess, key: str, query: str = "") -> Iterator[ClientConnection]:
    url = stack.url.replace("http://", "ws://") + "/v1/events" + query
    with connect(url, additional_headers={"x-api-key": key}, open_timeout=10) as ws:
        yield ws


def events_until(ws: ClientConnection, last: str, timeout_s: float = 60) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    while not events or events[-1]["type"] != last:
        events.append(json.loads(ws.recv(timeout=timeout_s)))
    return events


def test_an_add_streams_queued_processing_completed_to_its_tenant_only(stack: StackProcess, acme: Api) -> None:
    user = f"alice-{uuid.uuid4().hex[:8]}"
    with events_socket(stack, ACME_KEY, f"?user_id={user}") as mine, events_socket(stack, GLOBEX_KEY) as other:
        task_id = acme.add(user, "Hi, I'm Alice. I live in Berlin and I love pizza.")
        events = events_until(mine, "memory_extraction_completed")

        assert [e["type"] for e in events] == [
            "memory_extraction_queued",
            "memory_extraction_processing",
            "memory_extraction_completed",
        ]
        assert {e["task_id"] for e in events} == {task_id}
        assert {e["user_id"] for e in events} == {user}
        task = acme.wait(task_id)
        done = events[-1]
        assert done["status"] == "completed" and done["attempts"] == 1
        assert done["facts_count"] == len(task["results"]) > 0
        assert [r["memory"] for r in done["results"]] == [r["memory"] for r in task["results"]]
        with pytest.raises(TimeoutError):
            other.recv(timeout=1.0)  # another tenant's socket hears nothing of it


def test_subscribe_narrows_a_socket_to_one_user(stack: StackProcess, acme: Api) -> None:
    user, someone_else = (f"{name}-{uuid.uuid4().hex[:8]}" for name in ("bob", "carol"))
    with events_socket(stack, ACME_KEY, "?api_key=ignored-when-header-set") as ws:
        ws.send(json.dumps({"action": "subscribe", "user_id": user}))
        assert json.loads(ws.recv(timeout=10)) == {"type": "subscribed", "user_id": user}
        acme.add(someone_else, "I work at Initech as an engineer.")
        task_id = acme.add(user, "I live in Paris.")
        events = events_until(ws, "memory_extraction_completed")

    assert {e["user_id"] for e in events} == {user}
    assert {e["task_id"] for e in events} == {task_id}


def test_the_api_key_may_come_in_the_query(stack: StackProcess) -> None:
    url = stack.url.replace("http://", "ws://") + f"/v1/events?api_key={ACME_KEY}"
    with connect(url, open_timeout=10) as ws:
        ws.send(json.dumps({"action": "subscribe"}))
        assert json.loads(ws.recv(timeout=10)) == {"type": "subscribed", "user_id": None}


def test_a_socket_without_a_valid_key_is_refused(stack: StackProcess) -> None:
    with pytest.raises(InvalidStatus) as refused, events_socket(stack, "not-a-key"):
        pass
    assert refused.value.response.status_code == 401
