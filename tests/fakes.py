"""In-memory implementations of the ports, for unit tests of the domain (no AWS, no network)."""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from engram.domain.errors import ConflictError, NotFoundError
from engram.domain.filters import matches, states
from engram.domain.graph import Entity, EntityPage, Relation, RelationPage
from engram.domain.models import (
    Attachment,
    Fact,
    HistoryEvent,
    HistoryPage,
    IndexDoc,
    Page,
    ScoredId,
    SearchFilters,
    Task,
    Usage,
    UserActivity,
    UserPage,
)
from engram.domain.operations import BreakerState
from engram.domain.policy import TenantConfig
from engram.domain.steps import LLMReply


def _matches(doc: Fact | IndexDoc, filters: SearchFilters | None) -> bool:
    if isinstance(doc, Fact):
        return matches(doc, filters)
    if filters is None:
        return True
    if filters.agent_id is not None and doc.agent_id != filters.agent_id:
        return False
    if filters.run_id is not None and doc.run_id != filters.run_id:
        return False
    bank = doc.memory_bank if isinstance(doc, IndexDoc) else doc.memory_bank.value
    if filters.memory_bank is not None and bank != filters.memory_bank:
        return False
    if isinstance(doc, IndexDoc) and not states(doc.statements, filters):
        return False
    return all(doc.metadata.get(k) == v for k, v in filters.metadata.items())


