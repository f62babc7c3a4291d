"""What API Gateway (REST API, Lambda proxy integration) does for a request, minus the HTTP server.

Routes come from the template: the resource is chosen first (literal path segments beat {params},
as in API Gateway), then the method. Routes with an authorizer run the REQUEST authorizer
in-process: 401 without the identity header, 403 when the policy does not allow the method ARN,
else its context goes into requestContext.authorizer. Policies are cached per identity for the
authorizer's ReauthorizeEvery, and evaluated against each request's method ARN, as on AWS.

Throttling: one token bucket per API key (the template's stage throttling, or ENGRAM_RATE_LIMIT_RPS /
ENGRAM_RATE_LIMIT_BURST), and one more for the key's requests a minute when the template's WAF rule
sets one (KeyRequestsPerMinute, or ENGRAM_KEY_REQUESTS_PER_MINUTE), answered 429 before the
authorizer runs. CORS preflight (OPTIONS) is
answered here, as API Gateway's mock integration does for the template's `Cors`; the allowed
origins (ENGRAM_CORS_ORIGINS) are the only ones ever named in Access-Control-Allow-Origin.
"""

from __future__ import annotations

import base64
import fnmatch
import json
import logging
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from engram_tools.local.lambda_runtime import LocalFunction
from engram_tools.local.names import ACCOUNT_ID, API_ID, method_arn
from engram_tools.local.template import Api, Authorizer, Route
from engram_tools.local.throttle import TokenBuckets

log = logging.getLogger("engram_tools.local")

MAX_BODY_BYTES = 10 * 1024 * 1024  # API Gateway's payload limit
_HOP_BY_HOP = frozenset({"content-length", "transfer-encoding", "connection", "keep-alive"})
_READS = frozenset({"GET", "HEAD", "OPTIONS"})


@dataclass
class Request:
    method: str
    target: str  # path and query, as on the request line
    headers: list[tuple[str, str]]
    body: bytes
    source_ip: str


@dataclass
class Reply:
    status: int
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""

    @classmethod
    def json(cls, status: int, payload: Any, headers: list[tuple[str, str]] | None = None) -> Reply:
        return cls(status, [("Content-Type", "application/json"), *(headers or [])], json.dumps(payload).encode())


def _segments(path: str) -> list[str]:
    return [s for s in path.strip("/").split("/") if s]


def _match(template: str, path: str) -> dict[str, str] | None:
    """Path parameters when `path` fits `template` ("/v1/memories/{memory_id}"), else None."""
    wanted, got = _segments(template), _segments(path)
    params: dict[str, str] = {}
    for i, seg in enumerate(wanted):
        if seg.startswith("{") and seg.endswith("+}"):  # greedy {proxy+}
            if i >= len(got):
                return None
            params[seg[1:-2]] = "/".join(got[i:])
            return params
        if i >= len(got):
            return None
        if seg.startswith("{") and seg.endswith("}"):
            params[seg[1:-1]] = got[i]
        elif seg != got[i]:
            return None
    return params if len(wanted) == len(got) else None


def _specificity(template: str) -> tuple[int, ...]:
    """Lower sorts first: literal segments beat {param}, which beats {greedy+}."""
    return tuple(2 if s.endswith("+}") else 1 if s.startswith("{") else 0 for s in _segments(template))


def _policy_allows(policy: dict[str, Any], arn: str) -> bool:
    """IAM evaluation of the authorizer's policy for execute-api:Invoke on `arn`: explicit deny wins."""
    allowed = False
    for statement in policy.get("Statement", []):
        actions = statement.get("Action", [])
        resources = statement.get("Resource", [])
        actions = [actions] if isinstance(actions, str) else actions
        resources = [resources] if isinstance(resources, str) else resources
        if not any(a in ("*", "execute-api:*", "execute-api:Invoke") for a in actions):
            continue
        # IAM wildcards are * and ?; brackets have no meaning there, so escape them for fnmatch.
        if not any(fnmatch.fnmatchcase(arn, r.replace("[", "[[]")) for r in resources):
            continue
        if statement.get("Effect") == "Deny":
            return False
        allowed = allowed or statement.get("Effect") == "Allow"
    return allowed


