"""Delete-all as a task: every current memory of one user closed in bulk batches, resumably.

The task runs from the queue, in the user's FIFO group, so adds queued before it are forgotten too
and adds queued after it survive. Each batch closes a page of memories through the lifecycle (history
events, index entries and attachment holders written as for any other close) and saves the running
count on the task, so a redelivered task goes on where the last one stopped and never counts twice:
closed memories are no longer listed. History stays as the audit trail.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from aws_lambda_powertools import Logger

from engram.domain.errors import TransientError
from engram.domain.models import Task, utcnow
from engram.domain.ports import FactStore, TaskStore
from engram.pipeline.lifecycle import Lifecycle

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
        logger.info("user forgotten", extra={"task_id": task.task_id, "deleted": task.counts["deleted"]})
