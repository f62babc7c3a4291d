"""Memory tools for a model: fetch, save, update and forget, as JSON-schema tool definitions for OpenAI
function calling and Anthropic tool use, and one dispatcher that runs a call through the SDK.

The user is never a tool argument: the host passes `user_id`, and update/forget refuse a memory that
belongs to another user, so a model cannot reach past the conversation it serves."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from engram_client.client import Engram
from engram_client.errors import APIError, NotFoundError

TOOLS: list[dict[str, Any]] = [
    {
        "name": "fetch_memory",
        "description": "Search long-term memory for facts about the user relevant to a query. "
        "Call it before answering anything that may depend on what the user told you before.",
        "parameters": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "what to look for, in plain words"},
                "limit": {"type": "integer", "minimum": 1, "maximum": 20, "description": "at most this many (5)"},
            },
            "required": ["query"],
            "additionalProperties": False,
        },
    },
    {
        "name": "save_memory",
        "description": "Store one durable fact about the user (a preference, a plan, a detail of their life), "
        "written as a short self-contained sentence. Near-duplicates of what is stored are skipped.",
        "parameters": {
            "type": "object",
            "properties": {
                "content": {"type": "string", "description": "the fact, e.g. 'Lives in Berlin'"},
                "metadata": {"type": "object", "description": "optional labels stored with it"},
            },
            "required": ["content"],
            "additionalProperties": False,
        },
    },
    {
        "name": "update_memory",
        "description": "Correct a stored fact that changed or was wrong; give its id (from fetch_memory) "
        "and the full new text. The old version stays in the memory's history.",
        "parameters": {
            "type": "object",
            "properties": {
                "memory_id": {"type": "string", "description": "id of the memory, from fetch_memory"},
                "new_content": {"type": "string", "description": "the corrected fact, complete"},
            },
            "required": ["memory_id", "new_content"],
            "additionalProperties": False,
        },
    },
    {
        "name": "forget_memory",
        "description": "Forget a stored fact the user asked you to forget or that is no longer true.",
        "parameters": {
            "type": "object",
            "properties": {"memory_id": {"type": "string", "description": "id of the memory, from fetch_memory"}},
            "required": ["memory_id"],
            "additionalProperties": False,
        },
    },
]
TOOL_NAMES = frozenset(t["name"] for t in TOOLS)


def openai_tools() -> list[dict[str, Any]]:
    """For `tools=` of OpenAI chat completions (and compatible servers)."""
    return [{"type": "function", "function": dict(tool)} for tool in TOOLS]


def anthropic_tools() -> list[dict[str, Any]]:
    """For `tools=` of Anthropic's messages API."""
    return [{"name": t["name"], "description": t["description"], "input_schema": t["parameters"]} for t in TOOLS]


class ToolArgumentError(ValueError):
    """The model's arguments do not fit the tool's schema; the message names the argument."""


def _text(arguments: Mapping[str, Any], name: str) -> str:
    value = arguments.get(name)
    if not isinstance(value, str) or not value.strip():
        raise ToolArgumentError(f"'{name}' must be a non-empty string")
    return value


@dataclass
class MemoryTools:
    """Runs tool calls for one deployment; `handle` answers a JSON string to give back to the model."""

    client: Engram
    _handlers: dict[str, Callable[[Mapping[str, Any], str], Any]] = field(init=False)

    def __post_init__(self) -> None:
        self._handlers = {
            "fetch_memory": self.fetch,
            "save_memory": self.save,
            "update_memory": self.update,
            "forget_memory": self.forget,
        }

    def handle(self, name: str, arguments: str | Mapping[str, Any] | None, user_id: str) -> str:
        """Errors (unknown tool, bad arguments, a memory not found) are answered as `{"error": ...}` so the
        model can correct itself; a server or connection failure is raised to the host."""
        try:
            parsed = json.loads(arguments) if isinstance(arguments, str) else dict(arguments or {})
            if not isinstance(parsed, dict):
                raise ToolArgumentError("arguments must be a JSON object")
            handler = self._handlers.get(name)
            if handler is None:
                raise ToolArgumentError(f"unknown tool {name!r}; the tools are {', '.join(sorted(TOOL_NAMES))}")
            return json.dumps(handler(parsed, user_id), ensure_ascii=False)
        except (ToolArgumentError, json.JSONDecodeError) as error:
            return json.dumps({"error": f"{name}: {error}"})
        except APIError as error:
            if error.status >= 500:
                raise
            return json.dumps({"error": f"{name}: {error.message}", "status": error.status})

    def fetch(self, arguments: Mapping[str, Any], user_id: str) -> Any:
        limit = arguments.get("limit", 5)
        if not isinstance(limit, int) or not 1 <= limit <= 20:
            raise ToolArgumentError("'limit' must be an integer from 1 to 20")
        found = self.client.search(_text(arguments, "query"), user_id=user_id, top_k=limit)
        return {"memories": [{"id": m.id, "memory": m.memory, "score": m.score} for m in found.results]}

    def save(self, arguments: Mapping[str, Any], user_id: str) -> Any:
        metadata = arguments.get("metadata") or {}
        if not isinstance(metadata, dict):
            raise ToolArgumentError("'metadata' must be an object")
        task = self.client.add(_text(arguments, "content"), user_id=user_id, metadata=metadata, infer=False)
        saved = [{"id": r.id, "memory": r.memory} for r in task.results if r.event != "NONE"]
        return {"saved": saved, "skipped_as_duplicate": task.counts.get("NONE", 0)}

    def update(self, arguments: Mapping[str, Any], user_id: str) -> Any:
        memory_id = self._own(arguments, user_id)
        memory = self.client.update(memory_id, _text(arguments, "new_content"))
        return {"id": memory.id, "memory": memory.memory, "version": memory.version}

    def forget(self, arguments: Mapping[str, Any], user_id: str) -> Any:
        memory_id = self._own(arguments, user_id)
        self.client.delete(memory_id)
        return {"forgotten": memory_id}

    def _own(self, arguments: Mapping[str, Any], user_id: str) -> str:
        memory_id = _text(arguments, "memory_id")
        if self.client.get(memory_id).user_id != user_id:
            raise NotFoundError(404, f"no memory {memory_id} for this user")
        return memory_id


def handle_tool_call(
    name: str, arguments: str | Mapping[str, Any] | None, user_id: str, client: Engram | None = None
) -> str:
    """Run one tool call (through `client`, or one built from ENGRAM_URL / ENGRAM_API_KEY)."""
    if client is not None:
        return MemoryTools(client).handle(name, arguments, user_id)
    with Engram() as own:
        return MemoryTools(own).handle(name, arguments, user_id)


__all__ = ["TOOLS", "MemoryTools", "anthropic_tools", "handle_tool_call", "openai_tools"]
