"""What the API does, on ports only: accept adds, search, read, correct and forget memories."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING

from engram.domain.errors import NotFoundError, ValidationError
from engram.domain.filters import matches
from engram.domain.graph import ScoredRelation
from engram.domain.imports import ImportRequest
from engram.domain.models import (
    AddRequest,
    Attachment,
    Fact,
    HistoryPage,
    MemoryPatch,
    MemorySource,
    Message,
    Page,
    SearchFilters,
    SearchQuery,
    Task,
    TaskKind,
    UserPage,
    utcnow,
)
from engram.domain.ports import (
    BlobStore,
    Embedder,
    FactStore,
    TaskQueue,
    TaskStore,
    UserDirectory,
    VectorIndex,
)
from engram.pipeline.reads import kept_or_stored
from engram.safety.messages import REDACTED, redact_import, redact_messages
from engram.safety.redaction import redact
from engram.search.hybrid import HybridSearcher
from engram.search.pipeline import SearchPipeline
from engram.services.attachments import AttachmentService
from engram.services.paging import page_after
from engram.services.task_inputs import PAYLOADS, load_request
from engram.services.touches import TouchBuffer
from engram.writes.unit_of_work import Lifecycle, index_doc, next_version

if TYPE_CHECKING:
    from engram.domain.policy import RedactKind
    from engram.graph.service import GraphService
    from engram.services.tenant_config import TenantConfigs


@dataclass
class MemoryService:
    facts: FactStore
    index: VectorIndex
    embedder: Embedder
    tasks: TaskStore
    queue: TaskQueue
    blobs: BlobStore | None = None
    attachments: AttachmentService | None = None
    max_inline_payload_bytes: int = 256 * 1024
    search_pipeline: SearchPipeline | None = None  # the first ranking and the stages after it (built if not given)
    touches: TouchBuffer | None = None
    scratch_index: Callable[[], VectorIndex] | None = None  # an empty in-memory index, for as_of search
    max_as_of_versions: int = 1000
    graph: GraphService | None = None  # None when graph memory is off
    users: UserDirectory | None = None  # the tenant's user listing (touched by the worker as adds finish)
    lifecycle: Lifecycle | None = None  # how corrections and deletes change memories (built if not given)
    configs: TenantConfigs | None = None  # the tenant's `redact` kinds (credentials are redacted without it)
    # Told each task once it is stored and before its message is sent (the task events' "queued": the
    # queue counters, live events). After the send, a worker could run the task first and its
    # "pending" stamp would never be taken off again: the oldest pending age grew with nothing pending.
    queued: Callable[[Task], None] | None = None

    def __post_init__(self) -> None:
        if self.search_pipeline is None:
            self.search_pipeline = SearchPipeline(HybridSearcher(self.index, self.embedder))
        if self.lifecycle is None:
            store = self.attachments.store if self.attachments else None
            self.lifecycle = Lifecycle(self.facts, self.index, self.embedder, store, self.blobs)

    @property
    def _life(self) -> Lifecycle:
        assert self.lifecycle is not None  # noqa: S101 - type narrowing: set in __post_init__
        return self.lifecycle

    # --- adds are stored, then queued -------------------------------------------------------
    def submit(self, tenant_id: str, request: AddRequest) -> Task:
        """Store the input before acknowledging it; the worker picks it up from the queue."""
        if request.attachments:
            if self.attachments is None:
                raise ValidationError("attachments", "attachments are not configured on this deployment")
            resolved = self.attachments.resolve(tenant_id, request.user_id, request.attachments)
            request = request.model_copy(update={"attachments": resolved})
        task = Task(tenant_id=tenant_id, user_id=request.user_id)
        # A message without a time was said when the add was accepted, not when the worker reads it
        # (a task that waited for the LLM's breaker resolves "yesterday" against the day it was said).
        said = [m if m.created_at else m.model_copy(update={"created_at": task.created_at}) for m in request.messages]
        # Personal data and secrets are replaced before the input is stored, so no store, log, LLM or
        # event ever holds them (docs/safety.md).
        said, found = redact_messages(said, self._redact_kinds(tenant_id))
        if found:
            task.counts[REDACTED] = sum(found.values())
        task.request = request = request.model_copy(update={"messages": said})
        payload = request.model_dump_json().encode("utf-8")
        if len(payload) > self.max_inline_payload_bytes and self.blobs is not None:
            task.payload_key = f"payloads/{tenant_id}/{task.task_id}.json"
            self.blobs.put(task.payload_key, payload, "application/json")
            task.request = None
        self._queue(task)
        return task

    def submit_import(self, tenant_id: str, request: ImportRequest) -> Task:
        """Store exported memories before acknowledging them; the worker writes them as they were,
        in the user's FIFO group (services/importer.py). The payload always goes to the bucket: 500
        memories are more than a task item may hold."""
        if self.blobs is None:
            raise ValidationError("memories", "imports are not configured on this deployment")
        self._check_attachments(tenant_id, request)
        request, found = redact_import(request, self._redact_kinds(tenant_id))
        counts = {"memories": len(request.memories), "added": 0, "skipped": 0}
        if found:
            counts[REDACTED] = found
        task = Task(tenant_id=tenant_id, user_id=request.user_id, kind=TaskKind.IMPORT, counts=counts)
        task.payload_key = f"{PAYLOADS}{tenant_id}/{task.task_id}.json"
        self.blobs.put(task.payload_key, request.model_dump_json().encode("utf-8"), "application/json")
        self._queue(task)
        return task

    def _redact_kinds(self, tenant_id: str) -> list[RedactKind]:
        return self.configs.get(tenant_id).redact if self.configs is not None else []

    def _queue(self, task: Task) -> None:
        self.tasks.create(task)
        if self.queued is not None:
            self.queued(task)
        self.queue.enqueue(task)

    def _check_attachments(self, tenant_id: str, request: ImportRequest) -> None:
        """Every attachment an imported memory names must be this tenant's (uploaded before)."""
        wanted = [(i, j, a.id) for i, m in enumerate(request.memories) for j, a in enumerate(m.attachments)]
        if not wanted:
            return
        if self.attachments is None:
            raise ValidationError("memories", "attachments are not configured on this deployment")
        known = self.attachments.store.get_many(tenant_id, list({a for _, _, a in wanted}))
        for i, j, attachment_id in wanted:
            if attachment_id not in known or known[attachment_id].deleted:
                raise ValidationError(f"memories.{i}.attachments.{j}.id", f"no attachment {attachment_id!r}")

    def list_users(self, tenant_id: str, limit: int, cursor: str | None = None) -> UserPage:
        if self.users is None:
            raise ValidationError("users", "the user listing is not configured on this deployment")
        return self.users.list(tenant_id, limit, cursor)

    def task(self, tenant_id: str, task_id: str) -> Task:
        return self.tasks.get(tenant_id, task_id)

    # --- reads --------------------------------------------------------------------------------
    def search(self, tenant_id: str, q: SearchQuery) -> list[tuple[Fact, float]]:
        if q.as_of is not None:
            return self._search_as_of(tenant_id, q, q.as_of)
        assert self.search_pipeline is not None  # noqa: S101 - type narrowing: set in __post_init__
        ranked = self.search_pipeline.run(tenant_id, q, self._hit_facts)
        if self.touches is not None:  # a search is a use, written later in a batch
            self.touches.record(tenant_id, [f.id for f, _ in ranked])
        return ranked

    def _hit_facts(self, tenant_id: str, user_id: str, ids: list[str]) -> dict[str, Fact]:
        """The memories of the hits: from the index when it keeps them (one DynamoDB read fewer per
        search), the fact store for the rest (documents indexed before the index kept them)."""
        kept, stored = kept_or_stored(self.index, self.facts, tenant_id, user_id, ids)
        return kept | {f.id: f for f in stored}

    def related(self, tenant_id: str, q: SearchQuery, hops: int = 1) -> list[ScoredRelation]:
        """The current relations around the entities the query names or resembles."""
        if self.graph is None or q.as_of is not None:
            return []
        return self.graph.search(tenant_id, q.user_id, q.query, hops)

    def _search_as_of(self, tenant_id: str, q: SearchQuery, as_of: datetime) -> list[tuple[Fact, float]]:
        """The same ranking, stages included, over the versions current at `as_of`, in a scratch index:
        the live index holds only what is current now. Bounded, since each version is embedded for the
        query. A question's own time ("last week") is read against `as_of` unless `now` is given."""
        if self.scratch_index is None:
            raise ValidationError("as_of", "searching as of a time is not configured on this deployment")
        versions: list[Fact] = []
        cursor: str | None = None
        while True:
            page = self.facts.list_as_of(tenant_id, q.user_id, as_of, 200, cursor, q.filters)
            versions += page.items
            if len(versions) > self.max_as_of_versions:
                raise ValidationError(
                    "as_of", f"more than {self.max_as_of_versions} memories were current then; narrow with filters"
                )
            if not (cursor := page.next_cursor):
                break
        if not versions:
            return []
        index = self.scratch_index()
        vectors = self.embedder.embed([f.text for f in versions])
        index.upsert([index_doc(f, v) for f, v in zip(versions, vectors, strict=True)])
        by_id = {f.id: f for f in versions}
        assert self.search_pipeline is not None  # noqa: S101 - type narrowing: set in __post_init__
        live = self.search_pipeline.searcher
        searcher = HybridSearcher(index, self.embedder)
        if isinstance(live, HybridSearcher):  # the live searcher's weights, over the scratch index
            searcher = replace(live, index=index)
        then = SearchPipeline(searcher, self.search_pipeline.stages)
        # The scratch index holds only the filtered versions: no filter is needed (nor applied twice).
        asked = q.model_copy(update={"filters": None, "now": q.now or as_of})
        return then.run(tenant_id, asked, lambda _t, _u, ids: {i: by_id[i] for i in ids if i in by_id})

    def list_memories(
        self,
        tenant_id: str,
        user_id: str,
        limit: int,
        cursor: str | None,
        filters: SearchFilters | None = None,
        attachment_id: str | None = None,
        as_of: datetime | None = None,
        every_version: bool = False,
    ) -> Page:
        if every_version:  # what an export writes: current and closed versions, unfiltered
            narrowed = filters is not None and filters.model_dump(exclude_defaults=True)
            if as_of is not None or attachment_id is not None or narrowed:
                raise ValidationError("versions", "lists every version of every memory: give no other filter")
            return self.facts.list_versions(tenant_id, user_id, limit, cursor)
        if as_of is not None:
            if attachment_id is not None:
                raise ValidationError("as_of", "cannot be combined with attachment_id")
            return self.facts.list_as_of(tenant_id, user_id, as_of, limit, cursor, filters)
        if attachment_id is None:
            page = self.facts.list_current(tenant_id, user_id, limit, cursor, filters)
            now = utcnow()
            return page.model_copy(update={"items": [f for f in page.items if not f.expired(now)]})
        if self.attachments is None:
            raise ValidationError("attachment_id", "attachments are not configured on this deployment")
        # Bounded: a page reads `limit` holders; those of other users or filtered out are dropped, so
        # a page may be short while next_cursor says there is more.
        holders = self.attachments.store.holders(tenant_id, attachment_id)
        window, next_cursor = page_after(holders, limit, cursor, f"memories:{attachment_id}")
        facts = [f for f in self.facts.get_many(tenant_id, window) if f.user_id == user_id and matches(f, filters)]
        return Page(items=facts, next_cursor=next_cursor)

    def source_messages(self, tenant_id: str, fact: Fact) -> list[Message] | None:
        """The messages a memory came from, while its add task is retained (None after that)."""
        if fact.source is None or fact.source.via == "patch":  # a person's correction: no message behind it
            return None
        try:
            task = self.tasks.get(tenant_id, fact.source.task_id)
        except NotFoundError:
            return None
        if task.kind is not TaskKind.ADD:  # an imported memory: its messages are not here
            return None
        request = load_request(task, self.blobs)
        index = fact.source.message_index
        if index is None:
            return list(request.messages)
        return [request.messages[index]] if index < len(request.messages) else None

    def attachment_details(self, tenant_id: str, facts: list[Fact]) -> dict[str, Attachment]:
        return self.attachments.details(tenant_id, facts) if self.attachments else {}

    def get(self, tenant_id: str, memory_id: str) -> Fact:
        fact = self.facts.get(tenant_id, memory_id)
        if fact.expired(utcnow()):  # forgotten already, before the expire step closes it
            raise NotFoundError("memory", memory_id)
        # Reading one memory counts as a use for least-recently-used pruning (searches do too,
        # through the touch buffer).
        self.facts.touch(tenant_id, {memory_id: 1}, utcnow())
        return fact

    def history(self, tenant_id: str, memory_id: str, limit: int = 100, cursor: str | None = None) -> HistoryPage:
        self.facts.get(tenant_id, memory_id, include_closed=True)  # 404 for unknown / other tenants
        return self.facts.history_page(tenant_id, memory_id, limit, cursor)

    # --- corrections --------------------------------------------------------------------------
    def update(self, tenant_id: str, memory_id: str, patch: MemoryPatch) -> Fact:
        """A correction. A new text re-derives, in the same version, everything read from the text:
        its key and value (so later statements reconcile against what it now says), its embedding
        (at commit), its source (the correction itself) and the graph relations it states."""
        old = self.facts.get(tenant_id, memory_id)
        if patch.text is not None:
            patch = patch.model_copy(update={"text": redact(patch.text, self._redact_kinds(tenant_id)).text})
        changes: dict[str, object] = patch.model_dump(exclude_none=True, exclude={"text", "metadata"})
        if patch.metadata is not None:
            changes["metadata"] = {**old.metadata, **patch.metadata}
        if patch.text in (None, old.text) and all(getattr(old, k) == v for k, v in changes.items()):
            return old  # saved without an edit (a form sends every field back): no new version
        rewritten = patch.text is not None and patch.text != old.text
        if rewritten:
            from engram.rules.keys_from_text import infer_key  # only corrections read keys on the API side

            keyed = infer_key(patch.text or "")
            changes |= {
                "fact_key": keyed.key if keyed is not None else None,
                "fact_value": keyed.value if keyed is not None else None,
                "source": MemorySource(task_id="patch", via="patch", role="user", at=utcnow()),
                "outdated_by": [],  # what outdated the old text says nothing of the corrected one
            }
        new = next_version(old, patch.text or old.text, **changes)
        batch = self._life.changes(tenant_id, old.user_id)
        new = batch.rewrite(old, new, actor="api")  # with the statements its text makes
        batch.commit()
        if rewritten and self.graph is not None:
            self.graph.restate(new.scope, new.id, new.text, new.fact_key, new.fact_value, new.statements)
        return new

    def delete(self, tenant_id: str, memory_id: str, actor: str = "api") -> Fact:
        fact = self.facts.get(tenant_id, memory_id)
        batch = self._life.changes(tenant_id, fact.user_id)
        batch.close(fact, actor)
        batch.commit()
        return fact

    def delete_all(self, tenant_id: str, user_id: str) -> Task:
        """Queue the forgetting of every current memory of one user, after the user's queued adds
        (same FIFO group); the worker closes them in batches (services/forget.py)."""
        task = Task(tenant_id=tenant_id, user_id=user_id, kind=TaskKind.DELETE_ALL, counts={"deleted": 0})
        self._queue(task)
        return task