class MemoryFactStore:
    def __init__(self) -> None:
        self.current: dict[tuple[str, str], Fact] = {}
        self.versions: list[Fact] = []
        self.events: list[HistoryEvent] = []

    def get(self, tenant_id: str, memory_id: str, include_closed: bool = False) -> Fact:
        fact = self.current.get((tenant_id, memory_id))
        if fact is None or (not include_closed and not fact.is_current):
            raise NotFoundError("memory", memory_id)
        return fact.model_copy(deep=True)

    def get_many(self, tenant_id: str, memory_ids: Sequence[str]) -> list[Fact]:
        found = [self.current.get((tenant_id, i)) for i in memory_ids]
        return [f.model_copy(deep=True) for f in found if f is not None and f.is_current]

    def list_current(
        self,
        tenant_id: str,
        user_id: str,
        limit: int = 100,
        cursor: str | None = None,
        filters: SearchFilters | None = None,
    ) -> Page:
        rows = sorted(
            (
                f
                for (t, _), f in self.current.items()
                if t == tenant_id and f.user_id == user_id and f.is_current and _matches(f, filters)
            ),
            key=lambda f: (f.created_at, f.id),
            reverse=True,
        )
        start = int(cursor or 0)
        page = rows[start : start + limit]
        more = start + limit < len(rows)
        return Page(items=[f.model_copy(deep=True) for f in page], next_cursor=str(start + limit) if more else None)

    def list_as_of(
        self,
        tenant_id: str,
        user_id: str,
        as_of: datetime,
        limit: int = 100,
        cursor: str | None = None,
        filters: SearchFilters | None = None,
    ) -> Page:
        every = [*self.versions, *self.current.values()]
        rows = sorted(
            (
                f
                for f in every
                if f.tenant_id == tenant_id
                and f.user_id == user_id
                and f.valid_from <= as_of
                and (f.valid_to is None or f.valid_to > as_of)
                and matches(f, filters)
            ),
            key=lambda f: (f.valid_from, f.id),
            reverse=True,
        )
        start = int(cursor or 0)
        more = start + limit < len(rows)
        return Page(items=rows[start : start + limit], next_cursor=str(start + limit) if more else None)

    def list_versions(self, tenant_id: str, user_id: str, limit: int = 100, cursor: str | None = None) -> Page:
        every = [*self.versions, *self.current.values()]
        rows = sorted(
            (f for f in every if f.tenant_id == tenant_id and f.user_id == user_id),
            key=lambda f: (f.valid_from, f.id, f.version),
        )
        start = int(cursor or 0)
        more = start + limit < len(rows)
        items = [f.model_copy(deep=True) for f in rows[start : start + limit]]
        return Page(items=items, next_cursor=str(start + limit) if more else None)

    def add_versions(self, versions: Sequence[Fact]) -> None:
        for version in versions:
            key = (version.tenant_id, version.id, version.version)
            self.versions = [v for v in self.versions if (v.tenant_id, v.id, v.version) != key]
            self.versions.append(version.model_copy(deep=True))

    def add_history(self, events: Sequence[HistoryEvent]) -> None:
        known = {(e.tenant_id, e.id) for e in self.events}
        self.events += [e for e in events if (e.tenant_id, e.id) not in known]
        self.events.sort(key=lambda e: e.created_at)

    def add(self, fact: Fact, event: HistoryEvent) -> bool:
        if (fact.tenant_id, fact.id) in self.current:
            return False
        self.current[(fact.tenant_id, fact.id)] = fact.model_copy(deep=True)
        self.events.append(event)
        return True

    def add_many(self, pairs: Sequence[tuple[Fact, HistoryEvent]]) -> list[bool]:
        return [self.add(fact, event) for fact, event in pairs]

    def replace(self, previous: Fact, new: Fact, event: HistoryEvent) -> None:
        stored = self.current.get((previous.tenant_id, previous.id))
        if stored is None or stored.version != previous.version:
            raise ConflictError(f"memory {previous.id} changed")
        self.versions.append(stored.model_copy(update={"valid_to": new.valid_from}))
        self.current[(new.tenant_id, new.id)] = new.model_copy(deep=True)
        self.events.append(event)

    def close(self, fact: Fact, valid_to: datetime, event: HistoryEvent) -> None:
        stored = self.current.get((fact.tenant_id, fact.id))
        if stored is None or stored.version != fact.version:
            raise ConflictError(f"memory {fact.id} changed")
        self.current[(fact.tenant_id, fact.id)] = stored.model_copy(
            update={"valid_to": valid_to, "version": stored.version + 1}
        )
        self.events.append(event)

    def history(self, tenant_id: str, memory_id: str) -> list[HistoryEvent]:
        return [e for e in self.events if e.tenant_id == tenant_id and e.memory_id == memory_id]

    def touch(self, tenant_id: str, uses: Mapping[str, int], when: datetime) -> None:
        for memory_id, count in uses.items():
            fact = self.current.get((tenant_id, memory_id))
            if fact is not None:
                fact.last_accessed_at = when
                fact.access_count += count

    def history_page(self, tenant_id: str, memory_id: str, limit: int, cursor: str | None = None) -> HistoryPage:
        events = self.history(tenant_id, memory_id)
        start = int(cursor or 0)
        more = start + limit < len(events)
        return HistoryPage(items=events[start : start + limit], next_cursor=str(start + limit) if more else None)

    def close_many(self, pairs: Sequence[tuple[Fact, HistoryEvent]], valid_to: datetime) -> list[bool]:
        closed = []
        for fact, event in pairs:
            try:
                self.close(fact, valid_to, event)
                closed.append(True)
            except ConflictError:
                closed.append(False)
        return closed

    def texts(self, tenant_id: str, user_id: str) -> list[str]:
        return sorted(f.text for f in self.list_current(tenant_id, user_id, limit=10_000).items)


