"""Response models of the graph routes and of the relations in a search response."""

from __future__ import annotations

from datetime import datetime

from engram.domain.graph import Entity, Relation, ScoredRelation
from engram.domain.model_base import Model


class RelationView(Model):
    id: str
    source: str
    relation: str
    destination: str
    source_entity_id: str
    destination_entity_id: str
    valid_from: datetime
    valid_to: datetime | None = None
    score: float | None = None
    memory_ids: list[str] = []  # the memories that state it
    closed_by: str | None = None  # the task that closed it, or "api"
    refined_from: str | None = None  # the version it changed in place

    @classmethod
    def of(cls, relation: Relation, score: float | None = None) -> RelationView:
        return cls(
            id=relation.id,
            source=relation.source,
            relation=relation.relation,
            destination=relation.destination,
            source_entity_id=relation.source_entity_id,
            destination_entity_id=relation.destination_entity_id,
            valid_from=relation.valid_from,
            valid_to=relation.valid_to,
            score=score,
            memory_ids=relation.memory_ids,
            closed_by=relation.closed_by,
            refined_from=relation.refined_from,
        )

    @classmethod
    def scored(cls, hits: list[ScoredRelation]) -> list[RelationView]:
        return [cls.of(h.relation, h.score) for h in hits]


class EntityView(Model):
    id: str
    name: str
    type: str
    aliases: list[str]
    created_at: datetime
    updated_at: datetime | None = None

    @classmethod
    def of(cls, entity: Entity) -> EntityView:
        return cls(
            id=entity.id,
            name=entity.name,
            type=entity.type,
            aliases=entity.aliases,
            created_at=entity.created_at,
            updated_at=entity.updated_at,
        )


class GraphResponse(Model):
    """One page of a user's entities and one page of their current relations (closed ones too with
    `relations=all`; separate cursors)."""

    entities: list[EntityView]
    relations: list[RelationView]
    next_entity_cursor: str | None = None
    next_relation_cursor: str | None = None


class EntityResponse(EntityView):
    """One entity with every relation it took part in; closed ones (valid_to set) are its history."""

    relations: list[RelationView]


class RelationDeleted(Model):
    id: str
    valid_to: datetime | None
    message: str
