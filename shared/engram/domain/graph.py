"""Graph memory model: entities and the relations between them, per tenant and user.

A relation that is contradicted is closed (valid_to set), never hard-deleted, so the closed
relations are the graph's history and "as of" reads follow from valid_from / valid_to.
"""

from __future__ import annotations

import re
import uuid
from datetime import datetime

from pydantic import Field

from engram.domain.model_base import Model
from engram.domain.models import utcnow

USER_ENTITY_TYPE = "user"


def new_id() -> str:
    return uuid.uuid4().hex


def normalise_name(name: str) -> str:
    """The key two mentions of one entity share: case, spacing and punctuation ignored."""
    return re.sub(r"[^\w]+", " ", name.casefold()).strip()


def normalise_relation(name: str) -> str:
    """snake_case relation names ("Works At" -> works_at), in any script ("travaille à" -> travaille_à)."""
    return re.sub(r"[\W_]+", "_", name.casefold()).strip("_") or "related_to"


class Entity(Model):
    id: str = Field(default_factory=new_id)
    tenant_id: str
    user_id: str
    name: str
    type: str = "thing"
    aliases: list[str] = Field(default_factory=list)
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)

    @property
    def key(self) -> str:
        return normalise_name(self.name)

    def names(self) -> set[str]:
        return {normalise_name(n) for n in [self.name, *self.aliases]}


class Relation(Model):
    id: str = Field(default_factory=new_id)
    tenant_id: str
    user_id: str
    source_entity_id: str
    relation: str
    destination_entity_id: str
    source: str  # the entity names, kept on the relation so reads need no join
    destination: str
    valid_from: datetime = Field(default_factory=utcnow)
    valid_to: datetime | None = None
    task_id: str | None = None
    # The memories (facts, episodes) of the run that state it: what graph-expanded search returns
    # for a question naming one of its ends. Empty on relations stored before the link existed.
    memory_ids: list[str] = Field(default_factory=list)
    closed_by: str | None = None  # why it was closed: the task or "api"
    # The version this one refined (its kind or an end changed in place); that one closed as this opened.
    refined_from: str | None = None

    @property
    def current(self) -> bool:
        return self.valid_to is None

    def current_at(self, when: datetime) -> bool:
        return self.valid_from <= when and (self.valid_to is None or when < self.valid_to)


class Triple(Model):
    """A relation as an extractor states it, before entity resolution. "user" names the user."""

    source: str
    source_type: str = "thing"
    relation: str
    destination: str
    destination_type: str = "thing"
    negated: bool = False  # "I no longer live in Oslo": closes the relation, opens nothing
    refines: str | None = None  # the id of an existing relation this is the new version of (an LLM's "refine")
    single: bool = False  # one at a time (a statement's cardinality): a new one closes its source's other of this kind
    # The memories stating it (a statement's, graph/statements.py), linked as they are; else found by its ends' names.
    stated_by: list[str] = Field(default_factory=list)


class EntityPage(Model):
    entities: list[Entity]
    next_cursor: str | None = None


class RelationPage(Model):
    relations: list[Relation]
    next_cursor: str | None = None


class ScoredRelation(Model):
    relation: Relation
    score: float
