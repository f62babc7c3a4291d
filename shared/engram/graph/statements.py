"""Graph relations are statements (domain/statements.py): each statement a memory stores whose value is an
entity (a person, organisation, place, product: a name, not an amount or free text) is a relation from its
subject (the user's own entity for "user", else an entity by name: "Norrland Freight", "Ines" of "my daughter
Ines") to its value, named for its attribute and linked to that memory, so it closes with the statement
(graph/outdated.py). A relation the rules make already (lives in, works at, a partner) is that relation, not
a second one."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from engram.domain.graph import USER_ENTITY_TYPE, Triple, normalise_name, normalise_relation
from engram.domain.statements import USER, Statement
from engram.rules.vocab import RELATIONS, SINGLE_RELATIONS
from engram.text.letters import is_capital
from engram.text.match import values_match

# The catalogue's attributes of the person whose relations the rules already name (rules/relations.py).
NAMED = {
    **{"home": "lives_in", "employer": "works_at", "job": "works_as", "pets": "has_pet", "school": "studies_at"},
    "citizenship": "nationality",
}
# The relations of the user that hold each of those attributes (a partner is told by the role: "boyfriend").
RELATIONS_OF: dict[str, frozenset[str]] = {
    **{attribute: frozenset({name}) for attribute, name in NAMED.items()},
    "partner": SINGLE_RELATIONS - {"mother", "father"},
}
MAX_NAME_WORDS = 8  # a name is short; a longer value is free text
_POSSESSOR = re.compile(r"^(?i:my|our)\s+")


def relation_name(attribute: str) -> str:
    """The relation an attribute's statements are: the rules' name where they have one, else the attribute."""
    return NAMED.get(attribute) or normalise_relation(attribute)


def names_of(attribute: str) -> frozenset[str]:
    """Every relation name a statement of `attribute` may be held as."""
    return RELATIONS_OF.get(attribute, frozenset()) | {relation_name(attribute)}


def names_an_entity(value: str) -> bool:
    """Whether a value is a name ("Soins Alpins", "iPhone 15", "3M", "12 Rue Cler", "東京"): it starts as a name
    does, after a number when one leads, in a value short enough to be one. An amount ("£1,200", "3 kids") or
    lower-case words ("vegetarian", "school nurse") are not."""
    words = value.split()
    if not 0 < len(words) <= MAX_NAME_WORDS:
        return False
    first = words[1] if words[0][:1].isdigit() and len(words) > 1 else words[0]
    return is_capital(first) or is_capital(first[1:2])  # "iPhone", "eBay", "3M"


def subject_parts(subject: str) -> tuple[str, str | None]:
    """The entity a subject names and the user's role for it: "my daughter Ines" -> ("Ines", "daughter"),
    "Norrland Freight" -> ("Norrland Freight", None), "our van" -> ("van", None)."""
    if subject == USER:
        return USER, None
    mine = _POSSESSOR.match(subject)
    if mine is None:
        return subject, None
    words = subject[mine.end() :].split()
    named = next((i for i, w in enumerate(words) if is_capital(w)), None)
    if named is None or named == 0:
        return " ".join(words), None
    role = " ".join(words[:named]).casefold()
    return " ".join(words[named:]), (RELATIONS[role][1] if role in RELATIONS else None)


def with_statements(made: Sequence[Triple], stated: Mapping[str, Sequence[Statement]]) -> list[Triple]:
    """The rules' (or a model's) triples `made`, then the relations the memories' statements (by memory id)
    are, each linked to the memories stating it; an ended or denied value is a closing one. One relation per
    fact: where `made` has it already (the same ends, a name the attribute's relation goes by), that one
    takes the statement's memories."""
    out: dict[tuple[str, str, str, bool], tuple[Triple, frozenset[str]]] = {}
    for memory_id, statements in stated.items():
        for statement in statements:
            for triple, names in _triples(statement):
                key = (
                    normalise_name(triple.source),
                    triple.relation,
                    normalise_name(triple.destination),
                    triple.negated,
                )
                known = out.get(key)
                ids = [*known[0].stated_by, memory_id] if known is not None else [memory_id]
                out[key] = (triple.model_copy(update={"stated_by": list(dict.fromkeys(ids))}), names)
    merged = list(made)
    for triple, names in out.values():
        same = [i for i, t in enumerate(merged) if t.relation in names and t.negated == triple.negated]
        same = [i for i in same if _same_ends(merged[i], triple)]
        for i in same:
            ids = list(dict.fromkeys([*merged[i].stated_by, *triple.stated_by]))
            merged[i] = merged[i].model_copy(update={"stated_by": ids, "single": merged[i].single or triple.single})
        if not same:
            merged.append(triple)
    return merged


def _triples(statement: Statement) -> list[tuple[Triple, frozenset[str]]]:
    """The relations a statement is, each with the names it may already be held by."""
    if statement.polarity not in ("asserted", "ended", "denied") or not names_an_entity(statement.value):
        return []
    source, role = subject_parts(statement.subject)
    if not source:
        return []
    kind = USER_ENTITY_TYPE if source == USER else "person" if role else "thing"
    triple = Triple(
        source=source,
        source_type=kind,
        relation=relation_name(statement.attribute),
        destination=statement.value,
        negated=statement.polarity != "asserted",
        single=statement.single,
    )
    said = (triple, names_of(statement.attribute))
    if role is None:
        return [said]
    user = Triple(
        source=USER, source_type=USER_ENTITY_TYPE, relation=role, destination=source, destination_type="person"
    )
    return [(user, names_of(role)), said]


def _same_ends(a: Triple, b: Triple) -> bool:
    return normalise_name(a.source) == normalise_name(b.source) and (
        normalise_name(a.destination) == normalise_name(b.destination) or values_match(a.destination, b.destination)
    )


def states(statement: Statement, source: str, destination: str, users: bool) -> bool:
    """Whether a statement is the relation between these ends (`users`: the source is the user's entity)."""
    subject, _ = subject_parts(statement.subject)
    if (subject == USER) != users or (not users and normalise_name(subject) != normalise_name(source)):
        return False
    return normalise_name(statement.value) == normalise_name(destination) or values_match(statement.value, destination)
