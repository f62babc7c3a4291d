"""The chat proxy's ChatModel port on an OpenAI client: bodies forwarded and answers relayed as sent."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

from engram.adapters.openai.errors import call_openai, error_message
from engram.domain.chat import UpstreamError, UpstreamReply
from engram.domain.errors import TransientError

if TYPE_CHECKING:
    from openai import OpenAI

T = TypeVar("T")


class OpenAIChat:
    def __init__(self, client: OpenAI) -> None:
        self._client = client

    def complete(self, payload: dict[str, Any]) -> UpstreamReply:
        model, messages, rest = _split(payload)
        raw = _relayed(
            lambda: self._client.chat.completions.with_raw_response.create(
                model=model, messages=messages, extra_body=rest
            )
        )
        response = raw.http_response
        return UpstreamReply(response.status_code, _json_object(response.content))

    def open_stream(self, payload: dict[str, Any]) -> Iterator[str]:
        model, messages, rest = _split(payload)
        rest.pop("stream", None)
        manager = self._client.chat.completions.with_streaming_response.create(
            model=model, messages=messages, stream=True, extra_body=rest
        )
        response = _relayed(manager.__enter__)  # sends the request: an error answer raises here
        return _lines(response, manager)


def _lines(response: Any, manager: Any) -> Iterator[str]:
    import httpx

    try:
        yield from response.iter_lines()
    except httpx.HTTPError as exc:  # the connection broke mid-answer
        raise TransientError(f"chat completion: the stream broke off: {exc}") from exc
    finally:
        manager.__exit__(None, None, None)


def _split(payload: dict[str, Any]) -> tuple[str, Any, dict[str, Any]]:
    rest = dict(payload)
    return str(rest.pop("model")), rest.pop("messages"), rest


def _relayed(call: Callable[[], T]) -> T:
    """The call's result; an error answer becomes UpstreamError with the server's own body, and
    connection failures TransientError (errors.call_openai)."""
    import openai

    def relay() -> T:
        try:
            return call()
        except openai.APIStatusError as exc:
            body = _json_object(exc.response.content) if exc.response is not None else {}
            if not isinstance(body.get("error"), dict):
                body = {"error": {"message": error_message(exc), "type": "upstream_error"}}
            raise UpstreamError(exc.status_code, body) from exc

    return call_openai(relay, "chat completion")


def _json_object(content: bytes) -> dict[str, Any]:
    try:
        value = json.loads(content)
    except (ValueError, UnicodeDecodeError):
        return {}
    return value if isinstance(value, dict) else {}
