"""Every route of template.yaml with each class of error a client can cause, and the one shape every
answer must have (docs/errors.md). Used through the local stack over HTTP (tests/e2e) and through the
API function with API Gateway events (tests/integration)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engram_tools.local.template import Route, load_template

ROOT = Path(__file__).resolve().parents[2]
CHAT = "/v1/chat/completions"
_SHAPE_KEYS = {"error", "message", "field", "detail"}
# AgentCore Memory's routes answer in AgentCore's shape only, so botocore raises its modeled exceptions.
AGENTCORE = "/memories/"
_AGENTCORE_KEYS = {"__type", "message", "reason", "fieldList"}
_AGENTCORE_CODES = {
    "InvalidJSONError": "ValidationException",
    "NotFoundError": "ResourceNotFoundException",
    "UnauthorizedError": "AccessDeniedException",
    "ForbiddenError": "AccessDeniedException",
}
_BODY_METHODS = {"POST", "PUT", "PATCH"}


def routes() -> tuple[Route, ...]:
    return load_template(ROOT / "template.yaml").api.routes


@dataclass(frozen=True)
class Probe:
    name: str  # the error class
    route: Route
    method: str
    path: str  # concrete
    headers: dict[str, str]
    body: bytes | None
    statuses: tuple[int, ...]  # the answers it may get (all errors)
    code: str | None = None  # the `error` code it must carry
    gateway: bool = False  # answered by API Gateway itself (not reachable through the API function)
    path_params: dict[str, str] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return f"{self.name}: {self.method} {self.route.path}"


def concrete(route: Route) -> tuple[str, dict[str, str]]:
    params = {name: f"no-such-{name.replace('_', '-')}" for name in re.findall(r"{(\w+)}", route.path)}
    return re.sub(r"{(\w+)}", lambda m: params[m.group(1)], route.path), params


def probes(key: str) -> list[Probe]:
    """The error classes for each route; `key` a valid API key."""
    methods: dict[str, set[str]] = {}
    for route in routes():
        methods.setdefault(route.path, set()).add(route.method)
    return [probe for route in routes() for probe in _route_probes(route, key, methods[route.path])]


def _route_probes(route: Route, key: str, served: set[str]) -> list[Probe]:
    found: list[Probe] = []
    path, params = concrete(route)
    auth = {"x-api-key": key} if route.authorizer else {}
    json_type = {**auth, "content-type": "application/json"}

    def probe(name: str, *statuses: int, **options: Any) -> None:
        values: dict[str, Any] = {"method": route.method, "path": path, "headers": auth, "body": None}
        values.update(options)
        found.append(Probe(name, route, statuses=statuses, path_params=params, **values))

    if route.authorizer:
        probe("no API key", 401, headers={}, code="UnauthorizedError", gateway=True)
        probe("unknown API key", 403, headers={"x-api-key": "not-a-key"}, code="ForbiddenError", gateway=True)
    nowhere = path.rstrip("/") + "/no/such/route"
    probe("no such route", 404, 405, path=nowhere, code="RouteNotFoundError", gateway=True)
    other = next(m for m in ("PUT", "PATCH", "POST", "DELETE", "GET") if m not in served)
    probe("method not served", 404, 405, method=other, code="RouteNotFoundError", gateway=True)
    if route.method in _BODY_METHODS:
        broken = b'{"user_id": "alice",}'
        probe("body not JSON", 400, headers=json_type, body=broken, code="InvalidJSONError")
        xml = {**auth, "content-type": "text/xml"}
        probe("body not JSON media", 415, headers=xml, body=b"<a/>", code="UnsupportedMediaTypeError")
        probe("body of the wrong JSON type", 400, 422, headers=json_type, body=b"[1, 2]")
    if params and route.authorizer:
        body = b'{"text": "x"}' if route.method in _BODY_METHODS else None
        probe("unknown id", 404, headers=json_type if body else auth, body=body, code="NotFoundError")
    return found


def check_shape(status: int, body: bytes, path: str) -> dict[str, Any]:
    """The answer's JSON after checking it has the one error shape (the chat route's OpenAI one too)."""
    assert status >= 400, status
    payload = json.loads(body)
    assert isinstance(payload, dict), payload
    if path.startswith(AGENTCORE) and "__type" in payload:
        assert set(payload) <= _AGENTCORE_KEYS, payload
        assert isinstance(payload.get("message"), str) and payload["message"].strip(), payload
        for item in payload.get("fieldList", []):
            assert set(item) == {"name", "message"} and item["name"] and not item["name"].isdigit(), payload
        return {**payload, "code": payload["__type"]}
    assert set(payload) <= _SHAPE_KEYS, payload
    if path == CHAT and isinstance(payload.get("error"), dict):
        openai = payload["error"]
        assert {"message", "type", "code"} <= set(openai), payload
        assert openai["message"] == payload["message"], payload
        code = openai["code"]
    else:
        code = payload.get("error")
    assert isinstance(code, str) and code, payload
    assert isinstance(payload.get("message"), str) and payload["message"].strip(), payload
    if "field" in payload:
        assert isinstance(payload["field"], str) and payload["field"], payload
        assert not payload["field"].isdigit(), payload  # a position in the body is not a field
    if "detail" in payload:
        assert isinstance(payload["detail"], list) and payload["detail"], payload
        for item in payload["detail"]:
            assert {"field", "message"} <= set(item), payload
    return {**payload, "code": code}


def check_probe(probe: Probe, status: int, body: bytes) -> None:
    assert status in probe.statuses, (probe.id, status, body[:300])
    payload = check_shape(status, body, probe.path)
    if probe.code is not None:
        agentcore = "__type" in payload and probe.path.startswith(AGENTCORE)
        wanted = _AGENTCORE_CODES.get(probe.code, probe.code) if agentcore else probe.code
        assert payload["code"] == wanted, (probe.id, payload)
    if probe.name == "body not JSON":
        assert "field" not in payload and "line 1, column 21" in payload["message"], payload
