"""The one place that maps errors to HTTP statuses and bodies: `{"error": <code>, "message": <sentence>,
"field"?: <path>, "detail"?: [...]}` (docs/errors.md); the chat proxy's in OpenAI's shape as well."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from aws_lambda_powertools.event_handler import Response, content_types

from engram.domain.errors import (
    ConfigurationError,
    ConflictError,
    EngramError,
    ForbiddenError,
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
    (ForbiddenError, 403),
    (ConflictError, 409),
    # Search needs the index; while it is down a search answers 503 saying so (adds still queue and wait).
    (IndexUnavailableError, 503),
    (TransientError, 503),
    # A feature this deployment has no setting for (the chat proxy without an LLM): the message names it.
    (ConfigurationError, 503),
    (LLMOutputError, 502),
]


# The answers given before any domain code runs: a body that cannot be read, or that the request schema refuses
# (http/screen.py, the framework's validation). `error` code -> status.
REQUEST_ERRORS: dict[str, int] = {
    "InvalidJSONError": 400,  # not JSON at all: not UTF-8, broken base64, a syntax error
    "RequestValidationError": 422,  # JSON that breaks the schema: every field at fault under `detail`
    "PayloadTooLargeError": 413,
    "UnsupportedMediaTypeError": 415,
}
INTERNAL_ERROR = "InternalError"


def status_of(kind: type[EngramError]) -> int:
    """The status an error of this class answers with (500 for one this table does not know)."""
    return next((status for cls, status in _STATUS if issubclass(kind, cls)), 500)


# A 503 that trying again will not change (a setting is missing): the openai SDKs honour this header
# instead of retrying every 5xx for seconds, and so do Engram's clients.
NO_RETRY = {"x-should-retry": "false"}


def retry_headers(error: EngramError) -> dict[str, str]:
    return NO_RETRY if isinstance(error, ConfigurationError) else {}


def to_http(error: EngramError) -> tuple[int, dict[str, Any]]:
    status = status_of(type(error))
    if status == 500:
        return 500, {"error": INTERNAL_ERROR, "message": "internal error"}
    body: dict[str, Any] = {"error": type(error).__name__, "message": str(error)}
    if isinstance(error, ValidationError):
        body["field"] = error.field
    return status, body


def validation_body(errors: Sequence[Any]) -> dict[str, Any]:
    """422 body naming each field at fault (its location path) with pydantic's message; `field` and
    `message` say the first, so a client showing only the message shows what to fix."""
    detail = []
    for err in errors:
        loc = [str(part) for part in err.get("loc", ())]
        field = ".".join(loc[1:] if loc[:1] in (["body"], ["query"], ["path"]) else loc) or "body"
        detail.append({"field": field, "loc": loc, "type": err.get("type"), "message": err.get("msg", "")})
    if not detail:
        return {"error": "RequestValidationError", "message": "invalid request", "detail": detail}
    first = detail[0]
    more = f" (and {len(detail) - 1} more in detail)" if len(detail) > 1 else ""
    message = f"{first['field']}: {first['message']}{more}"
    return {"error": "RequestValidationError", "message": message, "field": first["field"], "detail": detail}


def validation_response(errors: Sequence[Any], body: Any = None) -> tuple[int, dict[str, Any]]:
    """The framework's validation errors as an answer: a body that is not JSON at all is a 400 whose
    message says where it breaks (not a field: there is none yet); anything else the 422 list."""
    for err in errors:
        if err.get("type") == "json_invalid":
            return REQUEST_ERRORS["InvalidJSONError"], {"error": "InvalidJSONError", "message": _json_error(err, body)}
    return REQUEST_ERRORS["RequestValidationError"], validation_body(errors)


def _json_error(err: dict[str, Any], body: Any) -> str:
    reason = str((err.get("ctx") or {}).get("error") or "JSON decode error")
    loc = err.get("loc") or ()
    pos = loc[-1] if loc and isinstance(loc[-1], int) else None
    if pos is None or not isinstance(body, str):
        return f"the body is not valid JSON: {reason}"
    line = body.count("\n", 0, pos) + 1
    column = pos - (body.rfind("\n", 0, pos) + 1) + 1
    return f"the body is not valid JSON: {reason} at line {line}, column {column} (character {pos})"


# OpenAI's error types by status, for the chat proxy's answers (the openai SDKs show error.message).
_OPENAI_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    409: "conflict_error",
    413: "invalid_request_error",
    422: "invalid_request_error",
    429: "rate_limit_error",
}


def openai_shaped(status: int, body: dict[str, Any]) -> dict[str, Any]:
    """An Engram error body as OpenAI's `{"error": {"message", "type", "code", "param"}}`, keeping the
    top-level `message`, `field` and `detail` Engram's own clients read."""
    kind = _OPENAI_TYPES.get(status, "invalid_request_error" if status < 500 else "server_error")
    error = {"message": body.get("message"), "type": kind, "code": body.get("error"), "param": body.get("field")}
    return {"error": error, **{k: v for k, v in body.items() if k != "error"}}


# Routes whose errors are OpenAI-shaped as well: the chat proxy, called through the openai SDKs.
OPENAI_ROUTES = frozenset({"/v1/chat/completions"})


# AgentCore Memory's error types by status, for its routes (read by botocore from x-amzn-ErrorType).
_AGENTCORE_TYPES = {
    400: "ValidationException",
    401: "AccessDeniedException",
    403: "AccessDeniedException",
    404: "ResourceNotFoundException",
    409: "RetryableConflictException",
    413: "ValidationException",
    422: "ValidationException",
    429: "ThrottledException",
}
AGENTCORE_PREFIX = "/memories/"  # AgentCore's data-plane routes (botocore's request URIs), and only them


def agentcore_shaped(status: int, body: dict[str, Any]) -> tuple[int, dict[str, Any], dict[str, str]]:
    """An Engram error as AgentCore's: its type in x-amzn-ErrorType (and `__type`), `message`, and for a
    ValidationException the `reason` and the `fieldList` naming each field at fault."""
    kind = _AGENTCORE_TYPES.get(status, "ServiceException")
    shaped: dict[str, Any] = {"__type": kind, "message": body.get("message") or kind}
    if kind == "ValidationException":
        fields = [
            {"name": d["field"], "message": d["message"]} for d in body.get("detail", []) if d.get("field") != "body"
        ] or ([{"name": body["field"], "message": body["message"]}] if body.get("field") else [])
        shaped["reason"] = "CannotParse" if body.get("error") == "InvalidJSONError" else "FieldValidationFailed"
        if fields:
            shaped["fieldList"] = fields
    agentcore_status = {401: 403, 413: 400, 422: 400}.get(status, status if status < 500 else 500)
    return agentcore_status, shaped, {"x-amzn-ErrorType": kind}


def error_response(
    resource: str, status: int, body: dict[str, Any], headers: dict[str, str] | None = None
) -> Response[Any]:
    """An error in the API's one shape; on the chat route in OpenAI's too, so the openai SDKs show it;
    on AgentCore's routes in AgentCore's only, so botocore raises its modeled exceptions."""
    if resource in OPENAI_ROUTES:
        body = openai_shaped(status, body)
    if resource.startswith(AGENTCORE_PREFIX):
        status, body, extra = agentcore_shaped(status, body)
        headers = {**(headers or {}), **extra}
    return Response(status, content_types.APPLICATION_JSON, body, headers=headers)
