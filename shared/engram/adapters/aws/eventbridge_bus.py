"""The memory event bus on Amazon EventBridge (PutEvents): one entry per event, source "engram",
detail-type the event name ("memory.added", ...), so rules match on `detail-type` and `detail.tenant_id`."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engram.adapters.aws.clients import aws_errors
from engram.domain.bus_events import SOURCE

MAX_ENTRIES = 10  # PutEvents' limit per call


class EventBridgeBus:
    """`client` is a boto3 `events` client or a function building it on first use (once per container)."""

    def __init__(self, client: Any | Callable[[], Any], bus_name: str) -> None:
        self._client = client
        self._bus_name = bus_name

    def put(self, entries: Sequence[Mapping[str, Any]]) -> list[int]:
        if len(entries) > MAX_ENTRIES:
            raise ValueError(f"at most {MAX_ENTRIES} entries per call")
        if not entries:
            return []
        request = [
            {
                "Source": SOURCE,
                "DetailType": str(e["event"]),
                "Detail": json.dumps(e["detail"], separators=(",", ":"), default=str),
                "EventBusName": self._bus_name,
            }
            for e in entries
        ]
        with aws_errors(f"event bus {self._bus_name}"):
            reply = self._events().put_events(Entries=request)
        if not reply.get("FailedEntryCount"):
            return []
        return [i for i, r in enumerate(reply.get("Entries", [])) if r.get("ErrorCode")]

    def _events(self) -> Any:
        if callable(self._client) and not hasattr(self._client, "put_events"):
            self._client = self._client()
        return self._client
