"""Request throttling of the local front: one token bucket per API key, as API Gateway's throttling
(steady `rate` requests a second, up to `burst` at once), answered with the same 429."""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable

MAX_BUCKETS = 10_000  # beyond this, full (idle) buckets are dropped: made-up keys cannot grow memory


class TokenBuckets:
    def __init__(self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError(f"throttling needs a rate above 0 and a burst of at least 1 (got {rate}, {burst})")
        self.rate = rate
        self.burst = burst
        self._clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}  # key digest -> (tokens, when counted)
        self._lock = threading.Lock()

    def take(self, key: str) -> bool:
        """True when `key` may send a request now (one token taken), False when it is over the limit."""
        digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()  # no plaintext keys held
        now = self._clock()
        with self._lock:
            tokens, then = self._buckets.get(digest, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - then) * self.rate)
            allowed = tokens >= 1.0
            self._buckets[digest] = (tokens - 1.0 if allowed else tokens, now)
            if len(self._buckets) > MAX_BUCKETS:
                self._drop_full(now)
        return allowed

    def _drop_full(self, now: float) -> None:
        full = [d for d, (tokens, then) in self._buckets.items() if tokens + (now - then) * self.rate >= self.burst]
        for digest in full:
            del self._buckets[digest]
