"""An add that waits uses the server's live events when it offers them: a real WebSocket server sends the
task's completion, the HTTP side is a mock, and the task is read once (not polled) after the event."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from websockets.sync.server import ServerConnection, serve

from engram_client import Engram

TASK_ID = "t-1"


class Backend:
    """The HTTP API as a mock: the task reads `processing` until the event has been sent."""

    def __init__(self) -> None:
        self.event_sent = threading.Event()
        self.task_reads = 0
        self.subscriptions: list[tuple[str, str | None]] = []

    def http(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            return httpx.Response(202, json={"task_id": TASK_ID, "status": "queued"})
        self.task_reads += 1
        status = "completed" if self.event_sent.is_set() else "processing"
        result = {"id": "m-1", "memory": "Lives in Berlin", "event": "ADD"}
        return httpx.Response(200, json={"task_id": TASK_ID, "status": status, "results": [result]})

    def events(self, connection: ServerConnection) -> None:
        request = connection.request
        assert request is not None
        self.subscriptions.append((request.path, request.headers.get("x-api-key")))
        for kind in ("memory_extraction_processing", "memory_extraction_completed"):
            self.event_sent.wait(0.2)  # after the client posted its add
            if kind.endswith("completed"):
                self.event_sent.set()
            connection.send(json.dumps({"type": kind, "task_id": TASK_ID, "user_id": "alice", "facts_count": 1}))
        connection.recv()  # until the client closes


@pytest.fixture
def backend() -> Iterator[tuple[Backend, str]]:
    found = Backend()
    with serve(found.events, "127.0.0.1", 0) as server:
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        yield found, f"http://127.0.0.1:{server.socket.getsockname()[1]}"
        server.shutdown()


def test_add_waits_on_the_completed_event_then_reads_the_task_once(backend: Any) -> None:
    found, url = backend
    with Engram(url, "key-1", transport=httpx.MockTransport(found.http)) as client:
        task = client.add("I live in Berlin", user_id="alice")
    assert task.status == "completed" and task.results[0].memory == "Lives in Berlin"
    assert found.task_reads == 1  # no polling: the event said when
    assert found.subscriptions == [("/v1/events?user_id=alice", "key-1")]


def test_without_events_the_add_polls(backend: Any) -> None:
    found, url = backend
    found.event_sent.set()  # the task is done at once
    with Engram(url, "key-1", transport=httpx.MockTransport(found.http), events=False) as client:
        assert client.add("I live in Berlin", user_id="alice").status == "completed"
    assert found.subscriptions == []
