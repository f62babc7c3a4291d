"""The error shape of docs/errors.md through the API Gateway event path: the API function's own errors
for every route (Lambda handler, API Gateway proxy events), and API Gateway's own answers as the
template's GatewayResponses render them."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest

from engram_tools.local.gateway_responses import GatewayResponses
from engram_tools.local.template import load_template
from tests.integration.stack import Stack
from tests.support.error_shape import ROOT, Probe, check_probe, check_shape, probes
from tests.support.handlers import FakeContext, load_function

# API Gateway's own answers are checked below; the moto stack has no Step Functions state machine
# to look a maintenance run up in (tests/e2e/test_error_shape.py walks that route).
PROBES = [p for p in probes("k") if not p.gateway and not p.route.path.startswith("/v1/maintenance/")]


def proxy_event(probe: Probe) -> dict[str, Any]:
    """What API Gateway sends the function for this request (the authorizer let the key through)."""
    body = probe.body.decode() if probe.body is not None else None
    return {
        "resource": probe.route.path,
        "path": probe.path,
        "httpMethod": probe.method,
        "headers": dict(probe.headers),
        "multiValueHeaders": {k: [v] for k, v in probe.headers.items()},
        "queryStringParameters": None,
        "multiValueQueryStringParameters": None,
        "pathParameters": probe.path_params or None,
        "body": body,
        "isBase64Encoded": False,
        "requestContext": {
            "requestId": uuid.uuid4().hex,
            "stage": "dev",
            "httpMethod": probe.method,
            "path": "/dev" + probe.path,
            "resourcePath": probe.route.path,
            "identity": {"sourceIp": "127.0.0.1"},
            "authorizer": {"tenant_id": "acme"},
        },
    }


@pytest.fixture
def handler(stack: Stack) -> Any:
    return load_function("api").lambda_handler


@pytest.mark.parametrize("probe", PROBES, ids=[p.id for p in PROBES])
def test_every_route_answers_each_error_in_the_one_shape(handler: Any, probe: Probe) -> None:
    answer = handler(proxy_event(probe), FakeContext())

    check_probe(probe, answer["statusCode"], answer["body"].encode())


def test_a_json_body_sent_as_a_form_is_read_as_json(handler: Any) -> None:
    route = next(r for r in probes("k") if r.route.path == "/v1/memories" and r.method == "POST").route
    body = b'{"user_id": "alice", "messages": [{"role": "user", "content": "I like tea"}]}'
    form = {"x-api-key": "k", "content-type": "application/x-www-form-urlencoded"}
    probe = Probe("form", route, "POST", "/v1/memories", form, body, (202,))

    answer = handler(proxy_event(probe), FakeContext())

    assert answer["statusCode"] == 202, answer["body"]


GATEWAY = load_template(ROOT / "template.yaml")
RESPONSES = GatewayResponses(GATEWAY.api.gateway_responses, GATEWAY.parameters)
KINDS = [*GATEWAY.api.gateway_responses, "INTEGRATION_FAILURE", "BAD_REQUEST_BODY"]


@pytest.mark.parametrize("kind", KINDS)
def test_each_answer_api_gateway_gives_itself_has_the_one_shape(kind: str) -> None:
    answer = RESPONSES.answer(kind, "GET", '/dev/v1/"odd"/path', message="Internal server error")

    payload = check_shape(answer.status, answer.body, "/")
    assert payload["code"] != "RequestError" or kind in ("DEFAULT_4XX", "BAD_REQUEST_BODY"), payload


def test_the_template_names_the_settings_a_client_lacks() -> None:
    missing = json.loads(RESPONSES.answer("UNAUTHORIZED", "GET", "/").body)
    denied = json.loads(RESPONSES.answer("ACCESS_DENIED", "GET", "/").body)
    throttled = json.loads(RESPONSES.answer("THROTTLED", "GET", "/").body)

    assert "x-api-key" in missing["message"] and "ENGRAM_API_KEY" in missing["message"]
    assert "ENGRAM_API_KEY" in denied["message"]
    assert f"over {GATEWAY.parameters['ThrottleRateLimit']} requests a second" in throttled["message"]
