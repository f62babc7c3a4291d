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
        return Step(error=unreachable(call, error))
    assert response is not None  # noqa: S101 - type narrowing: no error means a response
    if response.is_success:
        return Step(value=call.parse(body_of(response)))
    # x-should-retry: false marks an answer trying again will not change (a setting the server lacks).
    retry = response.headers.get("x-should-retry", "").lower() != "false"
    if can_retry and retry and policy.retries_status(call.method, response.status_code):
        return Step(retry_in=policy.delay(attempt, response.headers.get("retry-after")))
    return Step(error=error_for(response.status_code, body_of(response), key_hint(response)))


def unreachable(call: Call[Any], error: httpx.TransportError) -> Exception:
    """The failure naming the URL tried and the setting that chooses it."""
    try:
        url = str(error.request.url)
    except RuntimeError:  # an error raised before the request was built has no request
        url = call.path
    reason = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    if isinstance(error, httpx.TimeoutException):
        return EngramTimeoutError(f"{call.method} {url} timed out ({reason})")
    return EngramConnectionError(
        f"cannot reach Engram at {url} ({reason}): is the server running? "
        "Set ENGRAM_URL (or url= / --url) to where it listens"
    )


def key_hint(response: httpx.Response) -> str | None:
    """What to do about a 401 / 403: the setting that gives the key, and whether one was sent."""
    if response.status_code not in (401, 403):
        return None
    if not response.request.headers.get("x-api-key"):
        return "no API key was sent: set ENGRAM_API_KEY (or api_key= / --api-key, or api_key in the config file)"
    url = response.request.url
    return f"the server at {url.scheme}://{url.netloc.decode()} refused the API key: check ENGRAM_API_KEY"


def outcome(step: Step, call: Call[T]) -> T:
    if step.error is not None:
        raise step.error
    return cast(T, step.value)


def check(response: httpx.Response) -> httpx.Response:
    """A direct request (a presigned upload or download): its error status as a typed error."""
    if not response.is_success:
        raise error_for(response.status_code, body_of(response))
    return response
