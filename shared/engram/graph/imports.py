"""Exported graph relations written back into a target user as they were (the import task's last step).

Each relation's ends are resolved by the graph's own resolver, as an extraction resolves a mention:
the user's own entity is the target user's, another end is the target's entity of that name and type
when there is one, else a new entity (its id, name embedding and index entry made as any other) that
keeps the exported aliases and times. The relation keeps its kind, validity, closing and links; its id
comes from the exported one (domain/imports.py), and `refined_from` and `memory_ids` are translated to
the target's ids. A relation the target holds already (an earlier import, or the very relation when an
export goes back into its own user) is skipped, so importing twice adds nothing, as is a current one the
target states already between the same two entities.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from engram.domain.graph import USER_ENTITY_TYPE, Entity, Relation
from engram.domain.imports import ImportedEntity, ImportedRelation, imported_relation_id
from engram.graph.resolve import EntityResolver


@dataclass
class RelationImport:
    """One request's relations for one target user; `memory_id` translates an exported memory id."""

    resolver: EntityResolver
    task_id: str
    memory_id: Callable[[str], str]
    _ends: dict[str, Entity] = field(default_factory=dict)  # exported entity id -> the target's

    def run(self, relations: Sequence[ImportedRelation]) -> tuple[int, int]:
        """Write what the target lacks; returns (added, skipped). A relation this task wrote on an
        earlier try counts as added."""
        store, tenant, user = self.resolver.store, self.resolver.tenant_id, self.resolver.user_id
        held: dict[str, Relation] = {}
        cursor: str | None = None
        while True:
            page = store.relations(tenant, user, 500, cursor, include_closed=True)
            held |= {r.id: r for r in page.relations}
            if not (cursor := page.next_cursor):
                break
        todo: dict[str, ImportedRelation] = {}
        added = 0
        for relation in relations:
            target = imported_relation_id(tenant, user, relation.id)
            if target in held and held[target].task_id == self.task_id:
                added += 1
            elif target not in held and relation.id not in held and target not in todo:
                todo[target] = relation
        if not todo:
            return added, len(relations) - added
        ends = [e for r in todo.values() for e in (r.source_entity, r.destination_entity)]
        self.resolver.prepare([e.name for e in ends if e.type != USER_ENTITY_TYPE])
        # A current relation the target already states (its own extraction read it too) is not doubled.
        stated = {_triple(r) for r in held.values() if r.current}
        written = [r for r in (self._relation(target, r) for target, r in todo.items()) if _triple(r) not in stated]
        self.resolver.commit()
        store.put_relations(written)
        added += len(written)
        return added, len(relations) - added

    def _relation(self, target: str, exported: ImportedRelation) -> Relation:
        source, destination = self._entity(exported.source_entity), self._entity(exported.destination_entity)
        tenant, user = self.resolver.tenant_id, self.resolver.user_id
        refined = exported.refined_from
        return Relation(
            id=target,
            tenant_id=tenant,
            user_id=user,
            source_entity_id=source.id,
            relation=exported.relation,
            destination_entity_id=destination.id,
            source=source.name,
            destination=destination.name,
            valid_from=exported.valid_from,
            valid_to=exported.valid_to,
            task_id=self.task_id,
            memory_ids=[self.memory_id(m) for m in exported.memory_ids],
            closed_by=exported.closed_by,
            refined_from=imported_relation_id(tenant, user, refined) if refined else None,
        )

    def _entity(self, exported: ImportedEntity) -> Entity:
        """The target's entity for an exported one; two exported entities of one name (a sister and a
        colleague, both Anna) stay two within the request."""
        if exported.id in self._ends:
            return self._ends[exported.id]
        if exported.type == USER_ENTITY_TYPE:
            found = self.resolver.user()
            _keep_times(found, exported)  # written only when the target user has no graph yet
        else:
            claimed = {e.id for e in self._ends.values()}
            candidates = self.resolver.candidates(exported.name, exported.type)
            free = [e for e in candidates if e.id not in claimed]
            if free:
                found = free[0]
            else:
                found = self.resolver.new(exported.name, exported.type)
                _keep_times(found, exported)
        self._ends[exported.id] = found
        return found


def _triple(relation: Relation) -> tuple[str, str, str, bool]:
    return (relation.source_entity_id, relation.relation, relation.destination_entity_id, relation.current)


def _keep_times(entity: Entity, exported: ImportedEntity) -> None:
    """A new entity (or the user's own, written only when new) as the exporter held it: its aliases and
    when it was created and last changed."""
    entity.aliases = list(exported.aliases)
    if exported.created_at is not None:
        entity.created_at = exported.created_at
    entity.updated_at = exported.updated_at or entity.created_at
