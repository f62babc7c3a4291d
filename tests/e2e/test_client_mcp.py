"""`engram mcp` over stdio, driven by the official `mcp` client, against the real local stack."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.e2e.conftest import ACME_KEY
from tests.e2e.stack_process import StackProcess, free_port

pytestmark = pytest.mark.e2e
ENGRAM = str(Path(sys.executable).with_name("engram"))


def text_of(result: object) -> str:
    content = result.content  # type: ignore[attr-defined]
    return "".join(getattr(part, "text", "") for part in content)


def test_lists_tools_saves_then_fetches_over_stdio(stack: StackProcess) -> None:
    user = f"mcp-{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "ENGRAM_URL": stack.url, "ENGRAM_API_KEY": ACME_KEY}
    server = StdioServerParameters(command=ENGRAM, args=["mcp", "--user-id", user], env=env)

    async def session() -> None:
        async with Client(server, read_timeout_seconds=60) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert sorted(tools) == ["fetch_memory", "forget_memory", "save_memory", "update_memory"]
            assert tools["fetch_memory"].input_schema["required"] == ["query"]

            saved = json.loads(text_of(await client.call_tool("save_memory", {"content": "Lives in Berlin"})))
            memory_id = saved["saved"][0]["id"]
            found = json.loads(text_of(await client.call_tool("fetch_memory", {"query": "where does the user live"})))
            assert found["memories"][0]["id"] == memory_id
            assert found["memories"][0]["memory"] == "Lives in Berlin"

            resource = await client.read_resource("engram://memories")
            listed = json.loads(resource.contents[0].text)  # type: ignore[union-attr]
            assert [(m["id"], m["user_id"]) for m in listed] == [(memory_id, user)]

    asyncio.run(session())


def test_streamable_http_transport_serves_the_same_tools(stack: StackProcess) -> None:
    user = f"mcp-{uuid.uuid4().hex[:8]}"
    port = free_port()
    env = {**os.environ, "ENGRAM_URL": stack.url, "ENGRAM_API_KEY": ACME_KEY}
    command = [ENGRAM, "mcp", "--user-id", user, "--transport", "streamable-http", "--port", str(port)]
    server = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.2)

        async def session() -> None:
            async with Client(f"http://127.0.0.1:{port}/mcp", read_timeout_seconds=60) as client:
                names = sorted(tool.name for tool in (await client.list_tools()).tools)
                assert names == ["fetch_memory", "forget_memory", "save_memory", "update_memory"]
                await client.call_tool("save_memory", {"content": "Plays the cello"})
                found = json.loads(text_of(await client.call_tool("fetch_memory", {"query": "music instrument"})))
                assert found["memories"][0]["memory"] == "Plays the cello"

        asyncio.run(session())
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_a_tool_call_says_which_setting_is_missing_or_wrong(stack: StackProcess) -> None:
    """Started by a desktop host without ENGRAM_API_KEY, or with ENGRAM_URL pointing nowhere, the tool
    answer names the setting (and the URL tried), so the user reading the host's log knows what to fix."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAM_")}
    base["ENGRAM_CONFIG"] = "/nonexistent/engram.toml"
    nowhere = f"http://127.0.0.1:{free_port()}"

    async def answer(env: dict[str, str]) -> str:
        server = StdioServerParameters(command=ENGRAM, args=["mcp", "--user-id", "alice"], env={**base, **env})
        async with Client(server, read_timeout_seconds=60) as client:
            return text_of(await client.call_tool("fetch_memory", {"query": "where does the user live"}))

    keyless = asyncio.run(answer({"ENGRAM_URL": stack.url}))
    unreachable = asyncio.run(answer({"ENGRAM_URL": nowhere, "ENGRAM_API_KEY": ACME_KEY}))

    assert "ENGRAM_API_KEY" in keyless, keyless
    assert nowhere in unreachable and "ENGRAM_URL" in unreachable, unreachable
