"""The one place a memory changes: add, rewrite, close.

Extraction, the API, pruning, summarising and de-duplication all change memories through a `Changes`
batch, so every change writes the same history event, version, index entry and attachment holders,
whoever makes it, and every memory stores the statements it makes (read here: domain/statements.py).
DynamoDB (the source of truth) is written as each change is made; the index and the attachment holders
follow at `commit`, in one call each. A crash in between leaves index drift that the
repair job removes, never a lost memory.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from engram.domain.bus_events import BusEvent, memory_event
from engram.domain.errors import ConflictError
from engram.domain.index_ports import FactViews
from engram.domain.models import SPEAKER_KEY, Event, Fact, HistoryEvent, IndexDoc, text_hash, utcnow
from engram.domain.ports import AttachmentStore, BlobStore, Embedder, FactStore, StatementReader, VectorIndex
from engram.domain.statements import Statement
from engram.writes.holders import AttachmentHolders

# What the index holds of a fact besides its vector; a change to any of them re-indexes the fact.
_INDEXED = ("text", "metadata", "memory_bank", "agent_id", "run_id")


def index_doc(fact: Fact, vector: Sequence[float]) -> IndexDoc:
    return IndexDoc(
        id=fact.id,
        tenant_id=fact.tenant_id,
        user_id=fact.user_id,
        agent_id=fact.agent_id,
        run_id=fact.run_id,
        text=fact.text,
        vector=list(vector),
        # The speaker step reads who said a memory from the index; the fact keeps it on its source.
        metadata=fact.metadata if fact.speaker is None else {**fact.metadata, SPEAKER_KEY: fact.speaker},
        memory_bank=fact.memory_bank.value,
        created_at=fact.created_at,
        fact=fact,
        statements=fact.statements,
    )


def stated(fact: Fact) -> list[tuple[str, str]]:
    """What the index keeps of a memory's statements (index_doc): a change to them re-indexes it."""
    return [(s.subject, s.attribute) for s in fact.statements]


def history_event(
    fact: Fact,
    event: Event,
    old: str | None,
    new: str | None,
    actor: str,
    task_id: str | None = None,
    before: Sequence[str] = (),
    note: str | None = None,
    version: int | None = None,
) -> HistoryEvent:
    return HistoryEvent(
        memory_id=fact.id,
        tenant_id=fact.tenant_id,
        user_id=fact.user_id,
        event=event,
        old_memory=old,
        new_memory=new,
        actor=actor,
        task_id=task_id,
        version=fact.version if version is None else version,
        attachments_added=[a for a in fact.attachment_ids if a not in before],
        attachments_removed=[a for a in before if a not in fact.attachment_ids],
        note=note,
    )


def next_version(old: Fact, text: str | None = None, **changes: object) -> Fact:
    """The next version of a memory (same id, version + 1, valid from now)."""
    now = utcnow()
    text = old.text if text is None else text
    update: dict[str, object] = {
        "text": text,
        "hash": text_hash(text),
        "version": old.version + 1,
        "updated_at": now,
        "valid_from": now,
    }
    return old.model_copy(update=update | changes)


@dataclass
class Lifecycle:
    facts: FactStore
    index: VectorIndex
    embedder: Embedder
    attachments: AttachmentStore | None = None
    blobs: BlobStore | None = None
    # Told the changes of each commit after they are stored (the event bus); never raises.
    announce: Callable[[Sequence[BusEvent]], object] | None = None
    # Reads what each new memory, and each new text of one, states (domain/statements.py). None: memories
    # keep the statements they were given.
    statements: StatementReader | None = None

    def changes(self, tenant_id: str, user_id: str) -> Changes:
        """A batch of changes to one user's memories; call `commit()` when done."""
        return Changes(self, tenant_id, user_id)


