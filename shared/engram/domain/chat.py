"""The chat proxy's request and its port to the model server (OpenAI chat completions, or compatible).

The request is OpenAI's: only what the proxy reads is declared; every other parameter (temperature,
tools, response_format, ...) is kept as sent and forwarded unchanged."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from engram.domain.errors import EngramError
from engram.domain.limits import MAX_ID_CHARS, MAX_MESSAGES, ScopeId

USER_HEADER = "x-engram-user-id"


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow")  # name, tool_calls, tool_call_id, ...: forwarded

    role: str = Field(min_length=1, max_length=64)
    # A string, or OpenAI's content parts ([{"type": "text", "text": ...}, {"type": "image_url", ...}]);
    # None for an assistant message that only calls tools.
    content: str | list[dict[str, Any]] | None = None

    def text(self) -> str:
        """The message's words: the string, or its text parts joined."""
        if isinstance(self.content, str):
            return self.content
        parts = self.content or []
        return "\n".join(str(p.get("text", "")) for p in parts if p.get("type") == "text" and p.get("text"))


class ChatRequest(BaseModel):
    model_config = ConfigDict(extra="allow")

    messages: list[ChatMessage] = Field(min_length=1, max_length=MAX_MESSAGES)
    model: str | None = Field(default=None, min_length=1, max_length=MAX_ID_CHARS)  # None: ENGRAM_LLM_MODEL
    user: ScopeId | None = None  # whose memories (or the x-engram-user-id header)
    stream: bool = False

    def last_user_text(self) -> str:
        """What the user said last ("" when no user message has words)."""
        for message in reversed(self.messages):
            if message.role == "user" and (text := message.text().strip()):
                return text
        return ""

    def payload(self, messages: list[dict[str, Any]], model: str) -> dict[str, Any]:
        """The body forwarded to the model server: as sent, with these messages and this model."""
        body = self.model_dump(mode="json", exclude_unset=True)
        return body | {"messages": messages, "model": model}


@dataclass(frozen=True)
class UpstreamReply:
    """The model server's answer, as it sent it."""

    status: int
    body: dict[str, Any]


class UpstreamError(EngramError):
    """The model server refused or failed the call: its status and error body, to relay."""

    def __init__(self, status: int, body: dict[str, Any]) -> None:
        super().__init__(f"the model server answered {status}")
        self.status = status
        self.body = body


class ChatModel(Protocol):
    def complete(self, payload: dict[str, Any]) -> UpstreamReply:
        """One chat completion (raises UpstreamError on an error answer)."""
        ...

    def open_stream(self, payload: dict[str, Any]) -> Iterator[str]:
        """A streamed chat completion, opened now (raises UpstreamError on an error answer): the
        server-sent event lines as received. Closing the iterator closes the connection."""
        ...
