"""Import as a task: exported memories written as they were, without extraction, resumably.

The task runs from the queue in the user's FIFO group, so it is ordered with the user's adds and
delete-alls. Memories are written in batches through the lifecycle (history event "imported",
index entry with a fresh embedding, attachment holders), with their exported history and earlier,
closed versions beside them, and the task's counts are saved after each batch. Each memory's id
comes from its import id (domain/imports.py), so:

- a memory the same user holds already from an earlier import, or still holds as the original the
  export was made of (an export imported back into its own user), is `skipped`;
- a memory that earlier import gave and that was forgotten since is restored under the next id;
- a task redelivered half-way finds the memories it wrote itself (their source is this task) and
  counts them `added` again rather than writing them twice; the lifecycle indexes them as stored,
  in case the try before died between its DynamoDB and its index writes.

The request's graph relations come last (graph/imports.py), counted `relations_added` and
`relations_skipped`; with graph memory off they are all skipped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from aws_lambda_powertools import Logger

from engram.domain.errors import EngramError, NotFoundError
from engram.domain.imports import ImportedEvent, ImportedMemory, ImportRequest, imported_event_id, imported_memory_id
from engram.domain.models import Fact, HistoryEvent, MemorySource, Task, utcnow
from engram.domain.policy import MemoryPolicy
from engram.domain.ports import BlobStore, FactStore, TaskStore, UserDirectory
from engram.pipeline.import_screen import screen_import
from engram.writes.unit_of_work import Lifecycle

if TYPE_CHECKING:
    from engram.graph.service import GraphService
    from engram.pipeline.topic_meaning import TopicMeaning

logger = Logger(child=True)

IMPORT_NOTE = "imported"


@dataclass
class _Pending:
    index: int  # in the request
    memory: ImportedMemory
    key: str  # the import id
    generation: int = 0


@dataclass
class MemoryImporter:
    facts: FactStore
    lifecycle: Lifecycle
    tasks: TaskStore
    blobs: BlobStore | None
    users: UserDirectory | None = None
    batch_size: int = 100
    graph: GraphService | None = None  # None: graph memory is off
    policy: Callable[[str, str], MemoryPolicy] | None = None  # the tenant's and user's policy (tenant, user)
    meaning: TopicMeaning | None = None  # the policy read by meaning (as an add's)

    def run(self, task: Task) -> None:
        """Write the task's memories batch by batch from where an earlier try stopped, saving the
        counts (`added`, `skipped`) after each batch."""
        request = self._screened(task, self._request(task))
        task.counts.setdefault("added", 0)
        task.counts.setdefault("skipped", 0)
        task.counts["memories"] = len(request.memories)
        start = task.counts["added"] + task.counts["skipped"]  # memories are done in request order
        latest = request.latest_versions()
        # Exported memories that were forgotten when exported (their last version is closed).
        closed = {m.id for m in request.memories if m.id and m.version == latest[m.id] and m.valid_to is not None}
        for begin in range(start, len(request.memories), self.batch_size):
            chunk = [
                self._pending(task, request, i)
                for i in range(begin, min(begin + self.batch_size, len(request.memories)))
            ]
            earlier = [p for p in chunk if p.memory.id and p.memory.version < latest[p.memory.id]]
            added, skipped = self._earlier(task, request, earlier, closed)
            done = self._batch(task, request, [p for p in chunk if p not in earlier], closed)
            added, skipped = added + done[0], skipped + done[1]
            task.counts["added"] += added
            task.counts["skipped"] += skipped
            task.updated_at = utcnow()
            self.tasks.save(task)
        if request.relations:
            task.counts.update(self._relations(task, request))
            task.updated_at = utcnow()
            self.tasks.save(task)
        if self.users is not None:
            self.users.touch(task.tenant_id, task.user_id, task.created_at)
        logger.info("memories imported", extra={"task_id": task.task_id, "counts": task.counts})

    def _relations(self, task: Task, request: ImportRequest) -> dict[str, int]:
        counts = {"relations": len(request.relations), "relations_added": 0, "relations_skipped": 0}
        if self.graph is None or not self.graph.enabled:
            logger.warning("graph memory is off: relations not imported", extra={"task_id": task.task_id})
            return counts | {"relations_skipped": len(request.relations)}
        from engram.graph.imports import RelationImport

        def memory_id(exported_id: str) -> str:
            return request.target_id(task.tenant_id, exported_id)

        resolver = self.graph.resolver(task.tenant_id, task.user_id)
        added, skipped = RelationImport(resolver, task.task_id, memory_id).run(request.relations)
        return counts | {"relations_added": added, "relations_skipped": skipped}

    def _screened(self, task: Task, request: ImportRequest) -> ImportRequest:
        """The request without what the policy excludes; the stored payload is rewritten without it
        before anything is written, so a retry reads the same request and nothing keeps the excluded text."""
        if self.policy is None:
            return request
        screened = screen_import(self.policy(task.tenant_id, task.user_id), self.meaning, request)
        if not (screened.left_out or screened.relations_left_out):
            return request
        if self.blobs is not None and task.payload_key is not None:
            self.blobs.put(task.payload_key, screened.request.model_dump_json().encode("utf-8"), "application/json")
        task.counts["excluded"] = task.counts.get("excluded", 0) + screened.left_out + screened.relations_left_out
        return screened.request

    def _request(self, task: Task) -> ImportRequest:
        if task.payload_key is None or self.blobs is None:
            raise EngramError(f"import task {task.task_id} has no stored request")
        return ImportRequest.model_validate_json(self.blobs.get(task.payload_key))

    @staticmethod
    def _pending(task: Task, request: ImportRequest, index: int) -> _Pending:
        memory = request.memories[index]
        return _Pending(index, memory, request.key_of(task.tenant_id, memory))

    def _batch(self, task: Task, request: ImportRequest, pending: list[_Pending], closed: set[str]) -> tuple[int, int]:
        added = skipped = 0
        while pending:
            # Held already (current, from an earlier import of the same memory, or the same memory
            # twice in this request): nothing to write.
            ids = [imported_memory_id(p.key, p.generation) for p in pending]
            held = {f.id: f for f in self.facts.get_many(task.tenant_id, ids)}
            originals = self._originals(task, pending, closed)
            todo: dict[str, _Pending] = {}
            for p, memory_id in zip(pending, ids, strict=True):
                mine = memory_id in held and _ours(held[memory_id], task, p)
                if (memory_id in held and not mine) or memory_id in todo or (p.memory.id in originals and not mine):
                    skipped += 1
                else:
                    todo[memory_id] = p
            batch = self.lifecycle.changes(task.tenant_id, task.user_id)
            for p in todo.values():
                batch.add(self._fact(task, request, p), actor="import", task_id=task.task_id, note=IMPORT_NOTE)
            written = batch.commit() if todo else []
            pending = []
            history: list[HistoryEvent] = []
            for (memory_id, p), new in zip(todo.items(), written, strict=True):
                stored = None if new else self._stored(task.tenant_id, memory_id)
                if stored is None or _ours(stored, task, p):
                    added += 1
                    history += [_event(task, memory_id, e) for e in p.memory.history]
                # Written by another import between the read and the write, or a closed memory an
                # earlier import of the same export gave.
                elif stored.is_current or p.memory.valid_to is not None:
                    skipped += 1
                else:  # forgotten since it was imported: restored under the next id
                    p.generation += 1
                    pending.append(p)
            self.facts.add_history(history)
        return added, skipped

    def _earlier(self, task: Task, request: ImportRequest, lines: list[_Pending], closed: set[str]) -> tuple[int, int]:
        """Earlier, closed versions of exported memories, stored as they were under the id their
        memory gets (the first generation's: one forgotten since an earlier import and restored keeps
        only its last version). Skipped when that memory is held already from another import."""
        if not lines:
            return 0, 0
        originals = self._originals(task, lines, closed)
        versions = []
        for p in lines:
            memory_id = imported_memory_id(p.key, 0)
            head = self._stored(task.tenant_id, memory_id)
            held = head is not None and (head.source is None or head.source.task_id != task.task_id)
            if not held and p.memory.id not in originals:
                versions.append(self._fact(task, request, p))
        self.facts.add_versions(versions)
        return len(versions), len(lines) - len(versions)

    def _originals(self, task: Task, pending: list[_Pending], closed: set[str]) -> set[str]:
        """The exported ids that are memories of the target user: current ones, and closed ones that
        were forgotten when exported (`closed`). An export imported back into the user it came from
        holds nothing new; one imported after a delete-all restores what was current."""
        exported = [p.memory.id for p in pending if p.memory.id]
        found = {f.id: f for f in self.facts.get_many(task.tenant_id, exported)} if exported else {}
        for p in pending:
            if p.memory.id and p.memory.id not in found and p.memory.id in closed:
                forgotten = self._stored(task.tenant_id, p.memory.id)
                if forgotten is not None:
                    found[forgotten.id] = forgotten
        return {f.id for f in found.values() if f.user_id == task.user_id}

    def _stored(self, tenant_id: str, memory_id: str) -> Fact | None:
        try:
            return self.facts.get(tenant_id, memory_id, include_closed=True)
        except NotFoundError:  # not written after all (cannot happen: add_many said it exists)
            return None

    def _fact(self, task: Task, request: ImportRequest, p: _Pending) -> Fact:
        memory, now = p.memory, utcnow()
        agent_id, run_id = request.scope_of(memory)
        original = memory.source

        def target(exported_id: str) -> str:
            return request.target_id(task.tenant_id, exported_id)

        return Fact(
            id=imported_memory_id(p.key, p.generation),
            tenant_id=task.tenant_id,
            user_id=task.user_id,
            agent_id=agent_id,
            run_id=run_id,
            text=memory.memory,
            kind=memory.kind,
            fact_key=memory.fact_key,
            fact_value=memory.fact_value,
            memory_bank=memory.memory_bank,
            importance=memory.importance,
            is_protected=memory.is_protected,
            metadata=memory.metadata,
            attachment_ids=list(dict.fromkeys(a.id for a in memory.attachments)),
            valid_from=memory.valid_from or now,
            valid_to=memory.valid_to,
            created_at=memory.created_at or now,
            updated_at=memory.updated_at or memory.created_at or now,
            expires_at=memory.expires_at,
            version=memory.version,
            last_accessed_at=memory.last_accessed_at,
            access_count=memory.access_count,
            episode_id=target(memory.episode_id) if memory.episode_id else None,
            outdated_by=[target(i) for i in memory.outdated_by],
            is_summarized=memory.is_summarized,
            summarized_from=[target(i) for i in memory.summarized_from],
            # As exported, the memories that outdated them translated; none given: read at the write (unit of work).
            statements=[
                s.model_copy(update={"outdated_by": target(s.outdated_by)}) if s.outdated_by else s
                for s in memory.statements or ()
            ],
            embedding_model=self.lifecycle.embedder.model_id,
            # The import task and the memory's place in it (an earlier try finds what it wrote by them);
            # who said it, when, which part and whether a person corrected it, as exported.
            source=MemorySource(
                task_id=task.task_id,
                message_index=p.index,
                role=original.role if original else None,
                name=original.name if original else None,
                at=original.at if original else None,
                span=original.span if original else None,
                via=original.via if original else "add",
            ),
        )


def _event(task: Task, memory_id: str, exported: ImportedEvent) -> HistoryEvent:
    """An exported history event of the memory, under the imported memory's id (the same on each try)."""
    kept = exported.model_dump(exclude={"id"})
    return HistoryEvent(
        **kept,
        id=imported_event_id(memory_id, exported.id),
        memory_id=memory_id,
        tenant_id=task.tenant_id,
        user_id=task.user_id,
    )


def _ours(fact: Fact, task: Task, p: _Pending) -> bool:
    """Written for this very memory of this task (by an earlier try of it)."""
    return fact.source is not None and (fact.source.task_id, fact.source.message_index) == (task.task_id, p.index)