@dataclass
class Changes:
    life: Lifecycle
    tenant_id: str
    user_id: str
    _new: list[tuple[Fact, HistoryEvent]] = field(default_factory=list)
    _docs: dict[str, tuple[Fact, Sequence[float] | None]] = field(default_factory=dict)
    _closed: list[str] = field(default_factory=list)
    _views: dict[str, Fact] = field(default_factory=dict)  # rewritten, indexed fields unchanged
    _holders: AttachmentHolders | None = None
    _events: list[BusEvent] = field(default_factory=list)  # rewrites and closes, told at commit
    # The memories this batch wrote, each as stored now (a replayed task's existing ones left out): what a
    # caller reads next of them needs no read of the fact store.
    written: dict[str, Fact] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._holders = AttachmentHolders(self.tenant_id, self.life.attachments, self.life.blobs)

    @property
    def holders(self) -> AttachmentHolders:
        assert self._holders is not None  # noqa: S101 - type narrowing: set in __init__ when attachments exist
        return self._holders

    def add(
        self,
        fact: Fact,
        actor: str,
        task_id: str | None = None,
        note: str | None = None,
        vector: Sequence[float] | None = None,
    ) -> None:
        """A new memory. Written with the batch's other new memories at commit; a fact whose id exists
        already (a replayed task) is left as it is."""
        self._check(fact)
        self._new.append((fact, history_event(fact, Event.ADD, None, fact.text, actor, task_id, (), note)))
        if fact.valid_to is not None:  # history told late: read by `as_of`, never by current searches
            return
        self.holders.changed(fact.id, (), fact.attachment_ids)
        self._docs[fact.id] = (fact, vector)

    def rewrite(
        self,
        old: Fact,
        new: Fact,
        actor: str,
        task_id: str | None = None,
        note: str | None = None,
        vector: Sequence[float] | None = None,
    ) -> Fact:
        """Write `new` (from `next_version(old, ...)`) and keep `old` as a closed version.
        Raises ConflictError when the memory changed since `old` was read. A new text states anew: its
        statements are read again, unless the caller gave others."""
        self._check(old)
        if new.text != old.text and new.statements == old.statements:
            new = new.model_copy(update={"statements": self._read([new])[0]})
        event = history_event(new, Event.UPDATE, old.text, new.text, actor, task_id, old.attachment_ids, note)
        self.life.facts.replace(old, new, event)
        self.written[new.id] = new
        outdated = len(new.outdated_by) > len(old.outdated_by) and new.text == old.text
        self._tell(new, event, outdated)
        self.holders.changed(new.id, old.attachment_ids, new.attachment_ids)
        reindex = (
            old.speaker != new.speaker
            or any(getattr(old, f) != getattr(new, f) for f in _INDEXED)
            or stated(old) != stated(new)
        )
        if vector is not None or reindex:
            self._docs[new.id] = (new, vector)
            self._views.pop(new.id, None)
        elif new.id in self._docs:
            self._docs[new.id] = (new, self._docs[new.id][1])
        else:  # the index keeps the memory a search shows: same commit, no new embedding
            self._views[new.id] = new
        return new

    def close(
        self,
        fact: Fact,
        actor: str,
        task_id: str | None = None,
        note: str | None = None,
        when: datetime | None = None,
    ) -> None:
        """End a memory's validity (soft delete: versions and history stay). Raises ConflictError
        when it changed or was closed since it was read."""
        self._check(fact)
        event = history_event(fact, Event.DELETE, fact.text, None, actor, task_id, (), note, fact.version + 1)
        self.life.facts.close(fact, when or utcnow(), event)
        self.written.pop(fact.id, None)
        self._tell(fact, event)
        self.holders.changed(fact.id, fact.attachment_ids, ())
        self._docs.pop(fact.id, None)
        self._views.pop(fact.id, None)
        self._closed.append(fact.id)

    def close_many(self, facts: Sequence[Fact], actor: str, task_id: str | None = None, note: str | None = None) -> int:
        """close() for many memories in the store's bulk writes. A memory that changed or was closed
        since it was read is skipped; returns how many were closed."""
        when = utcnow()
        pairs = []
        for fact in facts:
            self._check(fact)
            version = fact.version + 1
            pairs.append((fact, history_event(fact, Event.DELETE, fact.text, None, actor, task_id, (), note, version)))
        closed_flags = self.life.facts.close_many(pairs, when)
        closed = [fact for fact, ok in zip(facts, closed_flags, strict=True) if ok]
        for (fact, event), ok in zip(pairs, closed_flags, strict=True):
            if ok:
                self._tell(fact, event)
        for fact in closed:
            self.written.pop(fact.id, None)
            self.holders.changed(fact.id, fact.attachment_ids, ())
            self._docs.pop(fact.id, None)
            self._views.pop(fact.id, None)
            self._closed.append(fact.id)
        return len(closed)

    def close_each(
        self, facts: Sequence[Fact], actor: str, note: str | None = None, at_expiry: bool = False
    ) -> tuple[int, int]:
        """close() each memory (valid until its expires_at with `at_expiry`, else until now); one that
        changed or was closed since it was read is left for the next run. Returns (closed, conflicts)."""
        closed = conflicts = 0
        for fact in facts:
            try:
                self.close(fact, actor, note=note, when=fact.expires_at if at_expiry else None)
            except ConflictError:
                conflicts += 1
                continue
            closed += 1
        return closed, conflicts

    def commit(self) -> list[bool]:
        """New memories, then the index (one upsert, one delete), then attachment holders (links
        before unlinks, so an attachment moving between memories never looks unheld). Returns, per
        added memory, whether it was new."""
        self._state_new()
        written = self.life.facts.add_many(self._new) if self._new else []
        life = self.life
        replayed = [fact.id for (fact, _), new in zip(self._new, written, strict=True) if not new]
        for (fact, _), new in zip(self._new, written, strict=True):
            if new and fact.valid_to is None:
                self.written.setdefault(fact.id, fact)
        if replayed:
            self._index_as_stored(replayed)
        missing = [f.text for f, v in self._docs.values() if v is None]
        vectors = dict(zip(missing, life.embedder.embed(missing), strict=True)) if missing else {}
        docs = [index_doc(f, v if v is not None else vectors[f.text]) for f, v in self._docs.values()]
        if docs:
            life.index.upsert(docs)
        if self._views and isinstance(life.index, FactViews):
            life.index.update_views(list(self._views.values()))
        if self._closed:
            life.index.delete(self.tenant_id, self.user_id, self._closed)
        self.holders.flush()
        if self.life.announce is not None:
            added = [memory_event(f, h) for (f, h), new in zip(self._new, written, strict=True) if new]
            told = [*added, *self._events]
            if told:
                self.life.announce(told)
        self._new, self._docs, self._closed, self._views, self._events = [], {}, [], {}, []
        return written

    def _state_new(self) -> None:
        """The statements of the batch's new memories, read in one call (a memory given some keeps them).
        Set on the memories themselves, so a caller holding one (to mark or rewrite it later) has them too."""
        unread = [f for f, _ in self._new if not f.statements or f.kind == "instruction"]
        for fact, said in zip(unread, self._read(unread) if unread else [], strict=True):
            fact.statements = said

    def _read(self, facts: Sequence[Fact]) -> list[list[Statement]]:
        """What each memory states: nothing for an instruction (it speaks to the assistant, not of the user)."""
        reader = self.life.statements
        texts = [f.text for f in facts if f.kind != "instruction"]
        if reader is None:
            return [[] for _ in facts]
        read = iter(reader.statements(texts) if texts else [])
        return [[] if f.kind == "instruction" else list(next(read)) for f in facts]

    def _tell(self, fact: Fact, event: HistoryEvent, outdated: bool = False) -> None:
        if self.life.announce is not None:
            self._events.append(memory_event(fact, event, outdated))

    def _index_as_stored(self, memory_ids: list[str]) -> None:
        """A replayed task's memories exist already: index them as stored now (a later change may
        have rewritten or closed them), since the index serves searches the memory it holds."""
        current = {f.id: f for f in self.life.facts.get_many(self.tenant_id, memory_ids)}
        for memory_id in memory_ids:
            replayed = self._docs.pop(memory_id, None)
            stored = current.get(memory_id)
            if replayed is not None and stored is not None:
                self._docs[memory_id] = (stored, replayed[1] if replayed[0].text == stored.text else None)

    def _check(self, fact: Fact) -> None:
        if (fact.tenant_id, fact.user_id) != (self.tenant_id, self.user_id):
            raise ValueError("a batch of changes covers one tenant and user")
