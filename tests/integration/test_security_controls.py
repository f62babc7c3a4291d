"""The security controls one at a time: keys compared in constant time, revocation within the authorizer
cache TTL, per-key throttling, CORS closed unless configured, short-lived tenant-scoped presigned URLs,
and no API key or secret in what the functions log."""

from __future__ import annotations

import hmac
import json
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from pydantic import SecretStr

from engram.adapters.dynamo import api_key_store
from engram.adapters.dynamo.api_key_store import DynamoApiKeyStore
from engram.domain.errors import ConfigurationError, TransientError
from engram.http.cors import cors_config
from engram.settings import Settings
from engram_tools.local import api_gateway
from engram_tools.local.api_gateway import ApiGateway, Request
from engram_tools.local.keys import LocalKey, WithLocalKeys
from engram_tools.local.stack import served_api
from engram_tools.local.template import Api, Authorizer, Route, load_template
from engram_tools.local.throttle import TokenBuckets
from tests.integration.stack import Stack
from tests.support.handlers import FakeContext, api_event, load_function

ROOT = Path(__file__).resolve().parents[2]


# ------------------------------------------------------------------ keys


def test_a_presented_key_is_compared_in_constant_time(db: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    store = DynamoApiKeyStore(db, "engram-api-keys")
    _, plaintext = store.create("acme")
    compared: list[tuple[str, str]] = []
    real = hmac.compare_digest

    def spy(a: str, b: str) -> bool:
        compared.append((a, b))
        return real(a, b)

    monkeypatch.setattr(api_key_store.hmac, "compare_digest", spy)
    assert store.resolve(plaintext).tenant_id == "acme"
    assert len(compared) == 1 and plaintext not in compared[0]  # digests compared, never the plaintext


def test_local_keys_are_held_as_digests_only() -> None:
    plaintext = "key-acme-very-secret"
    store = WithLocalKeys(inner=None, keys=[LocalKey("acme", plaintext)])  # type: ignore[arg-type]
    assert store.resolve(plaintext).tenant_id == "acme"
    assert plaintext not in repr(vars(store))


# ------------------------------------------------------------------ the local gateway, in process


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


class Function:
    """A LocalFunction stand-in: the authorizer allows keys not revoked; the API answers 200."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.calls = 0

    def invoke(self, event: dict[str, Any]) -> Any:
        self.calls += 1
        return self.answer(event)


def template_ttl() -> int:
    """The authorizer cache TTL the local stack reads from template.yaml (the parameter's default)."""
    routes = load_template(ROOT / "template.yaml").api.routes
    return next(r.authorizer.ttl_s for r in routes if r.authorizer is not None)


def gateway(
    revoked: set[str],
    rate: float = 1000,
    burst: int = 1000,
    cors: bool = False,
    origins: tuple[str, ...] = (),
    auth: Function | None = None,
    per_minute: int = 0,
) -> tuple[ApiGateway, Function]:
    def policy(event: dict[str, Any]) -> dict[str, Any]:
        effect = "Deny" if event["headers"]["x-api-key"] in revoked else "Allow"
        statement = {"Action": "execute-api:Invoke", "Effect": effect, "Resource": ["*"]}
        return {"principalId": "k", "policyDocument": {"Statement": [statement]}, "context": {"tenant_id": "acme"}}

    authorizer = Authorizer("Auth", "auth", "REQUEST", ("x-api-key",), template_ttl())
    preflight = {"Allow-Methods": "GET,OPTIONS", "Allow-Headers": "content-type,x-api-key"} if cors else {}
    responses = load_template(ROOT / "template.yaml").api.gateway_responses  # the answers as deployed
    routes = (Route("GET", "/v1/users", "api", authorizer),)
    api = Api(
        "Api",
        "dev",
        (),
        routes,
        rate,
        burst,
        preflight,
        key_requests_per_minute=per_minute,
        gateway_responses=responses,
    )
    auth = auth or Function(policy)
    ok = Function(lambda event: {"statusCode": 200, "body": "{}"})
    return ApiGateway(api, {"auth": auth, "api": ok}, "us-east-1", origins), auth


def get(gw: ApiGateway, key: str, method: str = "GET", origin: str | None = None) -> Any:
    headers = [("x-api-key", key)] + ([("Origin", origin)] if origin else [])
    return gw.handle(Request(method, "/v1/users", headers, b"", "127.0.0.1"))


def test_a_revoked_key_is_refused_once_the_authorizer_cache_expires(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    monkeypatch.setattr(api_gateway, "time", clock)
    revoked: set[str] = set()
    gw, auth = gateway(revoked)
    ttl = template_ttl()
    assert ttl == 60
    assert get(gw, "key-1").status == 200

    revoked.add("key-1")
    clock.now += ttl - 1
    assert get(gw, "key-1").status == 200  # the cached answer, as API Gateway's cache keeps it
    clock.now += 2
    assert get(gw, "key-1").status == 403
    assert auth.calls == 2


def test_a_key_revoked_in_the_keys_table_is_refused_by_the_real_authorizer_after_the_ttl(
    stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = Clock()
    monkeypatch.setattr(api_gateway, "time", clock)
    record, plaintext = stack.container.keys.create("acme")
    authorizer = load_function("authorizer")  # the deployed authorizer, on the moto keys table
    gw, real = gateway(set(), auth=Function(lambda event: authorizer.lambda_handler(event, FakeContext())))
    assert get(gw, plaintext).status == 200

    stack.container.keys.revoke(record.key_id)  # what `python -m engram_tools.admin keys revoke` does
    clock.now += template_ttl() - 1
    assert get(gw, plaintext).status == 200
    clock.now += 2
    assert get(gw, plaintext).status == 403
    assert real.calls == 2


def test_a_key_over_its_rate_gets_429_naming_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    monkeypatch.setattr(api_gateway, "time", clock)
    gw, _ = gateway(set(), rate=2, burst=3)
    statuses = [get(gw, "key-1").status for _ in range(5)]
    assert statuses == [200, 200, 200, 429, 429]
    refused = get(gw, "key-1")
    assert "ENGRAM_RATE_LIMIT_RPS" in json.loads(refused.body)["message"]
    assert ("Retry-After", "1") in refused.headers
    assert get(gw, "key-2").status == 200  # per key: another key is not held back


def test_the_rate_limit_settings_replace_the_templates_stage_throttling() -> None:
    api = load_template(ROOT / "template.yaml").api
    assert (api.throttle_rate, api.throttle_burst) == (100, 200)  # make run's default: the template's
    low = served_api(api, Settings(rate_limit_rps=2, rate_limit_burst=3))
    assert (low.throttle_rate, low.throttle_burst) == (2, 3)
    assert served_api(api, Settings()) == api


def test_a_key_over_its_requests_a_minute_gets_429_naming_the_limit() -> None:
    """KeyRequestsPerMinute: on AWS a WAF rate-based rule per x-api-key; here the local front's."""
    limited, _ = gateway(set(), per_minute=3)
    statuses = [get(limited, "key-1").status for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    refused = get(limited, "key-1")
    assert "KeyRequestsPerMinute" in json.loads(refused.body)["message"]
    assert get(limited, "key-2").status == 200  # each key its own minute


def test_the_per_key_limit_comes_from_the_templates_waf_rule(tmp_path: Path) -> None:
    text = (ROOT / "template.yaml").read_text(encoding="utf-8")
    assert load_template(ROOT / "template.yaml").api.key_requests_per_minute == 0  # default: no WAF rule
    old = "  KeyRequestsPerMinute:\n    Type: Number\n    Default: 0\n"
    assert old in text
    copy = tmp_path / "template.yaml"
    copy.write_text(text.replace(old, old.replace("Default: 0", "Default: 600")), encoding="utf-8")
    for folder in ("functions", "statemachines", "shared", "layers"):
        (tmp_path / folder).symlink_to(ROOT / folder)
    api = load_template(copy).api
    assert api.key_requests_per_minute == 600  # as the production preset sets it
    assert served_api(api, Settings(key_requests_per_minute=5)).key_requests_per_minute == 5


def test_token_buckets_refill_at_the_rate() -> None:
    now = [0.0]
    buckets = TokenBuckets(rate=10, burst=2, clock=lambda: now[0])
    assert [buckets.take("k") for _ in range(3)] == [True, True, False]
    now[0] += 0.1  # one token back
    assert [buckets.take("k") for _ in range(2)] == [True, False]
    with pytest.raises(ValueError, match="rate"):
        TokenBuckets(rate=0, burst=1)


def test_preflight_names_an_origin_only_when_it_is_allowed() -> None:
    closed, _ = gateway(set(), cors=True)
    reply = get(closed, "", "OPTIONS", origin="https://evil.example")
    assert reply.status == 200 and not any(k == "Access-Control-Allow-Origin" for k, _ in reply.headers)

    opened, auth = gateway(set(), cors=True, origins=("https://app.example",))
    allowed = dict(get(opened, "", "OPTIONS", origin="https://app.example").headers)
    assert allowed["Access-Control-Allow-Origin"] == "https://app.example"
    assert "x-api-key" in allowed["Access-Control-Allow-Headers"]
    other = dict(get(opened, "", "OPTIONS", origin="https://evil.example").headers)
    assert "Access-Control-Allow-Origin" not in other
    assert auth.calls == 0  # a preflight needs no key, as on API Gateway


def test_without_cors_in_the_template_options_is_405() -> None:
    gw, _ = gateway(set())
    reply = get(gw, "key-1", "OPTIONS", origin="https://app.example")
    assert reply.status == 405 and not any(k.startswith("Access-Control") for k, _ in reply.headers)


# ------------------------------------------------------------------ the API function


def call_with_origin(origin: str) -> dict[str, Any]:
    event = api_event("GET", "/v1/users")
    event["headers"]["origin"] = origin
    response: dict[str, Any] = load_function("api").lambda_handler(event, FakeContext())
    return response


def headers_of(response: dict[str, Any]) -> dict[str, Any]:
    return {**(response.get("headers") or {}), **(response.get("multiValueHeaders") or {})}


def test_the_api_sends_no_cors_headers_by_default(stack: Stack) -> None:
    response = call_with_origin("https://app.example")
    assert response["statusCode"] == 200
    assert not [h for h in headers_of(response) if h.lower().startswith("access-control")]


def test_the_api_allows_only_the_configured_origins(stack: Stack) -> None:
    stack.container.settings = stack.container.settings.model_copy(
        update={"cors_origins": "https://app.example, https://admin.example"}
    )
    allowed = headers_of(call_with_origin("https://admin.example"))
    assert allowed["Access-Control-Allow-Origin"] in ("https://admin.example", ["https://admin.example"])
    assert not [h for h in headers_of(call_with_origin("https://evil.example")) if h.lower().startswith("access-")]


def test_a_wildcard_origin_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="ENGRAM_CORS_ORIGINS"):
        cors_config(("*",))
    assert cors_config(()) is None


# ------------------------------------------------------------------ presigned URLs


def test_presigned_urls_are_short_lived_and_name_one_key_of_the_tenant(call: Any) -> None:
    status, created = call("POST", "/v1/attachments", {"name": "scan.pdf", "media_type": "application/pdf"})
    assert status == 201
    attachment_id = created["attachment_id"]
    status, shown = call("GET", f"/v1/attachments/{attachment_id}")
    assert status == 200
    for url in (created["upload_url"], shown["download_url"]):
        parts = urlsplit(url)
        assert parts.path.endswith(f"/attachments/acme/{attachment_id}")
        assert parse_qs(parts.query)["X-Amz-Expires"] == ["300"]


def test_presigned_url_lifetime_is_bounded_to_15_minutes() -> None:
    assert Settings(presign_expires_s=900).presign_expires_s == 900
    with pytest.raises(ValueError, match="presign_expires_s"):
        Settings(presign_expires_s=3600)


# ------------------------------------------------------------------ logs


def test_the_api_function_logs_no_key_even_when_asked_to_log_events(
    stack: Stack, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("POWERTOOLS_LOGGER_LOG_EVENT", "true")  # what an operator might set to debug
    monkeypatch.setenv("POWERTOOLS_LOG_LEVEL", "DEBUG")
    monkeypatch.setenv("POWERTOOLS_SERVICE_NAME", f"engram-logs-{uuid.uuid4().hex}")  # a fresh logger on this stdout
    api = load_function("api")
    secret = "sk-secret-never-logged"
    stack.container.settings = stack.container.settings.model_copy(update={"openai_api_key": SecretStr(secret)})
    statuses = []
    for method, path, body in (
        ("POST", "/v1/memories", {"user_id": "u", "messages": [{"role": "user", "content": "I live in Oslo"}]}),
        ("POST", "/v1/memories/search", {"user_id": "u", "query": 5}),
        ("GET", "/v1/memories/unknown-id", None),
        ("POST", "/v1/memories/search", {"user_id": "u", "query": "where?"}),  # fails below: logged with its trace
    ):
        if path.endswith("search") and body and body["query"] == "where?":
            monkeypatch.setattr(stack.container.memories, "search", broken_search)
        event = api_event(method, path, body)
        event["headers"]["x-api-key"] = "egm_0123456789abcdef_the-plaintext-key"
        statuses.append(api.lambda_handler(event, FakeContext())["statusCode"])
    logged = capsys.readouterr()
    lines = (logged.out + logged.err).splitlines()

    assert statuses == [202, 422, 404, 503]
    assert any("request failed" in line for line in lines)  # the failure was logged, with its trace
    assert not [line for line in lines if "the-plaintext-key" in line or secret in line]


def broken_search(tenant_id: str, query: Any) -> Any:
    raise TransientError(f"index unreachable for {tenant_id}")
