"""What finished tasks and searches cost and did: CloudWatch metrics, the tenant's daily usage
counters and the worker's minute log line. Called by TaskEvents (best-effort) and the search route.

Tasks extracted together (`processed_with`) share one run: its LLM usage is on the first task only
(the worker puts it there) and its results are counted for that task only, so nothing counts twice."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime

from aws_lambda_powertools import Logger

from engram.domain.errors import EngramError
from engram.domain.models import Event, Task, TaskKind, utcnow
from engram.domain.operations_ports import Metrics, UsageCounters
from engram.operations.busy_log import BusyLog
from engram.operations.metrics import NoMetrics

logger = Logger(child=True)


def _day(when: datetime) -> str:
    return when.date().isoformat()


def _duration_s(task: Task) -> float:
    started = task.started_at or task.created_at
    finished = task.finished_at or task.updated_at
    return max(0.0, (finished - started).total_seconds())


@dataclass
class Accounting:
    metrics: Metrics = field(default_factory=NoMetrics)
    usage: UsageCounters | None = None
    log: BusyLog | None = None  # in the worker only
    search_usage: UsageCounters | None = None  # where search counts go (off the request path); else `usage`
    now: Callable[[], datetime] = utcnow
    perf: Callable[[], float] = time.perf_counter

    def completed(self, task: Task) -> None:
        self.completed_many([task])

    def completed_many(self, tasks: Sequence[Task]) -> None:
        """Tasks finished together: metrics and log lines per task, the usage counters in one
        write per tenant (a batch of raw adds would otherwise cost one UpdateItem per task)."""
        usage: dict[str, dict[str, int]] = {}
        for task in tasks:
            if task.kind is not TaskKind.ADD:
                continue
            counts = self._completed(task)
            total = usage.setdefault(task.tenant_id, {})
            for name, value in counts.items():
                total[name] = total.get(name, 0) + value
        if self.usage is None:
            return
        day = _day(self.now())
        for tenant_id, counts in usage.items():
            self.usage.add(tenant_id, day, counts)

    def _completed(self, task: Task) -> dict[str, int]:
        """Records the task's metrics and log line; returns its usage counts."""
        # What was applied (the results), not what reconciliation proposed (task.counts); a task of
        # a merged run holds only its own results, so the run's are counted once.
        events = [r.event for r in task.results]
        added, updated, deleted = (events.count(e) for e in (Event.ADD, Event.UPDATE, Event.DELETE))
        duration = _duration_s(task)
        m = self.metrics
        m.add("TasksCompleted", 1)
        m.add("ExtractionDuration", round(duration * 1000, 1), "Milliseconds")
        m.add("LLMCalls", task.usage.llm_calls)
        m.add("PromptTokens", task.usage.prompt_tokens)
        m.add("CompletionTokens", task.usage.completion_tokens)
        m.add("FactsAdded", added)
        m.add("FactsUpdated", updated)
        m.add("FactsDeleted", deleted)
        if self.log is not None:
            self.log.finished(True, duration)
        return {
            "adds": 1,
            "llm_calls": task.usage.llm_calls,
            "prompt_tokens": task.usage.prompt_tokens,
            "completion_tokens": task.usage.completion_tokens,
            "memories_stored": added - deleted,
        }

    def failed(self, task: Task, will_retry: bool) -> None:
        if task.kind is not TaskKind.ADD:
            return
        self.metrics.add("TaskRetries" if will_retry else "TasksFailed", 1)
        if will_retry:
            return
        if self.usage is not None:
            self.usage.add(task.tenant_id, _day(self.now()), {"failed_adds": 1})
        if self.log is not None:
            self.log.finished(False, _duration_s(task))

    @contextmanager
    def search(self, tenant_id: str) -> Iterator[None]:
        """Around one search: counted, with its latency, when it answers (not when it fails)."""
        started = self.perf()
        yield
        self.metrics.add("SearchLatency", round((self.perf() - started) * 1000, 1), "Milliseconds")
        self.metrics.add("Searches", 1)
        counters = self.search_usage or self.usage
        if counters is None:
            return
        try:
            counters.add(tenant_id, _day(self.now()), {"searches": 1})
        except EngramError:  # a lost count must not cost the caller the answer
            logger.exception("search not counted", extra={"tenant_id": tenant_id})
