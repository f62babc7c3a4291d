"""Bodies refused before the resolver parses them: too large, not UTF-8, or JSON nested too deep for
Python's parser (which would raise RecursionError, a 500). Each refusal names the limit."""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import Any

from engram.domain.limits import MAX_BODY_BYTES, MAX_JSON_DEPTH

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


def json_depth(text: str) -> int:
    """The deepest nesting of arrays and objects (strings skipped), without parsing."""
    depth = deepest = 0
    for match in _BRACKET.finditer(_STRING.sub('""', text)):
        depth += 1 if match.group() in "[{" else -1
        deepest = max(deepest, depth)
    return deepest


def refusal(status: int, message: str, kind: str = "body_rejected") -> dict[str, Any]:
    detail = [{"field": "body", "loc": ["body"], "type": kind, "message": message}]
    payload = {"error": "RequestValidationError", "message": message, "detail": detail}
    return {"statusCode": status, "headers": {"Content-Type": "application/json"}, "body": json.dumps(payload)}


def screen(event: dict[str, Any]) -> dict[str, Any] | None:
    """A proxy response refusing the body, or None to go on (a valid base64 body is decoded in place)."""
    body = event.get("body")
    if not body:
        return None
    if event.get("isBase64Encoded"):
        try:
            raw = base64.b64decode(body, validate=True)
        except (binascii.Error, ValueError):
            return refusal(400, "the body is marked base64 but is not valid base64", "body_encoding")
    else:
        raw = str(body).encode("utf-8", "surrogatepass")
    if len(raw) > MAX_BODY_BYTES:
        return refusal(
            413, f"the body is {len(raw)} bytes; the limit is {MAX_BODY_BYTES} (MAX_BODY_BYTES)", "too_large"
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return refusal(400, "the body is not valid UTF-8", "body_encoding")
    if json_depth(text) > MAX_JSON_DEPTH:
        return refusal(422, f"JSON nested deeper than {MAX_JSON_DEPTH} levels (MAX_JSON_DEPTH)", "too_deep")
    if event.get("isBase64Encoded"):
        event["body"], event["isBase64Encoded"] = text, False
    return None
