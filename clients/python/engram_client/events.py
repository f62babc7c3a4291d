"""Live task events over WebSocket (`/v1/events` on the API's host and port), where the server offers them.

Needs the `websockets` package (the `events` extra); without it, or when the server answers the upgrade
with anything but 101, `EventsUnavailable` is raised and callers fall back to polling the task."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlencode, urlsplit, urlunsplit

from engram_client.errors import EngramError


class EventsUnavailable(EngramError):
    """This server (or this installation) offers no live events."""


def events_url(base_url: str, user_id: str | None = None) -> str:
    parts = urlsplit(base_url)
    scheme = "wss" if parts.scheme == "https" else "ws"
    query = urlencode({"user_id": user_id}) if user_id else ""
    return urlunsplit((scheme, parts.netloc, parts.path.rstrip("/") + "/v1/events", query, ""))


FINAL = frozenset({"memory_extraction_completed", "memory_extraction_failed"})


class EventStream:
    """An open subscription: iterate it for events, or `wait_for(task_id)` for the end of one task."""

    def __init__(self, connection: Any) -> None:
        self._connection = connection

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for frame in self._connection:
            event = json.loads(frame)
            if isinstance(event, dict):
                yield event

    def wait_for(self, task_id: str, timeout: float) -> bool:
        """True once the task's completed or failed event arrived; False after `timeout` seconds or when the
        server closed the stream (the caller then reads the task itself)."""
        from websockets.exceptions import ConnectionClosed

        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                event = json.loads(self._connection.recv(timeout=left))
            except (TimeoutError, ConnectionClosed, json.JSONDecodeError):
                return False
            if isinstance(event, dict) and event.get("task_id") == task_id and event.get("type") in FINAL:
                return True
        return False


@contextmanager
def event_stream(
    base_url: str, api_key: str | None, user_id: str | None = None, open_timeout: float = 5.0
) -> Iterator[EventStream]:
    """An open subscription; iterate it for events (dicts with type, task_id, status, ...)."""
    try:
        from websockets.exceptions import InvalidHandshake
        from websockets.sync.client import connect
    except ImportError as error:
        raise EventsUnavailable(
            'live events need the websockets package: pip install "engram-client[events]"'
        ) from error
    headers = {"x-api-key": api_key} if api_key else {}
    try:
        connection = connect(
            events_url(base_url, user_id), additional_headers=headers, open_timeout=open_timeout, proxy=None
        )
    except (InvalidHandshake, OSError, TimeoutError) as error:
        raise EventsUnavailable(f"{events_url(base_url)} refused the upgrade: {error}") from error
    with connection:
        yield EventStream(connection)
