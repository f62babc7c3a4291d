"""The one place that maps domain errors to HTTP statuses and bodies."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engram.domain.errors import (
    ConfigurationError,
    ConflictError,
    EngramError,
    IndexUnavailableError,
    LLMOutputError,
    NotFoundError,
    PayloadTooLargeError,
    TransientError,
    UnauthorizedError,
    ValidationError,
)

_STATUS: list[tuple[type[EngramError], int]] = [
    (PayloadTooLargeError, 413),  # before its base class ValidationError
    (ValidationError, 400),
    (NotFoundError, 404),
    (UnauthorizedError, 401),
    (ConflictError, 409),
    # Search needs the index; while it is down a search answers 503 saying so (adds still queue and wait).
    (IndexUnavailableError, 503),
    (TransientError, 503),
    # A feature this deployment has no setting for (the chat proxy without an LLM): the message names it.
    (ConfigurationError, 503),
    (LLMOutputError, 502),
]


def to_http(error: EngramError) -> tuple[int, dict[str, Any]]:
    for kind, status in _STATUS:
        if isinstance(error, kind):
            body: dict[str, Any] = {"error": type(error).__name__, "message": str(error)}
            if isinstance(error, ValidationError):
                body["field"] = error.field
            return status, body
    return 500, {"error": "InternalError", "message": "internal error"}


def validation_body(errors: Sequence[Any]) -> dict[str, Any]:
    """422 body naming each field at fault (its location path) with pydantic's message."""
    detail = []
    for err in errors:
        loc = [str(part) for part in err.get("loc", ())]
        field = ".".join(loc[1:] if loc[:1] in (["body"], ["query"], ["path"]) else loc) or "body"
        detail.append({"field": field, "loc": loc, "type": err.get("type"), "message": err.get("msg", "")})
    return {"error": "RequestValidationError", "message": "invalid request", "detail": detail}
