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
from engram.domain.models import LLMReply
from engram.domain.operations import BreakerState, BreakerStatus
from engram.domain.ports import LLM, BreakerStore

logger = Logger(child=True)

_CONFLICT_RETRIES = 5


@dataclass
class CircuitBreaker:
    store: BreakerStore
    name: str = "llm"
    threshold: int = 5
    window_s: float = 600.0
    cooldown_s: float = 300.0
    clock: Callable[[], float] = field(default=time.time)

    def before_call(self) -> None:
        """Returns when a call may go ahead; raises CircuitOpenError while the breaker is open."""
        for _ in range(_CONFLICT_RETRIES):
            state, now = self.store.load(self.name), self.clock()
            if state.status is BreakerStatus.CLOSED:
                return
            reopen_at = max(state.opened_at, state.trial_at) + self.cooldown_s
            if now < reopen_at:
                raise CircuitOpenError(f"LLM circuit breaker open: {state.reason}", reopen_at - now)
            trial = state.model_copy(update={"status": BreakerStatus.HALF_OPEN, "trial_at": now})
            if self._save(trial, state):
                logger.info("circuit breaker half-open: trial call", extra={"breaker": self.name})
                return
        raise CircuitOpenError("LLM circuit breaker busy: another worker is deciding", self.cooldown_s)

    def state(self) -> BreakerState:
        return self.store.load(self.name)

    def record_success(self) -> None:
        for _ in range(_CONFLICT_RETRIES):
            state = self.store.load(self.name)
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
            state, now = self.store.load(self.name), self.clock()
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
                return

    def _save(self, new: BreakerState, read: BreakerState) -> bool:
        return self.store.save(new.model_copy(update={"version": read.version + 1}), read.version)


@dataclass
class GuardedLLM:
    """The LLM port behind a circuit breaker."""

    llm: LLM
    breaker: CircuitBreaker

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
