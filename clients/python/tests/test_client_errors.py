"""The SDK's errors say what to fix: the setting that gives the key on a 401 / 403 (even from a server
whose answer does not say it), and the URL it tried with the setting that chooses it when nothing
answers; an answer marked `x-should-retry: false` is not retried."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from test_client_retry import Scripted

from engram_client import AsyncEngram, AuthenticationError, Engram, EngramConnectionError, RetryPolicy
from tests.e2e.stack_process import free_port

FAST = RetryPolicy(attempts=4, base_delay=0.001, max_delay=0.01)
GATEWAY_401 = {"message": "Unauthorized"}  # what API Gateway answers without a gateway response set
GATEWAY_403 = {"Message": "User is not authorized to access this resource with an explicit deny"}


@pytest.fixture
def scripted() -> Iterator[Any]:
    started: list[Scripted] = []

    def make(script: list[tuple[Any, ...]]) -> Scripted:
        started.append(Scripted(script, {}))  # type: ignore[arg-type]
        return started[-1]

    yield make
    for server in started:
        server.server.shutdown()
        server.server.server_close()


def test_a_401_without_a_key_names_engram_api_key(scripted: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ENGRAM_API_KEY", raising=False)
    monkeypatch.setenv("ENGRAM_CONFIG", "/nonexistent/engram.toml")
    server = scripted([(401, GATEWAY_401)])
    with Engram(server.url, retry=FAST) as client, pytest.raises(AuthenticationError) as missing:
        client.get("m1")
    assert "ENGRAM_API_KEY" in str(missing.value) and "no API key was sent" in str(missing.value)


def test_a_refused_key_names_engram_api_key_and_the_server(scripted: Any) -> None:
    server = scripted([(403, GATEWAY_403)])
    with Engram(server.url, "wrong", retry=FAST) as client, pytest.raises(AuthenticationError) as refused:
        client.get("m1")
    assert "ENGRAM_API_KEY" in str(refused.value) and server.url in str(refused.value)


def test_an_unreachable_server_names_the_url_tried_and_engram_url() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    with Engram(url, "k", retry=FAST) as client, pytest.raises(EngramConnectionError) as sync_error:
        client.get("m1")

    async def run() -> None:
        async with AsyncEngram(url, "k", retry=FAST) as client:
            await client.get("m1")

    with pytest.raises(EngramConnectionError) as async_error:
        asyncio.run(run())
    for error in (sync_error.value, async_error.value):
        assert f"{url}/v1/memories/m1" in str(error) and "ENGRAM_URL" in str(error), error


def test_an_answer_marked_not_to_retry_is_not_retried(scripted: Any) -> None:
    no_llm = {"error": "ConfigurationError", "message": "the chat proxy needs an LLM: set ENGRAM_OPENAI_API_KEY"}
    server = scripted([(503, no_llm, {"x-should-retry": "false"})] * 4)
    with Engram(server.url, "k", retry=FAST) as client, pytest.raises(Exception, match="ENGRAM_OPENAI_API_KEY"):
        client.get("m1")
    assert len(server.seen) == 1
