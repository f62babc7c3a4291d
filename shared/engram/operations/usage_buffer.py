"""Search counts written off the request path: summed in memory, one UpdateItem per tenant and day
every few seconds.

A search used to wait on its own counter write (an UpdateItem, a DynamoDB round trip on every
search). Here the counts wait in this container and a background thread writes them every
`interval_s` seconds, or sooner when `max_pending` searches wait. Reading the counters through this
buffer writes what waits first, so this container's own report is exact; another container's counts
show up within `interval_s`. A container reclaimed before its next write loses at most that many
seconds of search counts (never a memory, never an add's count: those are written as tasks finish).
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Mapping, Sequence

from aws_lambda_powertools import Logger

from engram.domain.errors import EngramError
from engram.domain.operations import UsageDay
from engram.domain.operations_ports import UsageCounters

logger = Logger(child=True)


class BufferedUsageCounters:
    def __init__(self, counters: UsageCounters, interval_s: float = 5.0, max_pending: int = 200) -> None:
        self._counters = counters
        self._interval_s = interval_s
        self._max_pending = max_pending
        self._pending: dict[tuple[str, str], dict[str, int]] = defaultdict(dict)
        self._waiting = 0
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._closed = False
        self._thread: threading.Thread | None = None

    def add(self, tenant_id: str, day: str, counts: Mapping[str, int]) -> None:
        with self._lock:
            total = self._pending[(tenant_id, day)]
            for name, value in counts.items():
                total[name] = total.get(name, 0) + value
            self._waiting += 1
            waiting = self._waiting
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="engram-usage", daemon=True)
                self._thread.start()
        if waiting >= self._max_pending:
            self._wake.set()

    def days(self, tenant_id: str, days: Sequence[str]) -> list[UsageDay]:
        self.flush()
        return self._counters.days(tenant_id, days)

    def flush(self) -> None:
        """Writes what waits now, one write per tenant and day; a failed write is logged and dropped
        (counts are statistics: retrying them into a struggling table would make things worse)."""
        with self._lock:
            pending, self._pending, self._waiting = self._pending, defaultdict(dict), 0
        for (tenant_id, day), counts in pending.items():
            try:
                self._counters.add(tenant_id, day, counts)
            except EngramError:
                logger.exception("usage counts not written", extra={"tenant_id": tenant_id, "counts": counts})

    def close(self) -> None:
        """Writes what waits and stops the background thread (a container that is being discarded)."""
        self._closed = True
        self._wake.set()
        self.flush()

    def _loop(self) -> None:
        while not self._closed:
            self._wake.wait(self._interval_s)
            self._wake.clear()
            self.flush()
