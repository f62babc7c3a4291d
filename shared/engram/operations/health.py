"""Deep health: each dependency checked through its port, all at once, each bounded by a timeout.

A check is a callable that raises when its dependency is down and may return a note ("not
configured"). A check still running at the timeout is reported down; its thread is left to finish
on its own (the answer does not wait for it)."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field

from engram.domain.errors import NotFoundError
from engram.domain.operations import CheckResult, HealthReport

Check = Callable[[], str | None]
MAX_ERROR_CHARS = 300


def absent_is_fine(read: Callable[[], object]) -> Check:
    """A read of a key that never exists: NotFound means the store answered."""

    def check() -> None:
        try:
            read()
        except NotFoundError:
            return None
        return None

    return check


@dataclass
class HealthCheck:
    checks: Mapping[str, Check]
    timeout_s: float = 5.0
    clock: Callable[[], float] = field(default=time.perf_counter)

    def run(self) -> HealthReport:
        pool = ThreadPoolExecutor(max_workers=max(1, len(self.checks)), thread_name_prefix="health")
        started: dict[str, float] = {}
        ended: dict[str, float] = {}

        def timed(name: str, check: Check) -> str | None:
            started[name] = self.clock()
            try:
                return check()
            finally:
                ended[name] = self.clock()

        futures: dict[str, Future[str | None]] = {n: pool.submit(timed, n, c) for n, c in self.checks.items()}
        wait(futures.values(), timeout=self.timeout_s)
        pool.shutdown(wait=False, cancel_futures=True)
        results = {name: self._result(name, future, started, ended) for name, future in futures.items()}
        down = sorted(name for name, result in results.items() if not result.ok)
        return HealthReport(status="down" if down else "ok", checks=results, down=down)

    def _result(
        self, name: str, future: Future[str | None], started: dict[str, float], ended: dict[str, float]
    ) -> CheckResult:
        if not future.done():
            return CheckResult(ok=False, latency_ms=self.timeout_s * 1000, error=f"timed out after {self.timeout_s}s")
        latency = round((ended.get(name, 0.0) - started.get(name, 0.0)) * 1000, 1)
        error = future.exception()
        if error is not None:  # reported, which is what a health check is for
            text = f"{type(error).__name__}: {error}"[:MAX_ERROR_CHARS]
            return CheckResult(ok=False, latency_ms=latency, error=text)
        return CheckResult(ok=True, latency_ms=latency, detail=future.result())
