"""The part of a request both clients share: headers, and turning one try's outcome into a Step."""

from __future__ import annotations

from typing import Any, TypeVar, cast

import httpx

from engram_client._calls import Call
from engram_client._retry import RetryPolicy, Step
from engram_client.errors import EngramConnectionError, EngramTimeoutError, error_for

T = TypeVar("T")
USER_AGENT = "engram-client-python/0.1"


def headers(api_key: str | None) -> dict[str, str]:
    found = {"user-agent": USER_AGENT, "accept": "application/json"}
    if api_key:
        found["x-api-key"] = api_key
    return found


def body_of(response: httpx.Response) -> Any:
    if not response.content:
        return None
    try:
        return response.json()
    except ValueError:
        return response.text


def settle(
    policy: RetryPolicy,
    call: Call[Any],
    attempt: int,
    response: httpx.Response | None = None,
    error: httpx.TransportError | None = None,
) -> Step:
    can_retry = attempt < policy.attempts
    if error is not None:
        if can_retry and policy.retries_error(call.method, error):
            return Step(retry_in=policy.delay(attempt))
        kind = EngramTimeoutError if isinstance(error, httpx.TimeoutException) else EngramConnectionError
        return Step(error=kind(f"{call.method} {call.path}: {type(error).__name__}: {error}"))
    assert response is not None  # noqa: S101 - type narrowing: no error means a response
    if response.is_success:
        return Step(value=call.parse(body_of(response)))
    if can_retry and policy.retries_status(call.method, response.status_code):
        return Step(retry_in=policy.delay(attempt, response.headers.get("retry-after")))
    return Step(error=error_for(response.status_code, body_of(response)))


def outcome(step: Step, call: Call[T]) -> T:
    if step.error is not None:
        raise step.error
    return cast(T, step.value)


def check(response: httpx.Response) -> httpx.Response:
    """A direct request (a presigned upload or download): its error status as a typed error."""
    if not response.is_success:
        raise error_for(response.status_code, body_of(response))
    return response
