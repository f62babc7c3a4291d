"""A hostile client for the attack tests: sends requests, counts them, the 5xx answers and the leaks.

A leak is any secret of the victim (an id, a memory's text, a user name, ...) in an answer, unless the
attacker itself sent that string (a 404 naming the id it asked for leaks nothing)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import httpx

Headers = list[tuple[str, str]]


@dataclass
class Probe:
    url: str
    key: str
    secrets: set[str]
    tried: int = 0
    server_errors: int = 0
    leaks: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._client = httpx.Client(base_url=self.url, timeout=30)

    def close(self) -> None:
        self._client.close()

    def spellings(self) -> list[Headers]:
        """The attacker's own key, in the header spellings and duplicates a client might send."""
        k = self.key
        return [
            [("x-api-key", k)],
            [("X-API-KEY", k)],
            [("X-Api-Key", k)],
            [("x-api-key", "not-a-key"), ("x-api-key", k)],  # duplicates: one of them is the attacker's
            [("x-api-key", k), ("X-API-KEY", "not-a-key")],
            [("x-api-key", k), ("x-tenant-id", "acme"), ("x-amzn-requestcontext-authorizer-tenant_id", "acme")],
        ]

    def send(
        self,
        method: str,
        path: str,
        *,
        body: Any = None,
        params: dict[str, Any] | list[tuple[str, str]] | None = None,
        headers: Headers | None = None,
    ) -> httpx.Response:
        sent_headers = headers if headers is not None else [("x-api-key", self.key)]
        content = None if body is None else json.dumps(body).encode()
        if content is not None:
            sent_headers = [*sent_headers, ("content-type", "application/json")]
        resp = self._client.request(method, path, content=content, params=params, headers=sent_headers)
        request_text = f"{path} {body!r} {json.dumps(body)} {params!r} {httpx.QueryParams(params or {})}"
        self.check(f"{method} {path} {params or ''}", resp.status_code, resp.text, request_text)
        return resp

    def check(self, what: str, status: int, answer: str, request_text: str = "") -> None:
        """Counts one exchange (HTTP or a WebSocket message) and what it gave away."""
        self.tried += 1
        if status >= 500:
            self.server_errors += 1
            self.errors.append(f"{status} {what}: {answer[:200]}")
        found = [s for s in self.secrets if s in answer and s not in request_text]
        if found:
            self.leaks.append(f"{what} -> {status} gave away {found}: {answer[:300]}")

    def each(self, requests: Iterable[tuple[str, str, dict[str, Any]]], with_spellings: bool = True) -> None:
        """Every (method, path, options) once per header spelling (or once with the plain header)."""
        spellings = self.spellings() if with_spellings else [[("x-api-key", self.key)]]
        for method, path, options in requests:
            for headers in spellings:
                self.send(method, path, headers=headers, **options)
