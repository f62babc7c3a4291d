"""LLM memory tools (engram_client.tools), against the real local stack (the example assistant loop, which
uses the chat proxy instead: test_local_chat_proxy.py)."""

from __future__ import annotations

import json
import uuid

import pytest

from engram_client import Engram
from engram_client.tools import MemoryTools, anthropic_tools, handle_tool_call, openai_tools
from tests.e2e.conftest import ACME_KEY
from tests.e2e.stack_process import StackProcess

pytestmark = pytest.mark.e2e
NAMES = ["fetch_memory", "save_memory", "update_memory", "forget_memory"]


def test_definitions_for_openai_and_anthropic_name_the_same_tools() -> None:
    assert [t["function"]["name"] for t in openai_tools()] == NAMES
    assert [t["name"] for t in anthropic_tools()] == NAMES
    for openai_tool, anthropic_tool in zip(openai_tools(), anthropic_tools(), strict=True):
        assert openai_tool["type"] == "function"
        assert openai_tool["function"]["parameters"] == anthropic_tool["input_schema"]
        assert anthropic_tool["input_schema"]["type"] == "object" and anthropic_tool["input_schema"]["required"]


def test_save_fetch_update_forget_through_the_dispatcher(stack: StackProcess) -> None:
    user = f"tools-{uuid.uuid4().hex[:8]}"
    with Engram(stack.url, ACME_KEY) as client:
        saved = json.loads(handle_tool_call("save_memory", '{"content": "Lives in Berlin"}', user, client))
        memory_id = saved["saved"][0]["id"]
        again = json.loads(handle_tool_call("save_memory", {"content": "Lives in Berlin"}, user, client))
        assert again == {"saved": [], "skipped_as_duplicate": 1}

        fetched = json.loads(handle_tool_call("fetch_memory", '{"query": "where does the user live"}', user, client))
        assert fetched["memories"][0] == {**fetched["memories"][0], "id": memory_id, "memory": "Lives in Berlin"}

        args = json.dumps({"memory_id": memory_id, "new_content": "Lives in Munich"})
        updated = json.loads(handle_tool_call("update_memory", args, user, client))
        assert updated == {"id": memory_id, "memory": "Lives in Munich", "version": 2}

        forgotten = json.loads(handle_tool_call("forget_memory", {"memory_id": memory_id}, user, client))
        assert forgotten == {"forgotten": memory_id}
        assert list(client.list(user)) == []


def test_bad_calls_answer_an_error_the_model_can_read(stack: StackProcess) -> None:
    user, other = f"tools-{uuid.uuid4().hex[:8]}", f"tools-{uuid.uuid4().hex[:8]}"
    with Engram(stack.url, ACME_KEY) as client:
        tools = MemoryTools(client)
        assert "'query'" in json.loads(tools.handle("fetch_memory", "{}", user))["error"]
        assert "unknown tool" in json.loads(tools.handle("remember_everything", "{}", user))["error"]
        assert "error" in json.loads(tools.handle("save_memory", "{not json", user))

        theirs = json.loads(tools.handle("save_memory", {"content": "Has a cat named Tom"}, other))["saved"][0]["id"]
        refused = json.loads(tools.handle("forget_memory", {"memory_id": theirs}, user))
        assert refused["status"] == 404
        assert client.get(theirs).valid_to is None  # another user's memory is untouched
