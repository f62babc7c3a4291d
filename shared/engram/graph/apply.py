"""Apply extracted triples to a user's graph: resolve both ends, skip what is already known, close
what the new relation contradicts (single-valued relations, likes vs dislikes, explicit negations
and the decider's deletions), open the rest. Closing sets valid_to; nothing is hard-deleted. A relation
a protected memory states (both ends named in its text) is never closed here: like the memory, only
the client closes it (DELETE /v1/graph/relations/{id}).

Refine: when a new relation replaces exactly one current relation of its source (a single-valued
relation whose destination changed, "likes" turned "dislikes", or an LLM's "refine" of an id), the
old version is closed and the new one opens with `refined_from` = the old id: one relation whose
kind or end changed, its history kept, rather than an unrelated close and add. A negation or a
deletion with nothing in its place is a close."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from engram.domain.graph import Entity, Relation, Triple, normalise_name, normalise_relation
from engram.domain.models import utcnow
from engram.domain.ports import GraphStore
from engram.domain.relation_changes import RefinedRelation, RelationTriple, TaskRelations
from engram.graph.resolve import EntityResolver
from engram.rules.relations import USER
from engram.rules.vocab import SINGLE_RELATIONS

# A source holds at most one current relation of these kinds: a new one closes the old.
SINGLE_VALUED = frozenset({"lives_in", "works_at", "works_as", "studies_at", "nationality", *SINGLE_RELATIONS})
OPPOSITES = {"likes": "dislikes", "dislikes": "likes"}
# Relations that say who a person is to the user; two different ones mean two different people.
FAMILY_ROLES = frozenset(
    "mother father sister brother son daughter wife husband partner spouse aunt uncle cousin "
    "grandmother grandfather niece nephew child kid boyfriend girlfriend".split()
)


@dataclass
class GraphChanges:
    added: list[Relation] = field(default_factory=list)
    closed: list[Relation] = field(default_factory=list)
    # (closed old version, new version): a relation changed in place; in neither list above.
    refined: list[tuple[Relation, Relation]] = field(default_factory=list)
    unchanged: int = 0
    # Current relations stated again by another memory: linked to it too, so they stand while it does.
    linked: list[Relation] = field(default_factory=list)
    kept: int = 0  # contradicted, but stated by a protected memory

    def counts(self) -> dict[str, int]:
        # A refine closes one version and opens one: counted in both, as before refines existed.
        refined = len(self.refined)
        counts = {"relations_added": len(self.added) + refined, "relations_closed": len(self.closed) + refined}
        counts |= {"relations_refined": refined} if refined else {}
        return counts | ({"relations_kept_protected": self.kept} if self.kept else {})

    def relations(self) -> TaskRelations:
        """The changes as triples, for the task (Task.relations)."""
        return TaskRelations(
            added=[_triple(r) for r in self.added],
            closed=[_triple(r) for r in self.closed],
            refined=[
                RefinedRelation(**_triple(new).model_dump(), refined_from=_triple(old)) for old, new in self.refined
            ],
        )


def _triple(relation: Relation) -> RelationTriple:
    return RelationTriple(
        id=relation.id, source=relation.source, relation=relation.relation, destination=relation.destination
    )


def _role_group(relation: str) -> str:
    return "family" if relation in FAMILY_ROLES else relation


@dataclass
class GraphApplier:
    store: GraphStore
    resolver: EntityResolver
    task_id: str | None = None
    # Texts of the user's protected memories, read only when a relation is about to close.
    protected: Callable[[], Sequence[str]] = tuple
    said: datetime | None = None  # when the run's messages were said: relations hold from then (else now)
    # The run's memories as (id, text): a new relation links those whose text names its ends.
    memories: Sequence[tuple[str, str]] = ()
    # Each entity's current relations, as read (by this applier, or by the context the run's prompt showed).
    current: dict[str, list[Relation]] = field(default_factory=dict)

    @property
    def _when(self) -> datetime:
        return self.said or utcnow()

    def apply(self, triples: Sequence[Triple], deletions: Iterable[Relation] = ()) -> GraphChanges:
        changes = GraphChanges()
        refined = {t.refines for t in triples if t.refines}
        by_id = {r.id: r for r in deletions}
        for relation in deletions:
            if relation.id not in refined:  # a refined relation closes when its new version opens
                self._close(relation, changes)
        roles = {
            normalise_name(t.destination): t.relation
            for t in triples
            if t.source == USER and t.destination_type == "person"
        }
        self.resolver.prepare([n for t in triples for n in (t.source, t.destination) if n != USER])
        for triple in triples:
            source = self._entity(triple.source, triple.source_type, roles)
            destination = self._entity(triple.destination, triple.destination_type, roles)
            old = by_id.get(triple.refines or "")
            links = triple.stated_by or self._stating(triple, source, destination)
            name = normalise_relation(triple.relation)
            single = triple.single or name in SINGLE_VALUED
            self._one(source, name, destination, triple.negated, changes, old, links, single)
        self.resolver.commit()
        versions = (r for pair in changes.refined for r in pair)
        self.store.put_relations([*changes.closed, *changes.added, *versions, *changes.linked])
        return changes

    def _entity(self, name: str, kind: str, roles: dict[str, str]) -> Entity:
        if name == USER:
            return self.resolver.user()
        role = roles.get(normalise_name(name))
        for candidate in self.resolver.candidates(name, kind):
            if role is None or self._compatible(candidate, role):
                return candidate
        return self.resolver.new(name, kind)

    def _stating(self, triple: Triple, source: Entity, destination: Entity) -> list[str]:
        """The run's memories that name the relation's ends (the other end only, when one is the
        user); when none names both, those naming either ("She works at Equinor" after "Maren moved
        to Oslo"): the memories a question about either end should reach through the relation."""
        ends = [(triple.destination, destination)] if triple.source == USER else []
        ends = ends or [(triple.source, source), (triple.destination, destination)]
        wanted = [{normalise_name(said), *entity.names()} - {""} for said, entity in ends]
        texts = [(memory_id, f" {normalise_name(text)} ") for memory_id, text in self.memories]
        named = [[any(f" {name} " in words for name in names) for names in wanted] for _, words in texts]
        both = [memory_id for (memory_id, _), ends_named in zip(texts, named, strict=True) if all(ends_named)]
        return both or [memory_id for (memory_id, _), ends_named in zip(texts, named, strict=True) if any(ends_named)]

    def _compatible(self, entity: Entity, role: str) -> bool:
        """Same person unless the user already knows them in a different role ("Anna (my sister)"
        is not "Anna from work")."""
        user_id = self.resolver.user().id
        known = {r.relation for r in self._relations(entity) if r.source_entity_id == user_id}
        return not known or _role_group(role) in {_role_group(k) for k in known}

    def _relations(self, entity: Entity) -> list[Relation]:
        if entity.id not in self.current:  # an entity made in this run has nothing stored yet
            new = entity.id in self.resolver.created
            self.current[entity.id] = [] if new else self.store.relations_of(entity.tenant_id, [entity.id])
        return self.current[entity.id]

    def _one(
        self,
        source: Entity,
        name: str,
        destination: Entity,
        negated: bool,
        changes: GraphChanges,
        refines: Relation | None = None,
        links: Sequence[str] = (),
        single: bool = False,
    ) -> None:
        outgoing = [r for r in self._relations(source) if r.source_entity_id == source.id and r.current]
        same = [r for r in outgoing if r.relation == name and r.destination_entity_id == destination.id]
        if negated:
            gone = [r for r in outgoing if r.destination_entity_id == destination.id]
            for relation in gone if name in OPPOSITES else same:
                self._close(relation, changes)
            return
        if same:
            changes.unchanged += 1
            if set(links) - set(same[0].memory_ids):
                self._link(same[0], links, changes)
            return
        replaced = [
            r
            for r in outgoing
            if (single and r.relation == name)
            or (OPPOSITES.get(name) == r.relation and r.destination_entity_id == destination.id)
        ]
        # Told out of order: a relation said before the one that holds now is history, closed when that was said.
        if refines is not None and refines not in replaced:
            replaced.append(refines)
        newer = [r.valid_from for r in replaced if r.valid_from > self._when]
        before = len(changes.closed)
        for relation in [] if newer else replaced:
            self._close(relation, changes)
        # One relation closed for this one: the same relation refined (a protected one kept is not closed).
        old = changes.closed[before:] if len(changes.closed) == before + 1 else []
        relation = Relation(
            tenant_id=source.tenant_id,
            user_id=source.user_id,
            source_entity_id=source.id,
            relation=name,
            destination_entity_id=destination.id,
            source=source.name,
            destination=destination.name,
            task_id=self.task_id,
            valid_from=self._when,
            valid_to=min(newer) if newer else None,
            refined_from=old[0].id if old else None,
            memory_ids=list(links),
        )
        if old:
            changes.closed.remove(old[0])
            changes.refined.append((old[0], relation))
        else:
            changes.added.append(relation)
        for end in (source, destination):
            self._relations(end).append(relation)

    def _close(self, relation: Relation, changes: GraphChanges) -> None:
        if not relation.current or any(r.id == relation.id for r in changes.closed):
            return
        for pair in changes.refined:
            if pair[1].id == relation.id:  # refined and replaced again in one run: the first version closed
                changes.refined.remove(pair)
                changes.closed.append(pair[0])
                self._forget(relation)
                return
        if relation not in changes.added and self._stated_by_protected(relation):
            changes.kept += 1
            return
        changes.linked = [r for r in changes.linked if r.id != relation.id]  # its closed version carries the links
        closed = relation.model_copy(
            update={"valid_to": max(self._when, relation.valid_from), "closed_by": self.task_id or "api"}
        )
        if relation in changes.added:  # opened and contradicted in the same run
            changes.added.remove(relation)
        else:
            changes.closed.append(closed)
        for cached in self.current.values():
            for i, r in enumerate(cached):
                if r.id == relation.id:
                    cached[i] = closed

    def _link(self, relation: Relation, links: Sequence[str], changes: GraphChanges) -> None:
        linked = relation.model_copy(update={"memory_ids": list(dict.fromkeys([*relation.memory_ids, *links]))})
        changes.linked = [r for r in changes.linked if r.id != relation.id]
        if relation in changes.added:  # opened in this run: stored once, with every link
            changes.added[changes.added.index(relation)] = linked
        else:
            changes.linked.append(linked)
        for cached in self.current.values():
            for i, r in enumerate(cached):
                if r.id == relation.id:
                    cached[i] = linked

    def _forget(self, relation: Relation) -> None:
        """A relation opened in this run and gone again: never stored."""
        for cached in self.current.values():
            cached[:] = [r for r in cached if r.id != relation.id]

    def _stated_by_protected(self, relation: Relation) -> bool:
        ends = (
            [relation.destination]
            if relation.source_entity_id == self.resolver.user().id
            else [
                relation.source,
                relation.destination,
            ]
        )
        wanted = [set(normalise_name(end).split()) for end in ends]
        return any(all(w <= set(normalise_name(text).split()) for w in wanted) for text in self.protected())
