"""Translate errors of the openai client into domain errors (one place for the LLM and embedder)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from engram.domain.errors import EngramError, TransientError

T = TypeVar("T")

# Status codes the openai client itself retries: after its retries are spent they are still worth
# retrying later (SQS redelivery), so they become TransientError.
_RETRYABLE_STATUS = frozenset({408, 409, 429})


def call_openai(call: Callable[[], T], what: str) -> T:
    """Run one openai client call, translating its errors.

    openai is imported here rather than at module level: by the time a call is made the client
    module is loaded anyway, and importing this module stays free at cold start.
    """
    import openai

    try:
        return call()
    except openai.APIConnectionError as exc:  # includes APITimeoutError
        raise TransientError(f"{what}: cannot reach the OpenAI API: {exc}") from exc
    except openai.APIStatusError as exc:
        raise translate_status_error(exc, what) from exc
    except openai.OpenAIError as exc:
        # Response validation and other client-side failures: not fixed by retrying.
        raise EngramError(f"{what}: {type(exc).__name__}: {exc}") from exc


def translate_status_error(exc: Exception, what: str) -> EngramError:
    """An EngramError for an openai.APIStatusError (an HTTP error answer)."""
    status = getattr(exc, "status_code", 0)
    message = f"{what}: OpenAI API answered {status}: {error_message(exc)}"
    if status in _RETRYABLE_STATUS or status >= 500:
        return TransientError(message)
    # 400 bad request, 401 authentication, 403, 404 unknown model, 422: a configuration or request
    # problem that the same request will hit again.
    return EngramError(message)


def error_message(exc: Exception) -> str:
    """The server's own error message when the body carries one, else the exception text."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return str(inner["message"])
    return str(getattr(exc, "message", exc))
