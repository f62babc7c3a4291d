"""Whatever a client sends, the API answers 4xx naming the problem, never a server error, and stores
nothing from a refused request."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from engram.domain.limits import MAX_BODY_BYTES, MAX_JSON_DEPTH, MAX_MESSAGE_CHARS, MAX_MESSAGES
from tests.integration.stack import Stack
from tests.support.handlers import FakeContext, api_event, load_function

GOOD = {"messages": [{"role": "user", "content": "hi"}], "user_id": "alice"}


def add(**changes: Any) -> str:
    return json.dumps({**GOOD, **changes})


CASES = {
    "deep array": ("POST", "/v1/memories", "[" * 5000 + "]" * 5000, "MAX_JSON_DEPTH"),
    "deep metadata": ("POST", "/v1/memories", add(metadata=json.loads('{"a":' * 40 + "1" + "}" * 40)), "MAX_JSON"),
    "deep search": ("POST", "/v1/memories/search", '{"query":' + "[" * 3000 + "]" * 3000 + "}", "MAX_JSON_DEPTH"),
    "lone surrogate": ("POST", "/v1/memories", add().replace('"hi"', '"\\ud800"'), "messages.0.content"),
    "NUL in text": ("POST", "/v1/memories", add().replace('"hi"', '"a\\u0000b"'), "messages.0.content"),
    "control char in id": ("POST", "/v1/memories", add(user_id="al\u0007ice"), "user_id"),
    "infinite number": ("POST", "/v1/memories", add()[:-1] + ',"metadata":{"x":1e999}}', "metadata"),
    "NaN": ("POST", "/v1/memories", add()[:-1] + ',"metadata":{"x":NaN}}', "metadata"),
    "huge integer": ("POST", "/v1/memories", add()[:-1] + ',"metadata":{"x":' + "9" * 60 + "}}", "metadata"),
    "array body": ("POST", "/v1/memories", "[1, 2]", "body"),
    "string body": ("POST", "/v1/memories/search", '"where"', "body"),
    "malformed JSON": (
        "POST",
        "/v1/memories",
        '{"messages": [',
        "not valid JSON: Expecting value at line 1, column 15",
    ),
    "too many messages": (
        "POST",
        "/v1/memories",
        add(messages=[{"role": "user", "content": "x"}] * (MAX_MESSAGES + 1)),
        "messages",
    ),
    "message too long": (
        "POST",
        "/v1/memories",
        add(messages=[{"role": "user", "content": "x" * (MAX_MESSAGE_CHARS + 1)}]),
        "messages.0.content",
    ),
    "metadata too large": ("POST", "/v1/memories", add(metadata={"k": "x" * 20_000}), "MAX_METADATA_BYTES"),
    "PATCH surrogate": ("PATCH", "/v1/memories/m1", '{"text": "\\udc00"}', "text"),
    "PATCH NUL": ("PATCH", "/v1/memories/m1", '{"text": "a\\u0000"}', "text"),
    "search wrong type": ("POST", "/v1/memories/search", '{"query": 5, "user_id": "alice"}', "query"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_hostile_bodies_get_a_4xx_naming_the_problem(call: Any, stack: Stack, name: str) -> None:
    method, path, body, named = CASES[name]
    status, answer = call(method, path, raw_body=body)
    assert 400 <= status < 500, (status, answer)
    assert named in json.dumps(answer)
    assert stack.queued() == []  # nothing was stored or queued


def test_a_body_that_is_not_utf8_is_refused_as_not_json(stack: Stack) -> None:
    # 400 InvalidJSONError, as docs/errors.md says for a body that cannot be read (not the 422 code)
    event = api_event("POST", "/v1/memories", raw_body=base64.b64encode(b"\xff\xfe{}").decode())
    event["isBase64Encoded"] = True
    response = load_function("api").lambda_handler(event, FakeContext())
    answer = json.loads(response["body"])
    assert (response["statusCode"], answer["error"]) == (400, "InvalidJSONError") and "UTF-8" in answer["message"]


def test_a_body_over_the_limit_is_413_naming_it(stack: Stack) -> None:
    event = api_event("POST", "/v1/memories", raw_body="x" * (MAX_BODY_BYTES + 1))
    response = load_function("api").lambda_handler(event, FakeContext())
    assert response["statusCode"] == 413 and "MAX_BODY_BYTES" in response["body"]


def test_nesting_within_the_limit_is_still_parsed(call: Any) -> None:
    nested: Any = "deep"
    for _ in range(MAX_JSON_DEPTH - 6):  # body, metadata and the list around it use a few levels
        nested = [nested]
    status, _ = call("POST", "/v1/memories", raw_body=add(metadata={"x": nested}))
    assert status == 422  # metadata itself is limited to 8 levels: refused by that rule, not by a crash
    status, _ = call("POST", "/v1/memories", raw_body=add(metadata={"x": [[["ok"]]]}))
    assert status == 202
