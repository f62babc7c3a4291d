"""When to retry a request and how long to wait: exponential backoff with full jitter, honouring
Retry-After. Throttling (429) and an unavailable or failing gateway (502/503/504) are retried for every
method: the request was not processed. A 500 or a dropped connection after sending is retried only for
reads and deletes, since a repeated POST could store an input twice."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

import httpx

ALWAYS_RETRIED = frozenset({429, 502, 503, 504})
IDEMPOTENT = frozenset({"GET", "HEAD", "OPTIONS", "DELETE", "PUT"})


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 4  # tries in all, the first included
    base_delay: float = 0.25
    max_delay: float = 8.0

    def delay(self, attempt: int, retry_after: str | None = None) -> float:
        """Seconds to sleep before try `attempt + 1` (attempt counts from 1)."""
        if retry_after:
            try:
                return min(self.max_delay, max(0.0, float(retry_after)))
            except ValueError:
                pass  # an HTTP date: fall back to backoff
        return random.uniform(0, min(self.max_delay, self.base_delay * 2 ** (attempt - 1)))  # noqa: S311 - jitter

    def retries_status(self, method: str, status: int) -> bool:
        return status in ALWAYS_RETRIED or (status >= 500 and method in IDEMPOTENT)

    def retries_error(self, method: str, error: httpx.TransportError) -> bool:
        # A refused or timed-out connect never reached the server; anything later might have.
        return isinstance(error, httpx.ConnectError | httpx.ConnectTimeout) or method in IDEMPOTENT


def poll_delays(first: float = 0.05, factor: float = 1.5, cap: float = 1.0) -> Iterator[float]:
    """Waits between task polls: quick at first (offline extraction takes a fraction of a second)."""
    delay = first
    while True:
        yield delay
        delay = min(cap, delay * factor)


@dataclass(frozen=True)
class Step:
    """What one try came to: a value, an error to raise, or a wait before trying again."""

    value: object = None
    error: Exception | None = None
    retry_in: float | None = None
