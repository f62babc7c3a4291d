"""Runs queued tasks through the pipeline with their status kept current (queued -> processing -> done).

Consecutive tasks of one user that ask for the same treatment are processed together: one extraction
and one reconciliation for all their messages, so a chatty user costs fewer LLM calls. That cannot be
seen: each task gets the results and counts of its own messages (pipeline/shares.py), and a fact that
repeats an earlier one of the run is skipped as if the earlier task had run first.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from aws_lambda_powertools import Logger

from engram.domain.errors import CircuitOpenError, EngramError, OutageError, TransientError
from engram.domain.models import (
    AddRequest,
    MemorySource,
    Scope,
    Task,
    TaskKind,
    TaskStatus,
    Usage,
    UserActivity,
    utcnow,
)
from engram.domain.operations import BreakerStatus
from engram.domain.ports import BlobStore, FinishedRuns, TaskStore, UserDirectory
from engram.operations.circuit_breaker import CircuitBreaker
from engram.pipeline.ingest import IngestPipeline
from engram.pipeline.nothing_new import why_nothing_changed
from engram.safety.messages import REDACTED
from engram.services.forget import UserForgetter
from engram.services.importer import MemoryImporter
from engram.services.task_events import NoEvents, TaskEvents
from engram.services.task_inputs import load_request, redact_input, retain_if_source
from engram.services.tenant_config import TenantConfigs
from engram.services.user_requests import UserRequests

logger = Logger(child=True)

MAX_MERGED_MESSAGES = 40
MAX_MERGED_CHARS = 12_000


def _same_treatment(a: AddRequest, b: AddRequest) -> bool:
    keys: tuple[str, ...] = ("user_id", "agent_id", "run_id", "metadata", "infer", "deduplicate", "prompt")
    keys += ("strategy", "instructions", "include", "exclude")  # one run has one memory policy
    return all(getattr(a, k) == getattr(b, k) for k in keys)


def _merge(requests: Sequence[AddRequest]) -> AddRequest:
    first = requests[0]
    return first.model_copy(
        update={
            "messages": [m for r in requests for m in r.messages],
            "attachments": [a for r in requests for a in r.attachments],
        }
    )


def _split_at_deletes(tasks: Sequence[Task]) -> list[list[Task]]:
    """Runs of consecutive adds, with each delete-all or import task on its own, in queue order."""
    runs: list[list[Task]] = []
    for task in tasks:
        if task.kind is not TaskKind.ADD or not runs or runs[-1][0].kind is not TaskKind.ADD:
            runs.append([task])
        else:
            runs[-1].append(task)
    return runs


@dataclass
class ExtractionWorker:
    tasks: TaskStore
    pipeline: IngestPipeline
    blobs: BlobStore | None = None
    events: TaskEvents = field(default_factory=lambda: TaskEvents(NoEvents()))
    breaker: CircuitBreaker | None = None  # the LLM's, when there is an LLM
    forgetter: UserForgetter | None = None  # runs delete-all tasks
    # Makes the index hold exactly a user's current memories (maintenance repair of one scope). Run
    # before a task is tried again: an earlier try may have died between its DynamoDB writes and
    # its index writes, and reconciliation must see those memories, or it would add them twice.
    repair: Callable[[str, str], object] | None = None
    # The tenant's user listing, touched once per run of adds when they finish: in the user's FIFO
    # order, so an add after a delete-all lists the user again and one before it does not.
    users: UserDirectory | None = None
    importer: MemoryImporter | None = None  # runs import tasks
    configs: TenantConfigs | None = None  # the tenant's memory policy (None: the built-in behaviour)
    requests: UserRequests | None = None  # what users ask of their own memory in chat (None: not read)
    # Writes a run's finished tasks and its user's entry together (one request, not two); without
    # it, the entry is touched and then the tasks saved.
    finished: FinishedRuns | None = None

    def process(self, tenant_id: str, task_id: str, final_attempt: bool = False) -> Task:
        return self.process_many(tenant_id, [task_id], final_attempt)[0]

    def process_many(self, tenant_id: str, task_ids: Sequence[str], final_attempt: bool = False) -> list[Task]:
        """Process tasks of one user in order. Raises on failure so the queue retries; on the final
        attempt the failed tasks are marked failed with the reason before their messages go to the DLQ."""
        # A task sent in two messages of one batch is one task: processed twice over, its messages
        # would be extracted twice in one run and stored twice.
        tasks = self.tasks.get_many(tenant_id, list(dict.fromkeys(task_ids)))
        pending = [t for t in tasks if t.status not in (TaskStatus.COMPLETED, TaskStatus.FAILED)]
        if len(pending) < len(tasks):
            logger.info("finished tasks redelivered; ignored", extra={"tasks": [t.task_id for t in tasks]})
        for run in _split_at_deletes(pending):
            if run[0].kind in (TaskKind.DELETE_ALL, TaskKind.IMPORT):
                self._alone(run[0], final_attempt)
                continue
            for group in self._groups(run):
                self._run(tenant_id, group, final_attempt)
        return tasks  # as saved: _run updates them in place

    def fail(self, tenant_id: str, task_id: str, reason: str) -> None:
        """Mark a task failed for good (its message is going to the dead-letter queue)."""
        task = self.tasks.get(tenant_id, task_id)
        if task.status is TaskStatus.COMPLETED:
            return
        task.status = TaskStatus.FAILED
        task.error = reason
        task.finished_at = task.updated_at = utcnow()
        self.tasks.save(task)
        self.events.failed(task, will_retry=False, was="pending")

    def _groups(self, tasks: Sequence[Task]) -> list[list[tuple[Task, AddRequest]]]:
        groups: list[list[tuple[Task, AddRequest]]] = []
        for task in tasks:
            request = self._request(task)
            last = groups[-1] if groups else None
            if (
                last is not None
                and _same_treatment(last[0][1], request)
                and sum(len(r.messages) for _, r in last) + len(request.messages) <= MAX_MERGED_MESSAGES
                and sum(len(m.content) for _, r in last for m in r.messages) <= MAX_MERGED_CHARS
            ):
                last.append((task, request))
            else:
                groups.append([(task, request)])
        return groups

    def _start(self, tasks: list[Task]) -> None:
        now = utcnow()
        for task in tasks:
            task.status = TaskStatus.PROCESSING
            task.attempts += 1
            task.started_at = task.started_at or now
            task.updated_at = now
        self.tasks.save_many(tasks)
        self.events.processing(tasks)

    def _run(self, tenant_id: str, group: list[tuple[Task, AddRequest]], final_attempt: bool) -> None:
        tried_before = any(task.started_at is not None for task, _ in group)
        self._start([task for task, _ in group])
        request = _merge([r for _, r in group])
        leader = group[0][0]
        scope = Scope(tenant_id=tenant_id, user_id=request.user_id, agent_id=request.agent_id, run_id=request.run_id)
        # Where each message of the merged request came from, for the memories made of it.
        sources = [MemorySource(task_id=t.task_id, message_index=i) for t, r in group for i in range(len(r.messages))]
        try:
            if tried_before and self.repair is not None:
                self.repair(tenant_id, request.user_id)
            # A user's "don't remember X" holds from the add that says it: applied before its policy is read.
            requested = self.requests.apply(scope, request.messages, leader.task_id) if self.requests else {}
            if self.requests is not None and requested:  # the requests are policy now, not what to remember
                request = request.model_copy(update={"messages": self.requests.unsaid(request.messages)})
            policy = self.configs.policy(tenant_id, request) if self.configs is not None else None
            outcome = self.pipeline.run(scope, request, leader.task_id, sources, policy)
        except Exception as err:  # recorded on every task of the group, then re-raised for the queue to retry
            outage = self._outage(err)
            if outage is not None:  # not the tasks' fault: they wait, and the try does not count
                self._record_waiting([task for task, _ in group], outage)
                raise outage from err
            self._record_failure([task for task, _ in group], err, final_attempt)
            raise
        done = utcnow()
        together = [t.task_id for t, _ in group] if len(group) > 1 else []
        first = 0  # where each task's messages start in the merged request
        for task, asked in group:
            share = outcome.share(task.task_id, leader.task_id)  # what its own messages made, as if run alone in turn
            if outcome.messages is not None and share.skipped:  # its kept input loses what the policy excluded
                redact_input(task, asked, outcome.messages[first : first + len(asked.messages)], self.blobs)
            first += len(asked.messages)
            task.status = TaskStatus.COMPLETED
            task.results = share.results
            # what was redacted at the API stays counted beside what the run made
            task.counts = {k: v for k, v in task.counts.items() if k == REDACTED} | share.counts
            if task is leader:
                task.counts |= requested
            task.skipped = share.skipped
            task.relations = share.relations
            notes = [why_nothing_changed(asked, share.counts, share.results), outcome.unread]
            task.note = "; ".join(n for n in notes if n) or None
            # The LLM usage is counted once, on the task whose id the shared run carries.
            task.usage.add(outcome.usage if task is leader else Usage())
            task.processed_with = together
            task.error = None
            task.finished_at = task.updated_at = done
            retain_if_source(task, self.blobs)
        active = UserActivity(user_id=request.user_id, last_active_at=max(t.created_at for t, _ in group))
        self._save_finished([task for task, _ in group], active)
        self.events.completed([task for task, _ in group])

    def _save_finished(self, tasks: list[Task], active: UserActivity) -> None:
        """The run's tasks saved completed, their user listed as active (FIFO order: an add after a
        delete-all lists the user again); the entry is never written after the tasks alone, so a
        failure between the two leaves a task to run again rather than a user unlisted."""
        if self.users is None:
            self.tasks.save_many(tasks)
        elif self.finished is not None:
            self.finished.save(tasks, active)
        else:
            self.users.touch(tasks[0].tenant_id, active.user_id, active.last_active_at)
            self.tasks.save_many(tasks)

    def _alone(self, task: Task, final_attempt: bool) -> None:
        """A delete-all or an import: a task that runs on its own, in the user's queue order."""
        runner = self.forgetter if task.kind is TaskKind.DELETE_ALL else self.importer
        if runner is None:
            raise EngramError(f"{task.kind.value} tasks need their runner; none is configured")
        self._start([task])
        try:
            runner.run(task)
        except Exception as err:  # recorded on the task, then re-raised for the queue to retry
            self._record_failure([task], err, final_attempt)
            raise
        task.status = TaskStatus.COMPLETED
        task.error = None
        task.finished_at = task.updated_at = utcnow()
        self.tasks.save(task)
        self.events.completed([task])

    def _request(self, task: Task) -> AddRequest:
        return load_request(task, self.blobs)

    def _outage(self, err: Exception) -> OutageError | None:
        """The error as a wait, when it is an outage (the index down, the LLM breaker open, or a
        transient error while the breaker is open)."""
        if isinstance(err, OutageError):
            return err
        if not isinstance(err, TransientError) or self.breaker is None:
            return None
        state = self.breaker.state()
        if state.status is BreakerStatus.CLOSED:
            return None
        return CircuitOpenError(f"LLM circuit breaker open: {state.reason}", self.breaker.cooldown_s)

    def _record_waiting(self, tasks: list[Task], err: OutageError) -> None:
        now = utcnow()
        for task in tasks:
            task.status = TaskStatus.WAITING
            task.error = str(err)
            task.attempts -= 1
            task.updated_at = now
        self.tasks.save_many(tasks)
        for task in tasks:
            self.events.waiting(task)

    def _record_failure(self, tasks: list[Task], err: Exception, final_attempt: bool) -> None:
        reason = f"{type(err).__name__}: {err}"
        ids = [task.task_id for task in tasks]
        logger.warning("tasks failed", extra={"task_ids": ids, "final": final_attempt, "error": reason})
        now = utcnow()
        for task in tasks:
            task.error = reason
            task.status = TaskStatus.FAILED if final_attempt else TaskStatus.QUEUED
            task.updated_at = now
            if final_attempt:
                task.finished_at = now
        self.tasks.save_many(tasks)
        for task in tasks:
            self.events.failed(task, will_retry=not final_attempt)
