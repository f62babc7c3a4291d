"""Counts the AWS requests the bootstrap's boto3 clients send (botocore event hooks) and the OpenSearch
requests of the simulated cluster: per operation, requests, bytes each way, and DynamoDB capacity units
estimated from the request and answer sizes (what on-demand bills: RRU/WRU).

Capacity estimate, per DynamoDB's rules (1 WRU per started KB of item written, 1 RRU per started 4 KB
read strongly consistent, half of that eventually consistent, transactions twice): the request's
item JSON stands for the item written and the answer's for what was read. DynamoDB JSON carries type
tags, so this errs a little high; an UpdateItem bills the whole item after the update, not the
request, which the estimate misses for large items (counters and task items are small).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from tests.integration.opensearch_sim import SimIndex

READS = {"GetItem", "Query", "Scan", "BatchGetItem", "TransactGetItems"}
WRITES = {"PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems"}


@dataclass
class Tally:
    requests: int = 0
    request_bytes: int = 0
    response_bytes: int = 0
    rru: float = 0.0
    wru: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "requests": self.requests,
            "request_bytes": self.request_bytes,
            "response_bytes": self.response_bytes,
        }
        if self.rru or self.wru:
            out |= {"rru": round(self.rru, 1), "wru": round(self.wru, 1)}
        return out


def _kb(obj: Any, unit: int) -> int:
    return max(1, math.ceil(len(json.dumps(obj)) / unit))


def write_units(operation: str, body: dict[str, Any]) -> float:
    if operation in ("PutItem",):
        return _kb(body.get("Item", {}), 1024)
    if operation in ("UpdateItem", "DeleteItem"):
        return 1.0  # small items: counters, tasks, deletes bill the item's size, at least one unit
    if operation == "BatchWriteItem":
        items = [r.get("PutRequest", {}).get("Item", {}) for reqs in body["RequestItems"].values() for r in reqs]
        return float(sum(_kb(item, 1024) for item in items))
    if operation == "TransactWriteItems":
        return float(sum(2 * _kb(next(iter(t.values())).get("Item", {}), 1024) for t in body["TransactItems"]))
    return 0.0


def read_units(operation: str, body: dict[str, Any], answer: dict[str, Any]) -> float:
    half = 1.0 if body.get("ConsistentRead") else 0.5
    if operation == "GetItem":
        return half * _kb(answer.get("Item", {}), 4096)
    if operation in ("Query", "Scan"):
        return half * _kb(answer.get("Items", []), 4096)
    if operation == "BatchGetItem":
        items = [i for found in answer.get("Responses", {}).values() for i in found]
        return 0.5 * sum(_kb(i, 4096) for i in items) if items else 0.5
    if operation == "TransactGetItems":
        return float(sum(2 * _kb(r.get("Item", {}), 4096) for r in answer.get("Responses", [])))
    return 0.0


@dataclass
class Recorder:
    """Attach it to clients; `measure()` yields a dict filled with what was sent inside the block."""

    sim: SimIndex
    tallies: dict[str, Tally] = field(default_factory=dict)
    enabled: bool = False
    _bodies: dict[int, dict[str, Any]] = field(default_factory=dict)

    def attach(self, client: Any) -> None:
        client.meta.events.register("before-send", self._sent)
        client.meta.events.register("after-call", self._answered)

    def _sent(self, request: Any, event_name: str, **_: Any) -> None:
        if not self.enabled:
            return
        _, service, operation = event_name.split(".")
        tally = self.tallies.setdefault(f"{service}.{operation}", Tally())
        body = request.body or b""
        tally.requests += 1
        tally.request_bytes += len(body)
        if service == "dynamodb":
            parsed = json.loads(body) if body else {}
            self._bodies[id(tally)] = parsed
            tally.wru += write_units(operation, parsed) if operation in WRITES else 0.0

    def _answered(self, http_response: Any, parsed: Any, model: Any, event_name: str, **_: Any) -> None:
        if not self.enabled:
            return
        _, service, operation = event_name.split(".")
        tally = self.tallies.setdefault(f"{service}.{operation}", Tally())
        tally.response_bytes += len(http_response.content or b"")
        if service == "dynamodb" and operation in READS:
            answer = json.loads(http_response.content or b"{}")
            tally.rru += read_units(operation, self._bodies.pop(id(tally), {}), answer)

    @contextmanager
    def measure(self) -> Iterator[dict[str, dict[str, Any]]]:
        self.tallies, self.enabled = {}, True
        first = len(self.sim.requests)
        out: dict[str, dict[str, Any]] = {}
        try:
            yield out
        finally:
            self.enabled = False
            for sent in self.sim.requests[first:]:
                tally = self.tallies.setdefault(f"opensearch.{sent.method} {sent.path}", Tally())
                tally.requests += 1
                tally.request_bytes += sent.request_bytes
                tally.response_bytes += sent.response_bytes
            out.update({name: t.as_dict() for name, t in sorted(self.tallies.items())})
