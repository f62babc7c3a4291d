"""Graph extraction with an LLM: one structured-output call per run returns the new relations,
which existing relations they contradict, and which existing relations changed in place (refine: the
same relation with a new kind or end, kept as a new version linked to the old). Existing relations
are shown under integer ids (models copy small integers reliably, and an id outside the list is
caught); a deletion without a new relation that replaces it is refused, so a model that drops a
relation never loses it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from aws_lambda_powertools import Logger

from engram.domain.graph import Relation, Triple, normalise_name, normalise_relation
from engram.domain.models import Message, Scope, Usage
from engram.domain.ports import LLM, GraphStore
from engram.graph.resolve import EntityResolver, user_entity_id
from engram.reconcile.llm_json import ask_json
from engram.reconcile.prompts import graph_system_prompt
from engram.rules.relations import USER

logger = Logger(child=True)

MAX_EXISTING = 40
SEED_ENTITIES = 10
CANONICAL = "lives_in, works_at, works_as, studies_at, sister, brother, mother, father, wife, husband, friend, "
CANONICAL += "colleague, has_pet, likes, dislikes, born_in, member_of, owns"

SYSTEM = f"""You maintain a knowledge graph of what a user says about themselves and the people, places and
things in their life. From the conversation, list the relations it states as true now, as
(source, relation, destination) with a type for each end (person, place, organization, pet, job, thing).
Use "user" for the speaker (I, me, my). Relation names are snake_case; prefer one of: {CANONICAL}.
"My sister Maren" is (user, sister, Maren). Then look at the existing relations (by integer id) and list
the ids of those a new relation contradicts (someone moved, changed jobs, stopped liking something).
Never list an id that a new relation does not replace; leave everything else alone.
When an existing relation itself changed (one end or its kind: Maren moved from Oslo to Bergen, Tom is a
colleague rather than a friend), put it under "refine" as its id and its new (source, relation,
destination) instead of listing it in both "relations" and "delete"."""

_FIELDS = ("source", "source_type", "relation", "destination", "destination_type")
_TRIPLE: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": list(_FIELDS),
    "properties": {k: {"type": "string"} for k in _FIELDS},
}
_REFINE: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["id", *_FIELDS],
    "properties": {"id": {"type": "integer"}} | _TRIPLE["properties"],
}
SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["relations", "delete", "refine"],
    "properties": {
        "relations": {"type": "array", "items": _TRIPLE},
        "delete": {"type": "array", "items": {"type": "integer"}},
        "refine": {"type": "array", "items": _REFINE},
    },
}


@dataclass
class _Answer:
    triples: list[Triple]
    delete: list[int]
    refine: list[tuple[int, Triple]] = field(default_factory=list)  # (existing id, its new version)


def interpret(answer: Any, existing_count: int) -> _Answer:
    """Raises ValueError for an answer of the wrong shape (asked again); ids outside the list are
    hallucinations and are dropped with a warning."""
    if not isinstance(answer, dict) or not isinstance(answer.get("relations"), list):
        raise ValueError('expected {"relations": [...], "delete": [...]}')
    triples = [_triple(item) for item in answer["relations"]]
    delete = [raw for raw in answer.get("delete") or [] if _known(raw, existing_count)]
    refine = []
    for item in answer.get("refine") or []:  # absent in answers of models asked before refine existed
        triple = _triple(item)
        if _known(item.get("id"), existing_count):
            refine.append((item["id"], triple))
        else:  # the new version still holds: added as a relation of its own
            triples.append(triple)
    return _Answer(triples, delete, refine)


def _known(raw: Any, existing_count: int) -> bool:
    if isinstance(raw, int) and not isinstance(raw, bool) and 0 <= raw < existing_count:
        return True
    logger.warning("graph decider named an unknown relation id; ignored", extra={"id": raw})
    return False


def _triple(item: Any) -> Triple:
    if not isinstance(item, dict) or not all(
        isinstance(item.get(k), str) and item[k].strip() for k in ("source", "relation", "destination")
    ):
        raise ValueError(f"relation without source, relation and destination: {item!r}")
    source, destination = item["source"].strip(), item["destination"].strip()
    return Triple(
        source=USER if source.casefold() in ("user", "i", "me") else source,
        source_type=str(item.get("source_type") or "thing").lower(),
        relation=normalise_relation(item["relation"]),
        destination=USER if destination.casefold() in ("user", "i", "me") else destination,
        destination_type=str(item.get("destination_type") or "thing").lower(),
    )


@dataclass
class GraphContext:
    """The existing relations a graph answer's ids point into, and the conversation it reads."""

    user_id: str
    existing: list[Relation]
    listing: str
    conversation: str
    # The current relations of each entity read for the listing (the user's, the ones named): the graph
    # step that applies the answer reads them from here.
    current: dict[str, list[Relation]] = field(default_factory=dict)

    @property
    def user(self) -> str:
        return f"Existing relations:\n{self.listing}\n\nConversation:\n{self.conversation}"

    def interpret(self, answer: Any) -> _Answer:
        return interpret(answer, len(self.existing))

    def decided(self, answer: _Answer) -> tuple[list[Triple], list[Relation]]:
        """The triples to apply and the relations to close: a refined relation is among the closed
        ones, and its new version names it (Triple.refines), so the applier links the two."""
        refined = {i: t.model_copy(update={"refines": self.existing[i].id}) for i, t in answer.refine}
        deletions = self.replaced(answer)
        deletions += [self.existing[i] for i in refined if self.existing[i] not in deletions]
        return [*answer.triples, *refined.values()], deletions

    def replaced(self, answer: _Answer) -> list[Relation]:
        """The deletions a new relation of the same source and kind replaces; others are refused."""
        new = {(normalise_name(self.user_id if t.source == USER else t.source), t.relation) for t in answer.triples}
        accepted = []
        for i in dict.fromkeys(answer.delete):
            relation = self.existing[i]
            if (normalise_name(relation.source), relation.relation) in new:
                accepted.append(relation)
            else:
                logger.warning("graph decider deleted a relation nothing replaces; kept", extra={"id": relation.id})
        return accepted


