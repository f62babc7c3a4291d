"""template.yaml's security settings: the authorizer cache TTL, stage throttling and CORS are parameters
with safe defaults, and the SAM transform turns them into what API Gateway enforces."""

from __future__ import annotations

from typing import Any

from tests.integration.test_template import authorizer, props, template, translated


def parameter(name: str) -> dict[str, Any]:
    spec: dict[str, Any] = template()["Parameters"][name]
    return spec


def rest_api_body() -> dict[str, Any]:
    apis = [r for r in translated()["Resources"].values() if r["Type"] == "AWS::ApiGateway::RestApi"]
    body: dict[str, Any] = apis[0]["Properties"]["Body"]
    return body


def test_a_revoked_key_stops_working_within_60_seconds_by_default() -> None:
    ttl = parameter("AuthorizerCacheSeconds")
    assert ttl["Default"] == 60 and ttl["MinValue"] == 0 and ttl["MaxValue"] == 3600
    assert authorizer()["Identity"]["ReauthorizeEvery"] == {"Ref": "AuthorizerCacheSeconds"}


def test_stage_throttling_is_set_by_parameters() -> None:
    assert (parameter("ThrottleRateLimit")["Default"], parameter("ThrottleBurstLimit")["Default"]) == (100, 200)
    stages = [r for r in translated()["Resources"].values() if r["Type"] == "AWS::ApiGateway::Stage"]
    [settings] = stages[0]["Properties"]["MethodSettings"]
    assert (settings["ResourcePath"], settings["HttpMethod"]) == ("/*", "*")
    assert settings["ThrottlingRateLimit"] == {"Ref": "ThrottleRateLimit"}
    assert settings["ThrottlingBurstLimit"] == {"Ref": "ThrottleBurstLimit"}


def test_cors_is_closed_unless_an_origin_is_given() -> None:
    assert parameter("AllowedOrigin")["Default"] == ""
    assert template()["Conditions"]["HasAllowedOrigin"] == {"Fn::Not": [{"Fn::Equals": [{"Ref": "AllowedOrigin"}, ""]}]}
    preflight = rest_api_body()["paths"]["/v1/memories"]["options"]
    mapping = preflight["x-amazon-apigateway-integration"]["responses"]["default"]["responseParameters"]
    origin = mapping["method.response.header.Access-Control-Allow-Origin"]
    # No origin parameter: the header is not mapped at all, so a browser refuses the cross-site call.
    assert origin == {"Fn::If": ["HasAllowedOrigin", {"Fn::Sub": "'${AllowedOrigin}'"}, {"Ref": "AWS::NoValue"}]}
    assert not preflight.get("security")  # a preflight carries no key; it reaches no function
    assert props("ApiFunction")["Environment"]["Variables"]["ENGRAM_CORS_ORIGINS"] == {"Ref": "AllowedOrigin"}


def test_every_other_method_still_needs_the_key() -> None:
    for path, methods in rest_api_body()["paths"].items():
        for method, spec in methods.items():
            if method == "options" or path in ("/health", "/openapi.json", "/docs", "/ui", "/ui/{name}"):
                continue
            if path.startswith("/memories/"):  # AgentCore Memory's routes: SigV4, checked by API Gateway
                assert spec.get("security") == [{"AWS_IAM": []}], (method, path)
                continue
            assert spec.get("security") == [{"ApiKeyAuthorizer": []}], (method, path)


def test_a_throttled_request_gets_a_429_naming_the_limit() -> None:
    throttled = rest_api_body()["x-amazon-apigateway-gateway-responses"]["THROTTLED"]
    assert throttled["statusCode"] == "429"
    message = throttled["responseTemplates"]["application/json"]["Fn::Sub"]
    assert "ThrottleRateLimit" in message and "${ThrottleRateLimit} requests a second" in message


def test_api_gateways_own_errors_carry_the_allowed_origin() -> None:
    """A 401 (no key), 403 (key refused), 429 or 5xx from API Gateway itself reaches a browser as that
    status, not as a CORS failure, when an origin is allowed."""
    responses = rest_api_body()["x-amazon-apigateway-gateway-responses"]
    for kind in ("DEFAULT_4XX", "DEFAULT_5XX", "THROTTLED"):
        origin = responses[kind]["responseParameters"]["gatewayresponse.header.Access-Control-Allow-Origin"]
        assert origin == {"Fn::If": ["HasAllowedOrigin", {"Fn::Sub": "'${AllowedOrigin}'"}, {"Ref": "AWS::NoValue"}]}
