"""The SDK's retries against a real HTTP server that answers scripted statuses."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from engram_client import AsyncEngram, BadRequestError, Engram, EngramConnectionError, RetryPolicy, ServerError

FAST = RetryPolicy(attempts=4, base_delay=0.001, max_delay=0.01)
SEARCH_OK = {"results": [{"id": "m1", "memory": "Lives in Berlin", "user_id": "alice", "score": 0.9}]}
INVALID = {"error": "RequestValidationError", "detail": [{"field": "top_k", "message": "must be at most 100"}]}


def free_port() -> int:
    """A port nothing listens on (bound once, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Scripted:
    """Answers each request with the next (status, body) of its script, then 200 with `last`."""

    def __init__(self, script: list[tuple[int, Any]], last: Any) -> None:
        self.script, self.last, self.seen = list(script), last, []  # type: ignore[var-annotated]
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                self.rfile.read(length)
                outer.seen.append((self.command, self.path))
                status, body, *extra = outer.script.pop(0) if outer.script else (200, outer.last)
                data = json.dumps(body).encode()
                self.send_response(status)
                for name, value in (extra[0] if extra else {}).items():  # (status, body, headers)
                    self.send_header(name, value)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_DELETE = _answer

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"


@pytest.fixture
def server_factory() -> Iterator[Any]:
    started: list[Scripted] = []

    def make(script: list[tuple[int, Any]], last: Any = SEARCH_OK) -> Scripted:
        started.append(Scripted(script, last))
        return started[-1]

    yield make
    for server in started:
        server.server.shutdown()
        server.server.server_close()


def test_503_twice_then_200_is_retried(server_factory: Any) -> None:
    server = server_factory([(503, {"message": "busy"}), (503, {"message": "busy"})])
    with Engram(server.url, "k", retry=FAST) as client:
        hits = client.search("where", user_id="alice").results
    assert hits[0].memory == "Lives in Berlin"
    assert len(server.seen) == 3


def test_422_is_not_retried_and_names_the_field(server_factory: Any) -> None:
    server = server_factory([(422, INVALID)])
    with Engram(server.url, "k", retry=FAST) as client, pytest.raises(BadRequestError) as raised:
        client.search("where", user_id="alice", top_k=1000)
    assert raised.value.field == "top_k" and raised.value.status == 422
    assert len(server.seen) == 1


def test_a_post_is_not_repeated_after_a_500(server_factory: Any) -> None:
    server = server_factory([(500, {"error": "InternalError", "message": "internal error"})])
    with Engram(server.url, "k", retry=FAST) as client, pytest.raises(ServerError):
        client.add("I live in Berlin", user_id="alice", wait=False)
    assert len(server.seen) == 1  # the input may have been stored: no second copy


def test_a_read_gives_up_after_its_attempts(server_factory: Any) -> None:
    server = server_factory([(500, {"message": "boom"})] * 10)
    with Engram(server.url, "k", retry=FAST) as client, pytest.raises(ServerError):
        client.get("m1")
    assert len(server.seen) == FAST.attempts


def test_connection_refused_is_retried_then_reported() -> None:
    with Engram(f"http://127.0.0.1:{free_port()}", "k", retry=FAST) as client, pytest.raises(EngramConnectionError):
        client.get("m1")


def test_async_client_retries_too(server_factory: Any) -> None:
    server = server_factory([(429, {"message": "slow down"}), (502, {"message": "Internal server error"})])

    async def run() -> str:
        async with AsyncEngram(server.url, "k", retry=FAST) as client:
            return (await client.search("where", user_id="alice")).results[0].memory

    assert asyncio.run(run()) == "Lives in Berlin"
    assert len(server.seen) == 3


def test_retry_after_is_honoured_within_the_cap() -> None:
    policy = RetryPolicy(max_delay=2.0)
    assert policy.delay(1, "1.5") == 1.5
    assert policy.delay(1, "60") == 2.0
    assert all(0 <= policy.delay(5) <= 2.0 for _ in range(50))
