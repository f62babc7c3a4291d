"""A circuit breaker around the LLM, shared by every worker through a BreakerStore.

Closed: calls go through; an outage error (timeout, 5xx, throttling) is recorded, and `threshold` of
them within `window_s` open it. Open: calls fail fast with CircuitOpenError until `cooldown_s` has
passed. Then one caller claims the trial (half-open); its success closes the breaker, its failure
opens it again for another cooldown. A reply the LLM gave but that was unusable is the input's fault
and counts as the LLM being up. Every change is a conditional write, so concurrent workers agree.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aws_lambda_powertools import Logger

from engram.domain.errors import CircuitOpenError, LLMOutputError, TransientError
from engram.domain.operations import BreakerState, BreakerStatus
from engram.domain.operations_ports import BreakerStore, Metrics
from engram.domain.ports import LLM
from engram.domain.steps import LLMReply

logger = Logger(child=True)

_CONFLICT_RETRIES = 5
# Counted (metric) each time the breaker opens or refuses a call while open: LlmCircuitOpenAlarm
# (template.yaml) fires on any.
OPEN_METRIC = "LLMCircuitOpen"


@dataclass
class CircuitBreaker:
    store: BreakerStore
    name: str = "llm"
    threshold: int = 5
    window_s: float = 600.0
    cooldown_s: float = 300.0
    clock: Callable[[], float] = field(default=time.time)
    # A closed state this instance read or wrote within `fresh_s` (real time) is trusted without a
    # read: two DynamoDB reads per LLM call were most of a live add's AWS calls. Another worker's
    # opening is seen that much later; failures are always recorded on a fresh read.
    fresh_s: float = 5.0
    metrics: Metrics | None = None
    _known: tuple[float, BreakerState] | None = field(default=None, repr=False)

    def before_call(self) -> None:
        """Returns when a call may go ahead; raises CircuitOpenError while the breaker is open."""
        known = self._fresh()
        if known is not None and known.status is BreakerStatus.CLOSED:
            return
        for _ in range(_CONFLICT_RETRIES):
            state, now = self._load(), self.clock()
            if state.status is BreakerStatus.CLOSED:
                return
            reopen_at = max(state.opened_at, state.trial_at) + self.cooldown_s
            if now < reopen_at:
                self._count_open()
                raise CircuitOpenError(f"LLM circuit breaker open: {state.reason}", reopen_at - now)
            trial = state.model_copy(update={"status": BreakerStatus.HALF_OPEN, "trial_at": now})
            if self._save(trial, state):
                logger.info("circuit breaker half-open: trial call", extra={"breaker": self.name})
                return
        raise CircuitOpenError("LLM circuit breaker busy: another worker is deciding", self.cooldown_s)

    def state(self) -> BreakerState:
        return self._load()

    def record_success(self) -> None:
        known = self._fresh()
        if known is not None and known.status is BreakerStatus.CLOSED and not known.failures:
            return  # nothing to reset
        for _ in range(_CONFLICT_RETRIES):
            state = self._load()
            if state.status is BreakerStatus.CLOSED and not state.failures:
                return
            closing = state.status is not BreakerStatus.CLOSED
            closed = state.model_copy(
                update={
                    "status": BreakerStatus.CLOSED,
                    "failures": [],
                    "reason": "",
                    "times_closed": state.times_closed + closing,
                }
            )
            if self._save(closed, state):
                if closing:
                    logger.info("circuit breaker closed", extra={"breaker": self.name})
                return

    def record_failure(self, reason: str) -> None:
        for _ in range(_CONFLICT_RETRIES):
            state, now = self._load(), self.clock()
            if state.status is BreakerStatus.OPEN:
                return  # a call that started before it opened
            recent = [t for t in state.failures if t > now - self.window_s] + [now]
            if state.status is BreakerStatus.HALF_OPEN or len(recent) >= self.threshold:
                update: dict[str, Any] = {
                    "status": BreakerStatus.OPEN,
                    "opened_at": now,
                    "failures": [],
                    "reason": reason,
                    "times_opened": state.times_opened + (state.status is BreakerStatus.CLOSED),
                }
            else:
                update = {"failures": recent}
            if self._save(state.model_copy(update=update), state):
                if update.get("status") is BreakerStatus.OPEN:
                    logger.warning("circuit breaker open", extra={"breaker": self.name, "reason": reason})
                    self._count_open()
                return

    def _count_open(self) -> None:
        if self.metrics is not None:
            self.metrics.add(OPEN_METRIC, 1)

    def _load(self) -> BreakerState:
        state = self.store.load(self.name)
        self._known = (time.monotonic(), state)
        return state

    def _fresh(self) -> BreakerState | None:
        known = self._known
        return known[1] if known is not None and time.monotonic() - known[0] < self.fresh_s else None

    def _save(self, new: BreakerState, read: BreakerState) -> bool:
        saved = new.model_copy(update={"version": read.version + 1})
        if self.store.save(saved, read.version):
            self._known = (time.monotonic(), saved)
            return True
        self._known = None  # another writer was first: read again next time
        return False


@dataclass
class GuardedLLM:
    """The LLM port behind a circuit breaker."""

    llm: LLM
    breaker: CircuitBreaker

    def ping(self) -> None:
        """Down while the breaker is open (calls are refused), else the LLM's own answer."""
        state = self.breaker.state()
        if state.status is BreakerStatus.OPEN:
            raise CircuitOpenError(f"LLM circuit breaker open: {state.reason}", self.breaker.cooldown_s)
        self.llm.ping()

    def complete_json(self, system: str, user: str, schema: dict[str, Any], schema_name: str) -> LLMReply:
        self.breaker.before_call()
        try:
            reply = self.llm.complete_json(system, user, schema, schema_name)
        except TransientError as err:
            self.breaker.record_failure(f"{type(err).__name__}: {err}")
            raise
        except LLMOutputError:
            self.breaker.record_success()  # it answered; the answer was the trouble
            raise
        self.breaker.record_success()
        return reply
