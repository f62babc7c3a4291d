"""Bodies refused before the resolver parses them: too large, not UTF-8, not declared as JSON, or JSON
nested too deep for Python's parser (which would raise RecursionError, a 500). Each refusal names the limit.

Every body the API takes is JSON. A body sent without a content-type, or with the one curl's `-d` adds
(application/x-www-form-urlencoded) or a browser's simple request (text/plain), is read as JSON: the
framework would otherwise parse it as a form and answer "Field required" for every field."""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import Any

from engram.domain.limits import MAX_BODY_BYTES, MAX_JSON_DEPTH
from engram.http.errors import REQUEST_ERRORS

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


def json_depth(text: str) -> int:
    """The deepest nesting of arrays and objects (strings skipped), without parsing."""
    depth = deepest = 0
    for match in _BRACKET.finditer(_STRING.sub('""', text)):
        depth += 1 if match.group() in "[{" else -1
        deepest = max(deepest, depth)
    return deepest


_READ_AS_JSON = frozenset({"", "application/x-www-form-urlencoded", "text/plain"})


def refusal(error: str, message: str, kind: str = "body_rejected") -> dict[str, Any]:
    """A proxy response refusing the body, with the status errors.py maps `error` to."""
    payload: dict[str, Any] = {"error": error, "message": message}
    if error != "InvalidJSONError":  # a body that cannot be read has no field at fault yet
        detail = [{"field": "body", "loc": ["body"], "type": kind, "message": message}]
        payload.update(field="body", detail=detail)
    return {
        "statusCode": REQUEST_ERRORS[error],
        "headers": {"Content-Type": "application/json"},
        "body": json.dumps(payload),
    }


def _as_json(event: dict[str, Any]) -> dict[str, Any] | None:
    """Marks a body sent without a JSON content-type as JSON; a refusal (415) for a type that is not text."""
    headers = event.get("headers") or {}
    name = next((k for k in headers if k.lower() == "content-type"), None)
    declared = str(headers.get(name) or "") if name else ""
    mime = declared.split(";")[0].strip().lower()
    if mime == "application/json" or mime.endswith("+json"):
        return None
    if mime not in _READ_AS_JSON:
        message = f"the body must be JSON (content-type: application/json), not {mime}"
        return refusal("UnsupportedMediaTypeError", message, "unsupported_media_type")
    if name is not None:
        del headers[name]
    event["headers"] = {**headers, "content-type": "application/json"}
    multi = event.get("multiValueHeaders")
    if isinstance(multi, dict):
        for key in [k for k in multi if k.lower() == "content-type"]:
            del multi[key]
        multi["content-type"] = ["application/json"]
    return None


def screen(event: dict[str, Any]) -> dict[str, Any] | None:
    """A proxy response refusing the body, or None to go on (a valid base64 body is decoded in place)."""
    body = event.get("body")
    if not body:
        return None
    if event.get("isBase64Encoded"):
        try:
            raw = base64.b64decode(body, validate=True)
        except (binascii.Error, ValueError):
            return refusal(
                "InvalidJSONError", "the body is not valid JSON: it is marked base64 but is not valid base64"
            )
    else:
        raw = str(body).encode("utf-8", "surrogatepass")
    if len(raw) > MAX_BODY_BYTES:
        return refusal(
            "PayloadTooLargeError",
            f"the body is {len(raw)} bytes; the limit is {MAX_BODY_BYTES} (MAX_BODY_BYTES)",
            "too_large",
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return refusal("InvalidJSONError", "the body is not valid JSON: it is not UTF-8")
    if json_depth(text) > MAX_JSON_DEPTH:
        return refusal(
            "RequestValidationError", f"JSON nested deeper than {MAX_JSON_DEPTH} levels (MAX_JSON_DEPTH)", "too_deep"
        )
    if event.get("isBase64Encoded"):
        event["body"], event["isBase64Encoded"] = text, False
    return _as_json(event)