class ApiGateway:
    def __init__(
        self,
        api: Api,
        functions: dict[str, LocalFunction],
        region: str,
        cors_origins: tuple[str, ...] = (),
        durable: Callable[[], None] | None = None,
    ) -> None:
        self._api = api
        self._throttle = TokenBuckets(api.throttle_rate, api.throttle_burst)
        per_minute = api.key_requests_per_minute
        # WAF counts a key's requests over the last minute; a bucket of a minute's requests refilled
        # at that rate refuses the same burst and lets through the same steady rate.
        self._per_minute = TokenBuckets(per_minute / 60, per_minute) if per_minute > 0 else None
        self._cors_origins = cors_origins
        # Called before answering a request that may have changed state: it returns once that is
        # saved, so a 2xx from `make run` survives a crash (kill -9) right after it.
        self._durable = durable
        self._functions = functions
        self._region = region
        self._resources: dict[str, dict[str, Route]] = {}
        for route in api.routes:
            self._resources.setdefault(route.path, {})[route.method] = route
        self._cache: dict[tuple[str, tuple[str, ...]], tuple[float, dict[str, Any]]] = {}
        self._cache_lock = threading.Lock()

    def route(self, method: str, path: str) -> tuple[Route, dict[str, str]] | list[str] | None:
        """(route, path parameters); or the allowed methods of a path that exists; or None."""
        fits = [(t, p) for t in self._resources if (p := _match(t, path)) is not None]
        if not fits:
            return None
        resource, params = min(fits, key=lambda fit: _specificity(fit[0]))
        methods = self._resources[resource]
        route = methods.get(method) or methods.get("ANY")
        if route:
            return route, params
        return sorted({*methods, "OPTIONS"} if self._api.cors_preflight else methods)

    def handle(self, request: Request) -> Reply:
        admitted = self.admit(request)
        if isinstance(admitted, Reply):
            return admitted
        route, event = admitted
        reply = self._invoke(route, event)
        self.settle(request.method, reply.status)
        return reply

    def settle(self, method: str, status: int) -> None:
        """Returns once what a request changed is saved (when the stack saves before answering)."""
        if self._durable is not None and method not in _READS and status < 500:
            self._durable()

    def admit(self, request: Request) -> tuple[Route, dict[str, Any]] | Reply:
        """The route and its proxy event, authorized (requestContext.authorizer filled in); or the
        reply API Gateway gives itself (404, 405, preflight, 429, 401, 403)."""
        url = urlsplit(request.target)
        path = unquote(url.path) or "/"
        found = self.route(request.method, path)
        if found is None:
            return Reply.json(404, {"message": f"no route for {request.method} {path}"})
        if isinstance(found, list):
            if request.method == "OPTIONS" and self._api.cors_preflight:
                return self._preflight(request)
            message = f"{request.method} is not allowed on {path}"
            return Reply.json(405, {"message": message}, [("Allow", ", ".join(found))])
        route, params = found
        event = self._event(request, route, path, url.query, params)
        if route.authorizer is not None:
            throttled = self._throttled(route.authorizer, event)
            if throttled is not None:
                return throttled
            denied = self._authorize(route.authorizer, event)
            if denied is not None:
                return denied
        return route, event

    # --- events --------------------------------------------------------------------------------

    def _event(self, request: Request, route: Route, path: str, query: str, params: dict[str, str]) -> dict[str, Any]:
        headers: dict[str, str] = {}
        multi_headers: dict[str, list[str]] = {}
        for name, value in request.headers:
            headers[name] = value
            multi_headers.setdefault(name, []).append(value)
        pairs = parse_qsl(query, keep_blank_values=True)
        multi_query: dict[str, list[str]] = {}
        for name, value in pairs:
            multi_query.setdefault(name, []).append(value)
        body, encoded = self._body(request.body, headers)
        now = datetime.now(UTC)
        return {
            "resource": route.path,
            "path": path,
            "httpMethod": request.method,
            "headers": headers or None,
            "multiValueHeaders": multi_headers or None,
            "queryStringParameters": {k: v[-1] for k, v in multi_query.items()} or None,
            "multiValueQueryStringParameters": multi_query or None,
            "pathParameters": params or None,
            "stageVariables": None,
            "body": body,
            "isBase64Encoded": encoded,
            "requestContext": {
                "accountId": ACCOUNT_ID,
                "apiId": API_ID,
                "resourceId": route.path,
                "resourcePath": route.path,
                "httpMethod": request.method,
                # The path as the client sent it: this front serves the routes at the root (as a custom
                # domain without a base path does), so no "/<stage>" before them; /openapi.json's server.
                "path": path,
                "stage": self._api.stage,
                "protocol": "HTTP/1.1",
                "requestId": str(uuid.uuid4()),
                "extendedRequestId": uuid.uuid4().hex[:16],
                "requestTime": now.strftime("%d/%b/%Y:%H:%M:%S +0000"),
                "requestTimeEpoch": int(now.timestamp() * 1000),
                "domainName": next((v for k, v in request.headers if k.lower() == "host"), "127.0.0.1"),
                "identity": {
                    "sourceIp": request.source_ip,
                    "userAgent": next((v for k, v in request.headers if k.lower() == "user-agent"), None),
                    "apiKey": None,
                    "accessKey": None,
                    "user": None,
                    "userArn": None,
                },
            },
        }

    def _body(self, raw: bytes, headers: dict[str, str]) -> tuple[str | None, bool]:
        if not raw:
            return None, False
        content_type = next((v for k, v in headers.items() if k.lower() == "content-type"), "")
        mime = content_type.split(";")[0].strip().lower()
        binary = any(fnmatch.fnmatchcase(mime, t.lower()) for t in self._api.binary_media_types)
        if not binary:
            try:
                return raw.decode("utf-8"), False
            except UnicodeDecodeError:
                binary = True  # not text whatever it claims: pass it on intact
        return base64.b64encode(raw).decode("ascii"), True

    # --- throttling and CORS preflight ----------------------------------------------------------

    def _throttled(self, authorizer: Authorizer, event: dict[str, Any]) -> Reply | None:
        lowered = {k.lower(): v for k, v in (event["headers"] or {}).items()}
        identity = "\n".join(lowered.get(h, "") for h in authorizer.identity_headers)
        if not identity.strip():
            return None  # no key: the authorizer answers 401
        if self._per_minute is not None and not self._per_minute.take(identity):
            message = (
                f"Too Many Requests: over {self._per_minute.burst} requests a minute for this key; "
                "limit ENGRAM_KEY_REQUESTS_PER_MINUTE (KeyRequestsPerMinute on AWS)"
            )
            return Reply.json(429, {"message": message}, [("Retry-After", "60")])
        if self._throttle.take(identity):
            return None
        rate, burst = self._throttle.rate, self._throttle.burst
        message = (
            f"Too Many Requests: this API key is over {rate:g} requests a second (burst {burst}); "
            "limit ENGRAM_RATE_LIMIT_RPS / ENGRAM_RATE_LIMIT_BURST (ThrottleRateLimit / ThrottleBurstLimit on AWS)"
        )
        return Reply.json(429, {"message": message}, [("Retry-After", "1")])

    def _preflight(self, request: Request) -> Reply:
        """What the template's Cors mock integration answers: 200, and an allowed origin only if configured."""
        headers = [(f"Access-Control-{name}", value) for name, value in self._api.cors_preflight.items()]
        origin = next((v for k, v in request.headers if k.lower() == "origin"), None)
        if origin is not None and origin in self._cors_origins:
            headers += [("Access-Control-Allow-Origin", origin), ("Vary", "Origin")]
        return Reply.json(200, {}, headers)

    # --- authorizer ----------------------------------------------------------------------------

    def _authorize(self, authorizer: Authorizer, event: dict[str, Any]) -> Reply | None:
        """None when allowed (requestContext.authorizer is then filled in), else the error reply."""
        lowered = {k.lower(): v for k, v in (event["headers"] or {}).items()}
        identity = tuple(lowered.get(h, "") for h in authorizer.identity_headers)
        if not all(identity):
            return Reply.json(401, {"message": "Unauthorized"})
        arn = method_arn(self._region, self._api.stage, event["httpMethod"], event["path"])
        started = time.monotonic()
        try:
            result = self._authorizer_result(authorizer, identity, event, arn)
        except Exception as err:  # an authorizer failure is a 401 or 500 reply, as on AWS
            if str(err) == "Unauthorized":  # how a Lambda authorizer asks for a 401
                return Reply.json(401, {"message": "Unauthorized"})
            log.exception("authorizer %s failed", authorizer.name)
            return Reply.json(500, {"message": None})
        if not _policy_allows(result.get("policyDocument") or {}, arn):
            return Reply.json(403, {"Message": "User is not authorized to access this resource with an explicit deny"})
        event["requestContext"]["authorizer"] = {
            **(result.get("context") or {}),
            "principalId": result.get("principalId"),
            "integrationLatency": int((time.monotonic() - started) * 1000),
        }
        return None

    def _authorizer_result(
        self, authorizer: Authorizer, identity: tuple[str, ...], event: dict[str, Any], arn: str
    ) -> dict[str, Any]:
        key = (authorizer.name, identity)
        with self._cache_lock:
            cached = self._cache.get(key)
        if cached is not None and cached[0] > time.monotonic():
            return cached[1]
        auth_event = {
            "type": authorizer.payload_type,
            "methodArn": arn,
            **{k: v for k, v in event.items() if k not in ("body", "isBase64Encoded")},
        }
        if authorizer.payload_type == "TOKEN":
            auth_event = {"type": "TOKEN", "methodArn": arn, "authorizationToken": identity[0]}
        result = self._functions[authorizer.function].invoke(auth_event)
        if not isinstance(result, dict) or "policyDocument" not in result:
            raise ValueError(f"authorizer {authorizer.name} returned no policy")
        if authorizer.ttl_s > 0:
            with self._cache_lock:
                self._cache[key] = (time.monotonic() + authorizer.ttl_s, result)
        return result

    # --- integration ---------------------------------------------------------------------------

    def _invoke(self, route: Route, event: dict[str, Any]) -> Reply:
        try:
            result = self._functions[route.function].invoke(event)
        except Exception:  # a function error is API Gateway's 502, with the traceback logged
            log.exception("%s failed on %s %s", route.function, event["httpMethod"], event["path"])
            return Reply.json(502, {"message": "Internal server error"})
        if not isinstance(result, dict) or not isinstance(result.get("statusCode"), int):
            log.error("%s returned a malformed proxy response: %.200r", route.function, result)
            return Reply.json(502, {"message": "Internal server error"})
        headers: list[tuple[str, str]] = []
        for name, values in (result.get("multiValueHeaders") or {}).items():
            headers.extend((name, str(v)) for v in values)
        multi = {name.lower() for name, _ in headers}
        headers.extend((k, str(v)) for k, v in (result.get("headers") or {}).items() if k.lower() not in multi)
        headers = [(k, v) for k, v in headers if k.lower() not in _HOP_BY_HOP]
        if not any(k.lower() == "content-type" for k, _ in headers):
            headers.append(("Content-Type", "application/json"))
        headers.append(("x-amzn-RequestId", event["requestContext"]["requestId"]))
        body = result.get("body") or ""
        raw = base64.b64decode(body) if result.get("isBase64Encoded") else str(body).encode("utf-8")
        return Reply(result["statusCode"], headers, raw)
