"""What the API and the worker do with the graph, on ports only."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from aws_lambda_powertools import Logger

from engram.domain.errors import LLMOutputError, NotFoundError
from engram.domain.graph import Entity, EntityPage, Relation, RelationPage, ScoredRelation, Triple
from engram.domain.models import Fact, Message, Scope, Usage, utcnow
from engram.domain.outdated import Outdated
from engram.domain.ports import Embedder, GraphStore, VectorIndex
from engram.domain.statements import Statement
from engram.domain.steps import CandidateFact
from engram.graph.resolve import EntityResolver, index_entities, user_entity_id
from engram.graph.search import GraphSearcher

if TYPE_CHECKING:  # the worker's side; the API (search, corrections) never loads the offline rules
    from engram.graph.apply import GraphChanges
    from engram.graph.llm import GraphContext

logger = Logger(child=True)


class GraphExtractorPort(Protocol):
    """The LLM path (engram/graph/llm.py): triples to apply and existing relations to close."""

    def extract(
        self, scope: Scope, messages: Sequence[Message], resolver: EntityResolver
    ) -> tuple[list[Triple], list[Relation], Usage]: ...


@dataclass
class GraphService:
    store: GraphStore
    index: VectorIndex  # entity names (a separate index from the memories')
    embedder: Embedder
    extractor: GraphExtractorPort | None = None  # the LLM path; None: the offline rules
    resolve_threshold: float = 0.9
    search_similarity: float = 0.5
    enabled: bool = True

    # --- the worker ----------------------------------------------------------------------------
    def ingest(
        self,
        scope: Scope,
        messages: Sequence[Message],
        facts: Sequence[CandidateFact],
        task_id: str,
        decided: tuple[list[Triple], list[Relation]] | None = None,
        protected: Callable[[], Sequence[str]] = tuple,
        memories: Sequence[tuple[str, str]] = (),
        stated: Mapping[str, Sequence[Statement]] | None = None,
        extract: bool = True,
        read: Mapping[str, Sequence[Relation]] | None = None,
    ) -> tuple[GraphChanges, Usage]:
        """Extract relations from one run's messages (at most one LLM call) and apply them, with the relations
        the run's memories' statements are (graph/statements.py).
        `decided`: relations the pipeline's single LLM call already returned (no call here);
        `protected`: reads the texts of the user's protected memories (the relations they state stay);
        `memories`: the run's memories as (id, text), which new relations link when they state them;
        `stated`: the statements each of the run's memories stores, by memory id;
        `extract`: False for messages stored as said: only their statements make relations;
        `read`: current relations by entity, as this run read them (the single call's prompt): not read again."""
        from engram.graph.apply import GraphApplier, GraphChanges
        from engram.graph.statements import with_statements
        from engram.rules.relations import offline_triples
        from engram.text.transcript import said_last

        resolver = self._resolver(scope)
        deletions: list[Relation] = []
        usage = Usage()
        triples: list[Triple]
        if not extract:
            triples = []
        elif decided is not None:
            triples, deletions = decided
        elif self.extractor is not None:
            try:
                triples, deletions, usage = self.extractor.extract(scope, messages, resolver)
            except LLMOutputError as err:
                # A weak model that never answers usably: the offline rules' relations rather than a
                # failed add (the memories are already stored; a retry would get the same answer).
                logger.warning("graph answer unusable; offline relations used", extra={"error": str(err)})
                triples, usage = offline_triples(messages, facts), err.usage or Usage()
        else:
            triples = offline_triples(messages, facts)
        triples = with_statements(triples, stated or {})
        if not triples and not deletions:
            return GraphChanges(), usage
        said = said_last(messages)
        current = {entity: list(found) for entity, found in (read or {}).items()}
        applier = GraphApplier(self.store, resolver, task_id, protected, said, memories, current)
        return applier.apply(triples, deletions), usage

    def context(self, scope: Scope, messages: Sequence[Message]) -> GraphContext | None:
        """The graph part of a combined prompt; None when relations are not an LLM's job here."""
        from engram.graph.llm import LLMGraphExtractor

        if not isinstance(self.extractor, LLMGraphExtractor):
            return None
        return self.extractor.context(scope, messages, self._resolver(scope))

    def _resolver(self, scope: Scope) -> EntityResolver:
        return self.resolver(scope.tenant_id, scope.user_id)

    def resolver(self, tenant_id: str, user_id: str) -> EntityResolver:
        """Resolves one run's mentions in the user's graph (an extraction's, or an import's)."""
        return EntityResolver(self.store, self.index, self.embedder, tenant_id, user_id, self.resolve_threshold)

    # --- reads ---------------------------------------------------------------------------------
    def search(self, tenant_id: str, user_id: str, query: str, hops: int = 1, limit: int = 20) -> list[ScoredRelation]:
        vector = self.embedder.embed([query])[0]
        searcher = GraphSearcher(self.store, self.index, self.search_similarity)
        return searcher.search(tenant_id, user_id, query, vector, hops, limit)

    def entities(self, tenant_id: str, user_id: str, limit: int, cursor: str | None) -> EntityPage:
        return self.store.entities(tenant_id, user_id, limit, cursor)

    def relations(
        self,
        tenant_id: str,
        user_id: str,
        limit: int,
        cursor: str | None,
        as_of: datetime | None = None,
        include_closed: bool = False,
    ) -> RelationPage:
        return self.store.relations(tenant_id, user_id, limit, cursor, include_closed=include_closed, as_of=as_of)

    def entity(self, tenant_id: str, entity_id: str) -> tuple[Entity, list[Relation]]:
        """One entity with every relation it took part in, closed ones included (its history)."""
        entity = self.store.get_entity(tenant_id, entity_id)
        relations = self.store.relations_of(tenant_id, [entity_id], include_closed=True)
        return entity, sorted(relations, key=lambda r: r.valid_from)

    # --- corrections ---------------------------------------------------------------------------
    def restate(
        self,
        scope: Scope,
        memory_id: str,
        text: str,
        fact_key: str | None,
        fact_value: str | None,
        statements: Sequence[Statement] = (),
    ) -> GraphChanges:
        """A memory's text was corrected: the relations it stated no longer rest on it (closed when
        nothing else states them), and the relations its new text states (and its statements) are applied,
        linked to it."""
        stale: list[Relation] = []
        cursor: str | None = None
        while True:
            page = self.store.relations(scope.tenant_id, scope.user_id, 200, cursor)
            stale += [r for r in page.relations if memory_id in r.memory_ids]
            if not (cursor := page.next_cursor):
                break
        now = utcnow()
        self.store.put_relations(
            [
                r.model_copy(update={"valid_to": now, "closed_by": "api"})
                if r.memory_ids == [memory_id]
                else r.model_copy(update={"memory_ids": [m for m in r.memory_ids if m != memory_id]})
                for r in stale
            ]
        )
        fact = CandidateFact(text=text, fact_key=fact_key, fact_value=fact_value)
        said = [Message(role="user", content=text, created_at=now)]
        stated = {memory_id: statements}
        changes, _ = self.ingest(scope, said, [fact], f"patch:{memory_id}", memories=[(memory_id, text)], stated=stated)
        return changes

    def close_outdated(
        self,
        scope: Scope,
        outdated: Sequence[Outdated],
        task_id: str,
        read: Callable[[Sequence[str]], Sequence[Fact]],
    ) -> GraphChanges:
        """Close the relations whose statement a later one outdated in the memories they rest on (graph/outdated.py),
        valid until that statement was said. `read` gives the current memories of some ids, as stored now: a
        relation another of them still states stays."""
        from engram.graph.apply import GraphChanges
        from engram.graph.outdated import ended_by, stands

        changes = GraphChanges()
        ended = {o.memory_id for o in outdated}
        linked = [r for r in self._current_relations(scope) if ended & set(r.memory_ids)]
        if not linked:
            return changes
        memories = {f.id: f for f in read(sorted({m for r in linked for m in r.memory_ids}))}
        user = user_entity_id(scope.user_id)
        for relation in linked:
            enders = ended_by(user, relation, outdated, memories)
            gone = {o.memory_id for o in enders}
            if not enders or any(stands(memories.get(m), relation, user) for m in relation.memory_ids if m not in gone):
                continue
            when = max([o.at for o in enders] + [relation.valid_from])
            changes.closed.append(relation.model_copy(update={"valid_to": when, "closed_by": task_id}))
        if changes.closed:
            self.store.put_relations(changes.closed)
        return changes

    def _current_relations(self, scope: Scope) -> list[Relation]:
        out: list[Relation] = []
        cursor: str | None = None
        while True:
            page = self.store.relations(scope.tenant_id, scope.user_id, 500, cursor)
            out += [r for r in page.relations if r.current]
            if not (cursor := page.next_cursor):
                return out

    def delete_relation(self, tenant_id: str, relation_id: str) -> Relation:
        """Close a current relation (kept in the history); 404 when unknown or already closed."""
        relation = self.store.get_relation(tenant_id, relation_id)
        if not relation.current:
            raise NotFoundError("relation", relation_id)
        closed = relation.model_copy(update={"valid_to": utcnow(), "closed_by": "api"})
        self.store.put_relations([closed])
        return closed

    def forget_user(self, tenant_id: str, user_id: str) -> int:
        """Remove the user's whole graph, entity vectors included; idempotent, in batches."""
        while ids := sorted(self.index.ids(tenant_id, user_id))[:500]:
            self.index.delete(tenant_id, user_id, ids)
        return self.store.forget_user(tenant_id, user_id)

    def repair_vectors(self, tenant_id: str, user_id: str) -> tuple[int, int]:
        """Re-index entities missing from the index, drop vectors of entities that are gone.
        Returns (re-indexed, dropped)."""
        stored: list[Entity] = []
        cursor: str | None = None
        while True:
            page = self.store.entities(tenant_id, user_id, 200, cursor)
            stored += page.entities
            if not (cursor := page.next_cursor):
                break
        indexed = self.index.ids(tenant_id, user_id)
        missing = [e for e in stored if e.id not in indexed]
        extra = sorted(indexed - {e.id for e in stored})
        index_entities(self.index, self.embedder, missing)
        if extra:
            self.index.delete(tenant_id, user_id, extra)
        return len(missing), len(extra)
