"""Exceptions the SDK raises, one per kind of failure, built from the API's error bodies."""

from __future__ import annotations

from typing import Any


class EngramError(Exception):
    """Anything that went wrong talking to Engram."""


class EngramConnectionError(EngramError):
    """The server could not be reached (after the retries)."""


class EngramTimeoutError(EngramError):
    """A request, or a wait for a task, took longer than allowed."""


class APIError(EngramError):
    """The API answered an error status. `body` is its JSON (or text); `field` names the input at fault."""

    def __init__(self, status: int, message: str, body: Any = None, field: str | None = None) -> None:
        super().__init__(f"{status}: {message}" + (f" (field: {field})" if field else ""))
        self.status = status
        self.message = message
        self.body = body
        self.field = field


class BadRequestError(APIError):
    """400 or 422: the request is wrong; retrying it will not help."""


class AuthenticationError(APIError):
    """401 or 403: the API key is missing, wrong or revoked."""


class NotFoundError(APIError):
    """404: no such memory, task or attachment for this API key's tenant."""


class ConflictError(APIError):
    """409: a concurrent change won; read again and retry."""


class PayloadTooLargeError(BadRequestError):
    """413: over a size limit the message names."""


class RateLimitError(APIError):
    """429: still throttled after the retries."""


class ServerError(APIError):
    """5xx: still failing after the retries."""


class TaskFailedError(EngramError):
    """An add (or delete-all) task ended `failed`; `task` holds its error and attempts."""

    def __init__(self, task: Any) -> None:
        super().__init__(f"task {task.task_id} failed: {task.error}")
        self.task = task


_BY_STATUS: dict[int, type[APIError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: AuthenticationError,
    404: NotFoundError,
    409: ConflictError,
    413: PayloadTooLargeError,
    422: BadRequestError,
    429: RateLimitError,
}


def error_for(status: int, body: Any, hint: str | None = None) -> APIError:
    """The exception for an error answer. Bodies are `{"error", "message", "field"?, "detail"?}`
    (docs/errors.md); older servers' API Gateway answers carry only `message` (or `Message`). `hint`
    says what to do (which setting), added when the server's message does not say it already."""
    message, field = f"HTTP {status}", None
    if isinstance(body, dict):
        message = str(body.get("message") or body.get("Message") or body.get("error") or message)
        field = body.get("field")
        detail = body.get("detail")
        if isinstance(detail, list) and detail and isinstance(detail[0], dict):
            field = field or detail[0].get("field")
            message = "; ".join(f"{d.get('field')}: {d.get('message')}" for d in detail if isinstance(d, dict))
    elif isinstance(body, str) and body:
        message = body[:500]
    if hint and "ENGRAM_API_KEY" not in message:
        message = f"{message} ({hint})"
    kind = _BY_STATUS.get(status) or (ServerError if status >= 500 else APIError)
    return kind(status, message, body, field)
