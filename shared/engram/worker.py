"""Runs one queued task through the pipeline with its status kept current (queued -> processing -> done)."""

from __future__ import annotations

from dataclasses import dataclass

from aws_lambda_powertools import Logger

from engram.domain.errors import EngramError
from engram.domain.models import AddRequest, Scope, Task, TaskStatus, utcnow
from engram.domain.ports import BlobStore, TaskStore
from engram.pipeline.ingest import IngestPipeline

logger = Logger(child=True)


@dataclass
class ExtractionWorker:
    tasks: TaskStore
    pipeline: IngestPipeline
    blobs: BlobStore | None = None

    def process(self, tenant_id: str, task_id: str, final_attempt: bool = False) -> Task:
        """Process a task once. Raises on failure so the queue retries; on the final attempt the
        task is marked failed with the reason before the message goes to the dead-letter queue."""
        task = self.tasks.get(tenant_id, task_id)
        if task.status in (TaskStatus.COMPLETED, TaskStatus.FAILED):
            logger.info("task already finished; redelivery ignored", extra={"task_id": task_id})
            return task
        task.status = TaskStatus.PROCESSING
        task.attempts += 1
        task.started_at = task.started_at or utcnow()
        task.updated_at = utcnow()
        self.tasks.save(task)
        try:
            request = self._request(task)
            scope = Scope(
                tenant_id=tenant_id, user_id=request.user_id, agent_id=request.agent_id, run_id=request.run_id
            )
            outcome = self.pipeline.run(scope, request, task_id)
        except Exception as err:  # recorded on the task, then re-raised for the queue to retry
            self._record_failure(task, err, final_attempt)
            raise
        task.status = TaskStatus.COMPLETED
        task.results = outcome.results
        task.usage.add(outcome.usage)
        task.counts = outcome.counts
        task.error = None
        task.finished_at = task.updated_at = utcnow()
        self.tasks.save(task)
        return task

    def fail(self, tenant_id: str, task_id: str, reason: str) -> None:
        """Mark a task failed for good (its message is going to the dead-letter queue)."""
        task = self.tasks.get(tenant_id, task_id)
        if task.status is TaskStatus.COMPLETED:
            return
        task.status = TaskStatus.FAILED
        task.error = reason
        task.finished_at = task.updated_at = utcnow()
        self.tasks.save(task)

    def _request(self, task: Task) -> AddRequest:
        if task.request is not None:
            return task.request
        if task.payload_key is None or self.blobs is None:
            raise EngramError(f"task {task.task_id} has no stored request")
        return AddRequest.model_validate_json(self.blobs.get(task.payload_key))

    def _record_failure(self, task: Task, err: Exception, final_attempt: bool) -> None:
        reason = f"{type(err).__name__}: {err}"
        logger.warning("task failed", extra={"task_id": task.task_id, "final": final_attempt, "error": reason})
        task.error = reason
        task.status = TaskStatus.FAILED if final_attempt else TaskStatus.QUEUED
        task.updated_at = utcnow()
        if final_attempt:
            task.finished_at = task.updated_at
        self.tasks.save(task)
