"""Delete-all as a task: every current memory of one user closed in bulk batches, resumably.

The task runs from the queue, in the user's FIFO group, so adds queued before it are forgotten too
and adds queued after it survive. Each batch closes a page of memories through the lifecycle (history
events, index entries and attachment holders written as for any other close) and saves the running
count on the task, so a redelivered task goes on where the last one stopped and never counts twice:
closed memories are no longer listed.

Then what the user sent goes too: the user's add tasks created before this one (all finished: they
came before it in the FIFO group) lose their request, their stored payload or source in the bucket,
and their results (memory texts); their status and counts stay, and they expire as tasks do. What
stays as the audit trail: each memory's history events and closed versions (the record of what was
remembered and when it was deleted, read by history and as_of), and the delete-all task itself.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from aws_lambda_powertools import Logger

from engram.domain.errors import TransientError
from engram.domain.models import Task, TaskKind, TaskStatus, utcnow
from engram.domain.ports import BlobStore, FactStore, TaskStore
from engram.writes.unit_of_work import Lifecycle

logger = Logger(child=True)

# Other stores that keep something of a user (the knowledge graph: GraphService.forget_user) are
# called with (tenant_id, user_id) once the memories are closed; each must be idempotent.
Forgetter = Callable[[str, str], object]

DELETE_ALL_NOTE = "delete-all"


@dataclass
class UserForgetter:
    facts: FactStore
    lifecycle: Lifecycle
    tasks: TaskStore
    batch_size: int = 1000
    forgetters: list[Forgetter] = field(default_factory=list)
    blobs: BlobStore | None = None  # where large add payloads and kept sources are stored

    def run(self, task: Task) -> None:
        """Close the user's memories page by page, saving progress on `task` after each page."""
        tenant_id, user_id = task.tenant_id, task.user_id
        task.counts.setdefault("deleted", 0)
        while True:
            page = self.facts.list_current(tenant_id, user_id, limit=self.batch_size)
            if not page.items:
                break
            batch = self.lifecycle.changes(tenant_id, user_id)
            closed = batch.close_many(page.items, actor="api", task_id=task.task_id, note=DELETE_ALL_NOTE)
            batch.commit()
            if closed == 0:  # every one changed under us: let the queue retry rather than spin
                raise TransientError(f"memories of user {user_id!r} kept changing during delete-all")
            task.counts["deleted"] += closed
            task.updated_at = utcnow()
            self.tasks.save(task)
        for forget in self.forgetters:
            forget(tenant_id, user_id)
        self._forget_inputs(task)
        logger.info("user forgotten", extra={"task_id": task.task_id, "deleted": task.counts["deleted"]})

    def _forget_inputs(self, delete_task: Task) -> None:
        """Erase the inputs of the user's add tasks created before `delete_task` (idempotent)."""
        cursor: str | None = None
        while True:
            tasks, cursor = self.tasks.user_tasks(delete_task.tenant_id, delete_task.user_id, delete_task, 100, cursor)
            finished = [
                t
                for t in tasks
                if t.kind in (TaskKind.ADD, TaskKind.IMPORT)  # what the user sent
                and t.status in (TaskStatus.COMPLETED, TaskStatus.FAILED)
                and (t.request is not None or t.payload_key is not None or t.results or t.retained)
            ]
            for t in finished:
                if t.payload_key is not None and self.blobs is not None:
                    self.blobs.delete(t.payload_key)
            if finished:
                self.tasks.forget_inputs(finished)
            if cursor is None:
                return
