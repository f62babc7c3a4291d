"""Relations close with the statements that ended them: once a later statement outdated the statement a
relation holds in every memory it rests on ("boyfriend Julien" after the memories saying so were replaced
by a new partner; "Norrland Freight -ceo-> Otieno Kamau" once a newer CEO was told), the relation is closed
too. Per statement: a kept message "I live in York and work at Soins Alpins" outdated in its home closes the
lives-in relation and keeps the works-at one. A relation another current memory still states, or that no
memory is linked to, stays.

A memory's statements (domain/statements.py) say which of them a later one outdated (`outdated_by`). Where a
memory has none that is the relation (one stored before statements, or closed and so no longer read), what the
resolution reports (domain/outdated.py: the attribute and values it ended) decides: for the user's relations,
or any relation of a memory it closed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engram.domain.graph import Relation, normalise_name
from engram.domain.models import Fact
from engram.domain.outdated import Outdated
from engram.domain.statements import Statement
from engram.graph.statements import names_of, states
from engram.text.match import values_match


def ended_relations(
    user_entity_id: str,
    relations: Sequence[Relation],
    outdated: Sequence[Outdated],
    memories: Mapping[str, Fact] | None = None,
) -> list[Relation]:
    """The current relations whose statement `outdated` ended in a memory they rest on. `memories`: the
    outdated memories still current, as stored now (their statements marked)."""
    return [r for r in relations if ended_by(user_entity_id, r, outdated, memories or {})]


def ended_by(
    user_entity_id: str, relation: Relation, outdated: Sequence[Outdated], memories: Mapping[str, Fact]
) -> list[Outdated]:
    """What of `outdated` ended the statement `relation` holds, in the memories it rests on."""
    if not relation.current:
        return []
    users = relation.source_entity_id == user_entity_id
    out: list[Outdated] = []
    for o in outdated:
        if o.memory_id not in relation.memory_ids:
            continue
        memory = memories.get(o.memory_id)
        said = _stating(memory, relation, users) if memory is not None else []
        if said:
            if all(s.outdated_by for s in said):
                out.append(o)
        elif (users or o.closed) and _reported(o, relation):
            out.append(o)
    return out


def stands(memory: Fact | None, relation: Relation, user_entity_id: str) -> bool:
    """Whether a memory, as stored now, still states the relation: current, and its statement of it not
    outdated (a memory without one: outdated in nothing)."""
    if memory is None or not memory.is_current:
        return False
    said = _stating(memory, relation, relation.source_entity_id == user_entity_id)
    if said:
        return any(not s.outdated_by and s.polarity == "asserted" for s in said)
    return not memory.outdated_by


def _stating(memory: Fact, relation: Relation, users: bool) -> list[Statement]:
    return [s for s in memory.statements if states(s, relation.source, relation.destination, users)]


def _reported(o: Outdated, relation: Relation) -> bool:
    return relation.relation in names_of(o.aspect) and any(
        values_match(v, relation.destination) or normalise_name(v) == normalise_name(relation.destination)
        for v in o.values
    )
