"""The LLM circuit breaker: opens after `threshold` outage errors within the window, fails fast while
open, lets one trial through after the cooldown, and ignores errors that are the input's fault."""

from __future__ import annotations

from typing import Any

import pytest

from engram.domain.errors import CircuitOpenError, LLMOutputError, TransientError
from engram.domain.operations import BreakerState, BreakerStatus
from engram.domain.steps import LLMReply
from engram.operations.circuit_breaker import OPEN_METRIC, CircuitBreaker, GuardedLLM
from engram.operations.metrics import RecordedMetrics
from tests.fakes import Clock, MemoryBreakerStore


class FlakyLLM:
    def __init__(self) -> None:
        self.error: Exception | None = TransientError("LLM 500")
        self.calls = 0

    def complete_json(self, system: str, user: str, schema: dict[str, Any], schema_name: str) -> LLMReply:
        self.calls += 1
        if self.error is not None:
            raise self.error
        return LLMReply(content="{}")


def guarded() -> tuple[GuardedLLM, FlakyLLM, CircuitBreaker, Clock]:
    clock, llm = Clock(), FlakyLLM()
    breaker = CircuitBreaker(MemoryBreakerStore(), clock=clock)  # the seed's 5 / 10 min / 5 min
    return GuardedLLM(llm, breaker), llm, breaker, clock


def call(guard: GuardedLLM) -> None:
    guard.complete_json("s", "u", {}, "x")


def fail(guard: GuardedLLM, times: int, clock: Clock | None = None, step_s: float = 0) -> None:
    """`times` calls that each meet an outage error, `step_s` apart."""
    for _ in range(times):
        with pytest.raises(TransientError):
            call(guard)
        if clock is not None:
            clock.now += step_s


def test_five_outage_errors_open_it_and_calls_then_fail_fast() -> None:
    guard, llm, breaker, clock = guarded()
    fail(guard, 5, clock, 30)
    with pytest.raises(CircuitOpenError) as open_:
        call(guard)
    assert llm.calls == 5
    assert breaker.state().status is BreakerStatus.OPEN
    assert "LLM 500" in str(open_.value) and 0 < open_.value.retry_after_s <= 300


def test_errors_spread_wider_than_the_window_do_not_open_it() -> None:
    guard, llm, breaker, clock = guarded()
    fail(guard, 8, clock, 200)  # at most 3 within any 10 minutes
    assert breaker.state().status is BreakerStatus.CLOSED and llm.calls == 8


def test_after_the_cooldown_one_trial_runs_and_its_success_closes_it() -> None:
    guard, llm, breaker, clock = guarded()
    fail(guard, 5)
    clock.now += 301
    llm.error = None
    breaker.before_call()  # another worker claims the trial first
    with pytest.raises(CircuitOpenError):
        call(guard)  # ...so this one waits
    breaker.record_success()
    call(guard)
    state = breaker.state()
    assert state.status is BreakerStatus.CLOSED
    assert (state.times_opened, state.times_closed) == (1, 1)


def test_a_failed_trial_opens_it_for_another_cooldown() -> None:
    guard, llm, breaker, clock = guarded()
    fail(guard, 5)
    clock.now += 301
    with pytest.raises(TransientError):
        call(guard)  # the trial
    clock.now += 200
    with pytest.raises(CircuitOpenError):
        call(guard)
    assert llm.calls == 6 and breaker.state().times_opened == 1


def test_unusable_replies_are_the_inputs_fault_and_never_open_it() -> None:
    guard, llm, breaker, _ = guarded()
    llm.error = LLMOutputError("not JSON after repair")
    for _ in range(10):
        with pytest.raises(LLMOutputError):
            call(guard)
    assert breaker.state().status is BreakerStatus.CLOSED and llm.calls == 10


def test_settings_change_threshold_and_cooldown() -> None:
    clock, llm = Clock(), FlakyLLM()
    guard = GuardedLLM(llm, CircuitBreaker(MemoryBreakerStore(), threshold=2, cooldown_s=10, clock=clock))
    fail(guard, 2)
    with pytest.raises(CircuitOpenError):
        call(guard)
    clock.now += 11
    llm.error = None
    call(guard)
    assert llm.calls == 3


def test_the_health_ping_is_down_while_the_breaker_is_open() -> None:
    guard, llm, _, _ = guarded()
    pings: list[int] = []
    llm.ping = lambda: pings.append(1)  # type: ignore[attr-defined]
    guard.ping()
    assert pings == [1]
    fail(guard, 5)
    with pytest.raises(CircuitOpenError, match="circuit breaker open"):
        guard.ping()
    assert pings == [1]  # refused without bothering the LLM


class CountingBreakerStore(MemoryBreakerStore):
    def __init__(self) -> None:
        super().__init__()
        self.loads = 0

    def load(self, name: str) -> BreakerState:
        self.loads += 1
        return super().load(name)


def test_calls_through_a_closed_breaker_read_its_state_once_not_twice_per_call() -> None:
    store, llm = CountingBreakerStore(), FlakyLLM()
    llm.error = None
    guard = GuardedLLM(llm, CircuitBreaker(store))
    for _ in range(10):
        call(guard)
    assert llm.calls == 10 and store.loads == 1


def test_another_workers_opening_is_seen_once_the_known_state_is_stale() -> None:
    clock, store, llm = Clock(), MemoryBreakerStore(), FlakyLLM()
    llm.error = None
    ours = GuardedLLM(llm, CircuitBreaker(store, clock=clock, fresh_s=0.0))
    call(ours)
    theirs = GuardedLLM(FlakyLLM(), CircuitBreaker(store, clock=clock))
    fail(theirs, 5)
    with pytest.raises(CircuitOpenError):
        call(ours)


def test_opening_and_each_refused_call_are_counted_for_the_alarm() -> None:
    """LlmCircuitOpenAlarm (template.yaml) fires on the LLMCircuitOpen metric."""
    clock, llm, metrics = Clock(), FlakyLLM(), RecordedMetrics()
    guard = GuardedLLM(llm, CircuitBreaker(MemoryBreakerStore(), clock=clock, metrics=metrics))
    fail(guard, 4, clock, 30)
    assert metrics.total(OPEN_METRIC) == 0  # failing, still closed
    fail(guard, 1, clock, 30)
    assert metrics.total(OPEN_METRIC) == 1  # opened
    for _ in range(2):
        with pytest.raises(CircuitOpenError):
            call(guard)
    assert metrics.total(OPEN_METRIC) == 3
