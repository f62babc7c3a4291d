"""A request whose body never arrives in full (Content-Length larger than what is sent) is answered 408
in the one error shape once ENGRAM_LOCAL_BODY_TIMEOUT_S has passed, instead of holding its connection
until the client gives up; the front keeps serving other requests meanwhile."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.e2e.stack_process import StackProcess
from tests.support.error_shape import check_shape

pytestmark = pytest.mark.e2e

KEY = "key-slow-body"
BODY_TIMEOUT_S = 1.0


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StackProcess]:
    data_dir: Path = tmp_path_factory.mktemp("body-timeout") / "data"
    process = StackProcess(data_dir, f"acme:{KEY}", {"ENGRAM_LOCAL_BODY_TIMEOUT_S": str(BODY_TIMEOUT_S)}).start()
    yield process
    process.stop()


def _answer(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (or the socket's timeout)."""
    received = b""
    while chunk := sock.recv(65536):
        received += chunk
    return received


def _slow_request(stack: StackProcess, head_extra: str = "") -> socket.socket:
    body = b'{"user_id": "alice", "messages": ['  # 34 bytes of the 1000 declared
    head = (
        "POST /v1/memories HTTP/1.1\r\n"
        f"Host: 127.0.0.1:{stack.port}\r\n"
        f"x-api-key: {KEY}\r\ncontent-type: application/json\r\n"
        f"Content-Length: 1000\r\n{head_extra}\r\n"
    )
    sock = socket.create_connection(("127.0.0.1", stack.port), timeout=15)
    sock.sendall(head.encode() + body)
    return sock


def test_a_body_shorter_than_declared_is_answered_408_in_the_error_shape(stack: StackProcess) -> None:
    began = time.monotonic()
    with _slow_request(stack) as sock:
        try:
            raw = _answer(sock)
        except TimeoutError:
            pytest.fail("no answer within 15 s: the front still waits for the rest of the body")
    waited = time.monotonic() - began

    head, _, body = raw.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408"), raw[:300]
    assert b"connection: close" in head.lower()  # the rest of the body may still come: not a new request
    payload = check_shape(408, body, "/v1/memories")
    assert payload["code"] == "RequestTimeoutError" and "ENGRAM_LOCAL_BODY_TIMEOUT_S" in payload["message"]
    assert BODY_TIMEOUT_S <= waited < BODY_TIMEOUT_S + 5, waited


def test_a_slow_body_does_not_hold_up_other_requests(stack: StackProcess) -> None:
    with _slow_request(stack):
        began = time.monotonic()
        health = httpx.get(stack.url + "/health", timeout=10)
        assert health.status_code == 200 and time.monotonic() - began < BODY_TIMEOUT_S


def test_a_body_sent_in_pieces_within_the_timeout_is_served(stack: StackProcess) -> None:
    body = b'{"user_id": "alice", "messages": [{"role": "user", "content": "I like tea"}]}'
    head = (
        "POST /v1/memories HTTP/1.1\r\n"
        f"Host: 127.0.0.1:{stack.port}\r\n"
        f"x-api-key: {KEY}\r\ncontent-type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", stack.port), timeout=15) as sock:
        sock.sendall(head.encode() + body[:20])
        time.sleep(BODY_TIMEOUT_S / 3)
        sock.sendall(body[20:])
        raw = _answer(sock)

    assert raw.startswith(b"HTTP/1.1 202"), raw[:300]
