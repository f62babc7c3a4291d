"""Relations close with the memories that ended them: once a later statement outdated every memory
a relation of the user rests on, in the statement the relation holds ("boyfriend Julien" after the
memories saying so were replaced by a new partner), the relation is closed too. A relation another
current memory still states, or that no memory is linked to, stays."""

from __future__ import annotations

from collections.abc import Sequence

from engram.domain.graph import Relation, normalise_name
from engram.domain.outdated import Outdated
from engram.rules.vocab import SINGLE_RELATIONS
from engram.text.match import values_match

# The relations of the user that hold each aspect of the person (rules/relations.py names them).
RELATIONS_OF = {
    "home": frozenset({"lives_in"}),
    "employer": frozenset({"works_at"}),
    "job": frozenset({"works_as"}),
    "partner": SINGLE_RELATIONS - {"mother", "father"},
    "pets": frozenset({"has_pet"}),
}


def ended_relations(user_entity_id: str, relations: Sequence[Relation], outdated: Sequence[Outdated]) -> list[Relation]:
    """The current relations of the user that state what `outdated` ended and rest on its memories."""
    out: list[Relation] = []
    for relation in relations:
        if not relation.current or relation.source_entity_id != user_entity_id or not relation.memory_ids:
            continue
        ends = [
            o
            for o in outdated
            if relation.relation in RELATIONS_OF.get(o.aspect, ())
            and o.memory_id in relation.memory_ids
            and any(values_match(v, relation.destination) or _same(v, relation.destination) for v in o.values)
        ]
        if ends:
            out.append(relation)
    return out


def _same(a: str, b: str) -> bool:
    return normalise_name(a) == normalise_name(b)
