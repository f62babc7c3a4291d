"""One log line a minute while the worker is busy (as seed 004's queue worker does): tasks processed
and failed since the last line, their average duration and the queue's pending messages.

Lines are written as tasks finish, so an idle worker writes none; the line says how long its window
really was (the first task after a quiet spell closes a window that began before it)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aws_lambda_powertools import Logger

from engram.domain.errors import EngramError

logger = Logger(child=True)


@dataclass
class BusyLog:
    pending: Callable[[], int] | None = None  # the queue's waiting messages, read once per line
    clock: Callable[[], float] = field(default=time.monotonic)
    every_s: float = 60.0
    _started: float | None = None
    _processed: int = 0
    _failed: int = 0
    _seconds: float = 0.0

    def finished(self, ok: bool, duration_s: float) -> dict[str, Any] | None:
        """Counts one finished task; returns the line's fields when a line was written."""
        now = self.clock()
        if self._started is None:
            self._started = now
        if ok:
            self._processed += 1
            self._seconds += max(0.0, duration_s)
        else:
            self._failed += 1
        if now - self._started < self.every_s:
            return None
        line = {
            "processed": self._processed,
            "failed": self._failed,
            "avg_duration_s": round(self._seconds / self._processed, 3) if self._processed else 0.0,
            "queue_pending": self._queue_pending(),
            "window_s": round(now - self._started, 1),
        }
        logger.info(
            f"extraction queue metrics: {line['processed']} processed, {line['failed']} failed, "
            f"avg {line['avg_duration_s']}s, {line['queue_pending']} pending",
            extra=line,
        )
        self._started, self._processed, self._failed, self._seconds = now, 0, 0, 0.0
        return line

    def _queue_pending(self) -> int | None:
        if self.pending is None:
            return None
        try:
            return self.pending()
        except EngramError:  # the line goes out without it; the queue is not this log's business
            return None