def _cos(a: Sequence[float], b: Sequence[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


class MemoryIndex:
    def __init__(self) -> None:
        self.docs: dict[tuple[str, str, str], IndexDoc] = {}

    def upsert(self, docs: Sequence[IndexDoc]) -> None:
        for doc in docs:
            self.docs[(doc.tenant_id, doc.user_id, doc.id)] = doc

    def delete(self, tenant_id: str, user_id: str, memory_ids: Sequence[str]) -> None:
        for memory_id in memory_ids:
            self.docs.pop((tenant_id, user_id, memory_id), None)

    def _scope(self, tenant_id: str, user_id: str, filters: SearchFilters | None) -> list[IndexDoc]:
        return [d for (t, u, _), d in self.docs.items() if t == tenant_id and u == user_id and _matches(d, filters)]

    def knn(
        self, tenant_id: str, user_id: str, vector: Sequence[float], k: int, filters: SearchFilters | None = None
    ) -> list[ScoredId]:
        scored = [ScoredId(id=d.id, score=_cos(vector, d.vector)) for d in self._scope(tenant_id, user_id, filters)]
        return sorted(scored, key=lambda s: s.score, reverse=True)[:k]

    def text_search(
        self, tenant_id: str, user_id: str, query: str, k: int, filters: SearchFilters | None = None
    ) -> list[ScoredId]:
        terms = set(_words(query))
        scored = [
            ScoredId(id=d.id, score=float(len(terms & set(_words(d.text)))))
            for d in self._scope(tenant_id, user_id, filters)
        ]
        return sorted((s for s in scored if s.score > 0), key=lambda s: s.score, reverse=True)[:k]

    def ids(self, tenant_id: str, user_id: str) -> set[str]:
        return {i for (t, u, i) in self.docs if t == tenant_id and u == user_id}


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


class HashEmbedder:
    """Bag-of-words hashing vectors: the same words give cosine 1, shared words give overlap."""

    model_id = "hash-test"
    dimensions = 64

    def __init__(self) -> None:
        self.calls = 0

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls += 1
        out = []
        for text in texts:
            vec = [0.0] * self.dimensions
            for word in _words(text):
                vec[int(hashlib.md5(word.encode()).hexdigest(), 16) % self.dimensions] += 1.0
            norm = math.sqrt(sum(v * v for v in vec)) or 1.0
            out.append([v / norm for v in vec])
        return out


class ScriptedLLM:
    """Answers from a script (strings or callables of (system, user)); records every call."""

    def __init__(self, *answers: str | Callable[[str, str], str]) -> None:
        self.answers = list(answers)
        self.calls: list[dict[str, Any]] = []

    def complete_json(self, system: str, user: str, schema: dict[str, Any], schema_name: str) -> LLMReply:
        self.calls.append({"system": system, "user": user, "schema": schema, "name": schema_name})
        if not self.answers:
            raise AssertionError(f"unexpected LLM call #{len(self.calls)} ({schema_name})")
        answer = self.answers.pop(0)
        content = answer(system, user) if callable(answer) else answer
        return LLMReply(content=content, usage=Usage(llm_calls=1, prompt_tokens=len(user.split()), completion_tokens=5))


def facts_json(*texts: str) -> str:
    return json.dumps({"facts": [{"text": t, "memory_bank": "General", "importance": 0.5} for t in texts]})


def memory_json(*items: dict[str, Any]) -> str:
    return json.dumps({"memory": [{"old_memory": None, **item} for item in items]})


class MemoryConfigStore:
    """ConfigStore in memory; counts reads, so tests can see what the cache saves."""

    def __init__(self) -> None:
        self.configs: dict[str, str] = {}
        self.reads = 0

    def get(self, tenant_id: str) -> TenantConfig | None:
        self.reads += 1
        doc = self.configs.get(tenant_id)
        return TenantConfig.model_validate_json(doc) if doc is not None else None

    def put(self, tenant_id: str, config: TenantConfig) -> None:
        self.configs[tenant_id] = config.model_dump_json()


class MemoryTaskStore:
    def __init__(self) -> None:
        self.tasks: dict[tuple[str, str], Task] = {}

    def create(self, task: Task) -> None:
        self.tasks[(task.tenant_id, task.task_id)] = task.model_copy(deep=True)

    def get(self, tenant_id: str, task_id: str) -> Task:
        task = self.tasks.get((tenant_id, task_id))
        if task is None:
            raise NotFoundError("task", task_id)
        return task.model_copy(deep=True)

    def get_many(self, tenant_id: str, task_ids: Sequence[str]) -> list[Task]:
        return [self.get(tenant_id, task_id) for task_id in task_ids]

    def save(self, task: Task) -> None:
        self.tasks[(task.tenant_id, task.task_id)] = task.model_copy(deep=True)

    def save_many(self, tasks: Sequence[Task]) -> None:
        for task in tasks:
            self.save(task)

    def user_tasks(
        self, tenant_id: str, user_id: str, before: Task, limit: int = 100, cursor: str | None = None
    ) -> tuple[list[Task], str | None]:
        order = sorted(
            (t for t in self.tasks.values() if (t.tenant_id, t.user_id) == (tenant_id, user_id)),
            key=lambda t: (t.created_at, t.task_id),
        )
        older = [t for t in order if (t.created_at, t.task_id) < (before.created_at, before.task_id)]
        start = int(cursor or 0)
        page = older[start : start + limit]
        more = start + limit < len(older)
        return [t.model_copy(deep=True) for t in page], str(start + limit) if more else None

    def forget_inputs(self, tasks: Sequence[Task]) -> None:
        for task in tasks:
            self.save(task.model_copy(update={"request": None, "payload_key": None, "results": [], "retained": False}))


class MemoryQueue:
    def __init__(self) -> None:
        self.sent: list[Task] = []

    def enqueue(self, task: Task) -> None:
        self.sent.append(task)

    def requeue(self, task: Task) -> None:
        self.sent.append(task)


class MemoryBlobs:
    def __init__(self) -> None:
        self.blobs: dict[str, bytes] = {}

    def put(self, key: str, data: bytes, content_type: str = "application/octet-stream") -> None:
        self.blobs[key] = data

    def get(self, key: str) -> bytes:
        if key not in self.blobs:
            raise NotFoundError("blob", key)
        return self.blobs[key]

    def delete(self, key: str) -> None:
        self.blobs.pop(key, None)

    def presign_get(self, key: str, expires_in: int = 300) -> str:
        return f"memory://{key}?get"

    def presign_put(self, key: str, content_type: str, expires_in: int = 300) -> str:
        return f"memory://{key}?put"


class MemoryAttachmentStore:
    def __init__(self) -> None:
        self.records: dict[tuple[str, str], Attachment] = {}
        self.holding: dict[tuple[str, str], set[str]] = {}

    def create(self, attachment: Attachment) -> None:
        self.records[(attachment.tenant_id, attachment.id)] = attachment.model_copy(deep=True)

    def get(self, tenant_id: str, attachment_id: str) -> Attachment:
        found = self.records.get((tenant_id, attachment_id))
        if found is None:
            raise NotFoundError("attachment", attachment_id)
        return found.model_copy(deep=True)

    def get_many(self, tenant_id: str, attachment_ids: Sequence[str]) -> dict[str, Attachment]:
        return {a: self.get(tenant_id, a) for a in attachment_ids if (tenant_id, a) in self.records}

    def save(self, attachment: Attachment) -> None:
        self.records[(attachment.tenant_id, attachment.id)] = attachment.model_copy(deep=True)

    def link(self, tenant_id: str, attachment_id: str, memory_id: str) -> None:
        self.get(tenant_id, attachment_id)
        self.holding.setdefault((tenant_id, attachment_id), set()).add(memory_id)

    def unlink(self, tenant_id: str, attachment_id: str, memory_id: str) -> int:
        held = self.holding.setdefault((tenant_id, attachment_id), set())
        held.discard(memory_id)
        return len(held)

    def holders(self, tenant_id: str, attachment_id: str) -> list[str]:
        self.get(tenant_id, attachment_id)
        return sorted(self.holding.get((tenant_id, attachment_id), set()))


class MemoryUserDirectory:
    """UserDirectory in a dict: each tenant's users in user_id order, the offset as cursor."""

    def __init__(self) -> None:
        self.active: dict[str, dict[str, datetime]] = {}

    def touch(self, tenant_id: str, user_id: str, when: datetime) -> None:
        users = self.active.setdefault(tenant_id, {})
        users[user_id] = max(when, users.get(user_id, when))

    def list(self, tenant_id: str, limit: int, cursor: str | None = None) -> UserPage:
        users = sorted(self.active.get(tenant_id, {}).items())
        start = int(cursor or 0)
        items = [UserActivity(user_id=u, last_active_at=t) for u, t in users[start : start + limit]]
        more = start + limit < len(users)
        return UserPage(items=items, next_cursor=str(start + limit) if more else None)

    def forget(self, tenant_id: str, user_id: str) -> None:
        self.active.get(tenant_id, {}).pop(user_id, None)


# --- graph memory ---------------------------------------------------------------------------------
class MemoryGraphStore:
    """GraphStore in dicts; pages by insertion order with the offset as cursor."""

    def __init__(self) -> None:
        self.entity_rows: dict[tuple[str, str], Entity] = {}
        self.relation_rows: dict[tuple[str, str], Relation] = {}

    def put_entities(self, entities: Sequence[Entity]) -> None:
        for e in entities:
            self.entity_rows[(e.tenant_id, e.id)] = e

    def put_relations(self, relations: Sequence[Relation]) -> None:
        for r in relations:
            self.relation_rows[(r.tenant_id, r.id)] = r

    def forget_user(self, tenant_id: str, user_id: str) -> int:
        doomed = [
            k
            for k, v in [*self.entity_rows.items(), *self.relation_rows.items()]
            if k[0] == tenant_id and v.user_id == user_id
        ]
        for key in doomed:
            self.entity_rows.pop(key, None)
            self.relation_rows.pop(key, None)
        return len(doomed)

    def get_entity(self, tenant_id: str, entity_id: str) -> Entity:
        if (tenant_id, entity_id) not in self.entity_rows:
            raise NotFoundError("entity", entity_id)
        return self.entity_rows[(tenant_id, entity_id)]

    def get_entities(self, tenant_id: str, entity_ids: Sequence[str]) -> list[Entity]:
        rows = self.entity_rows
        return [rows[(tenant_id, i)] for i in dict.fromkeys(entity_ids) if (tenant_id, i) in rows]

    def get_relation(self, tenant_id: str, relation_id: str) -> Relation:
        if (tenant_id, relation_id) not in self.relation_rows:
            raise NotFoundError("relation", relation_id)
        return self.relation_rows[(tenant_id, relation_id)]

    def relations_of(self, tenant_id: str, entity_ids: Sequence[str], include_closed: bool = False) -> list[Relation]:
        ids = set(entity_ids)
        return [
            r
            for (t, _), r in self.relation_rows.items()
            if t == tenant_id
            and (include_closed or r.current)
            and (r.source_entity_id in ids or r.destination_entity_id in ids)
        ]

    def entities(self, tenant_id: str, user_id: str, limit: int = 100, cursor: str | None = None) -> EntityPage:
        rows = [e for (t, _), e in self.entity_rows.items() if t == tenant_id and e.user_id == user_id]
        start = int(cursor or 0)
        nxt = str(start + limit) if start + limit < len(rows) else None
        return EntityPage(entities=rows[start : start + limit], next_cursor=nxt)

    def relations(
        self,
        tenant_id: str,
        user_id: str,
        limit: int = 100,
        cursor: str | None = None,
        include_closed: bool = False,
        as_of: datetime | None = None,
    ) -> RelationPage:
        rows = [r for (t, _), r in self.relation_rows.items() if t == tenant_id and r.user_id == user_id]
        start = int(cursor or 0)
        nxt = str(start + limit) if start + limit < len(rows) else None
        page = rows[start : start + limit]
        if as_of is not None:
            page = [r for r in page if r.current_at(as_of)]
        elif not include_closed:
            page = [r for r in page if r.current]
        return RelationPage(relations=page, next_cursor=nxt)


class MemoryBreakerStore:
    """BreakerStore in memory, with the same compare-on-version writes as the DynamoDB one."""

    def __init__(self) -> None:
        self.states: dict[str, BreakerState] = {}

    def load(self, name: str) -> BreakerState:
        return self.states.get(name, BreakerState(name=name)).model_copy(deep=True)

    def save(self, state: BreakerState, expected_version: int) -> bool:
        if self.states.get(state.name, BreakerState(name=state.name)).version != expected_version:
            return False
        self.states[state.name] = state.model_copy(deep=True)
        return True


class Clock:
    """A clock that moves only when a test moves it (epoch seconds)."""

    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now
