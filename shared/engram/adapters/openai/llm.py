"""The LLM port on OpenAI chat completions (or any OpenAI-compatible server)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

from engram.adapters.openai.errors import call_openai, error_message
from engram.domain.errors import EngramError, LLMOutputError
from engram.domain.models import Usage
from engram.domain.steps import LLMReply

if TYPE_CHECKING:
    from openai import OpenAI
    from openai.types.chat import ChatCompletionMessageParam
    from openai.types.chat.completion_create_params import ResponseFormat

PING_TIMEOUT_S = 4.0


class OpenAILLM:
    """Chat completion constrained by a JSON schema (strict structured output), temperature 0.

    Many OpenAI-compatible servers accept only ``{"type": "json_object"}``: when the server rejects
    the json_schema format, the call is repeated once in JSON mode (with the schema spelled out
    in the system prompt) and this instance stays in JSON mode from then on.
    """

    def __init__(self, client: OpenAI, model: str, banned_tokens: Sequence[int] = ()) -> None:
        self._client = client
        self._model = model
        # OpenAI's logit_bias: -100 keeps a token out of the answer (the local model's line breaks).
        self._options: dict[str, Any] = {}
        if banned_tokens:
            self._options["logit_bias"] = {str(token): -100 for token in banned_tokens}
        self._json_schema_supported = True

    def ping(self) -> None:
        # Listing models costs no tokens and proves the server answers and takes the key; short
        # timeout and no retries: the deep health check wants an answer, not perseverance.
        client = self._client.with_options(timeout=PING_TIMEOUT_S, max_retries=0)
        call_openai(lambda: client.models.list(), "list models")

    def complete_json(self, system: str, user: str, schema: dict[str, Any], schema_name: str) -> LLMReply:
        if self._json_schema_supported:
            try:
                return self._complete(system, user, _json_schema_format(schema, schema_name))
            except _ResponseFormatRejectedError:
                self._json_schema_supported = False
        try:
            return self._complete(_with_schema(system, schema), user, {"type": "json_object"})
        except _ResponseFormatRejectedError as exc:
            raise EngramError(f"chat completion: the server rejects JSON output modes: {exc}") from exc

    def _complete(self, system: str, user: str, response_format: dict[str, Any]) -> LLMReply:
        import openai

        messages: list[ChatCompletionMessageParam] = [
            {"role": "system", "content": system},
            {"role": "user", "content": user},
        ]

        def create() -> Any:
            try:
                return self._client.chat.completions.create(
                    model=self._model,
                    messages=messages,
                    response_format=cast("ResponseFormat", response_format),
                    temperature=0,
                    **self._options,
                )
            except openai.BadRequestError as exc:
                if _rejects_response_format(exc):
                    raise _ResponseFormatRejectedError(error_message(exc)) from exc
                raise

        response = call_openai(create, "chat completion")
        if not response.choices:
            raise LLMOutputError("chat completion: the answer has no choices")
        message = response.choices[0].message
        content = message.content
        if not content:
            refusal = getattr(message, "refusal", None)
            raise LLMOutputError(f"chat completion: no content ({refusal or 'empty answer'})")
        return LLMReply(content=content, usage=_usage(response))


class _ResponseFormatRejectedError(Exception):
    """The server does not support the response_format sent (internal to this module)."""


def _json_schema_format(schema: dict[str, Any], schema_name: str) -> dict[str, Any]:
    return {
        "type": "json_schema",
        "json_schema": {"name": schema_name, "schema": schema, "strict": True},
    }


def _with_schema(system: str, schema: dict[str, Any]) -> str:
    # JSON mode does not enforce a shape (and OpenAI requires the word "JSON" in the prompt).
    return (
        f"{system}\n\nAnswer with one JSON object that conforms to this JSON schema:\n"
        f"{json.dumps(schema, separators=(',', ':'))}"
    )


def _rejects_response_format(exc: Exception) -> bool:
    text = f"{error_message(exc)} {getattr(exc, 'param', '') or ''}".lower()
    if "invalid schema" in text:
        # OpenAI's answer to a schema that breaks strict mode's rules: our bug, not a missing feature.
        return False
    return any(word in text for word in ("response_format", "json_schema", "response format"))


def _usage(response: Any) -> Usage:
    usage = getattr(response, "usage", None)
    return Usage(
        llm_calls=1,
        prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
        completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
    )