@dataclass
class LLMGraphExtractor:
    llm: LLM
    store: GraphStore
    attempts: int = 3

    def extract(
        self, scope: Scope, messages: Sequence[Message], resolver: EntityResolver
    ) -> tuple[list[Triple], list[Relation], Usage]:
        context = self.context(scope, messages, resolver)
        answer, usage = ask_json(
            self.llm,
            graph_system_prompt(SYSTEM),
            context.user,
            SCHEMA,
            "graph_relations",
            context.interpret,
            self.attempts,
        )
        triples, deletions = context.decided(answer)
        return triples, deletions, usage

    def context(self, scope: Scope, messages: Sequence[Message], resolver: EntityResolver) -> GraphContext:
        """What the graph part of a prompt shows (also used by the pipeline's single call)."""
        conversation = "\n".join(f"{m.role}: {m.content}" for m in messages if m.role != "system")
        current = self._current(scope, conversation, resolver)
        relations = {r.id: r for found in current.values() for r in found}.values()
        existing = sorted(relations, key=lambda r: r.valid_from, reverse=True)[:MAX_EXISTING]
        listing = "\n".join(f"{i}: {r.source} — {r.relation} — {r.destination}" for i, r in enumerate(existing))
        return GraphContext(scope.user_id, existing, listing or "(none)", conversation, current)

    def _current(self, scope: Scope, conversation: str, resolver: EntityResolver) -> dict[str, list[Relation]]:
        """Current relations of the user and of the entities the conversation names, by entity."""
        hits = resolver.index.text_search(scope.tenant_id, scope.user_id, conversation, SEED_ENTITIES)
        ids = list(dict.fromkeys([user_entity_id(scope.user_id), *(h.id for h in hits)]))
        relations = self.store.relations_of(scope.tenant_id, ids)
        return {i: [r for r in relations if i in (r.source_entity_id, r.destination_entity_id)] for i in ids}
