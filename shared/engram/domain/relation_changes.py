"""What an add did to the user's graph, relation by relation: on the task (Task.relations) so a
client sees which relations it added, closed or refined, not only how many (Task.counts)."""

from __future__ import annotations

from pydantic import Field

from engram.domain.model_base import Model


class RelationTriple(Model):
    """One relation as (source, relation, destination) with its id (GET /v1/graph/relations)."""

    id: str
    source: str
    relation: str
    destination: str


class RefinedRelation(RelationTriple):
    """A relation changed in place: its kind or an end, as a new version; the old one is closed."""

    refined_from: RelationTriple


class TaskRelations(Model):
    added: list[RelationTriple] = Field(default_factory=list)
    closed: list[RelationTriple] = Field(default_factory=list)
    refined: list[RefinedRelation] = Field(default_factory=list)

    def extend(self, other: TaskRelations) -> None:
        self.added += other.added
        self.closed += other.closed
        self.refined += other.refined
