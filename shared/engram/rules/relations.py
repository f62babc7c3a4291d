"""Relations without an LLM: the offline extractor's key/value facts become (user, relation, X)
triples, and the common third-person sentence shapes ("My sister Maren lives in Oslo and works at
Equinor", "Tom's wife Anna was born in Rome. She now works at Eni.") give relations between other
entities."""

from __future__ import annotations

from collections.abc import Sequence

from engram.domain.graph import USER_ENTITY_TYPE, Triple
from engram.domain.models import Message
from engram.domain.steps import CandidateFact
from engram.rules.third_person import USER, third_person_triples

__all__ = ["USER", "facts_to_triples", "offline_triples", "sentence_triples"]


# fact_key -> (relation, destination type) for keys whose value is the other entity.
_KEYED = {
    "employer": ("works_at", "organization"),
    "job_title": ("works_as", "job"),
    "location": ("lives_in", "place"),
    "school": ("studies_at", "organization"),
    "field_of_study": ("studies", "topic"),
    "nationality": ("nationality", "place"),
}
_LIKES = {"like": "likes", "love": "likes", "prefer": "likes", "enjoy": "likes"}
_NOT_A_NAME = {"self-employed", "retired"}


def facts_to_triples(facts: Sequence[CandidateFact]) -> list[Triple]:
    """Triples for the facts whose key names a relation to another entity."""
    triples: list[Triple] = []
    for fact in facts:
        triple = _from_fact(fact)
        if triple is not None:
            triples.append(triple)
    return triples


def _from_fact(fact: CandidateFact) -> Triple | None:
    key, value = fact.fact_key or "", (fact.fact_value or "").strip()
    head, _, rest = key.partition(":")
    if key in _KEYED:
        if not value or value.lower() in _NOT_A_NAME:
            return None
        relation, kind = _KEYED[key]
        return _mine(relation, value, kind, fact.negated)
    if head == "preference" and rest:
        if fact.negated or value is None:
            return _mine("likes", rest, "thing", negated=True)
        return _mine(_LIKES.get(value, "dislikes"), rest, "thing", False)
    if head == "pet" and rest.count(":") == 1:
        return _mine("has_pet", rest.split(":")[1], "pet", fact.negated)
    # "My aunt Mary's son Paul": "Mary's" names nobody (the sentence shapes read the whole phrase).
    if head in ("family", "friend", "work", "partner") and value and not value.isdigit() and not value.endswith("'s"):
        relation = rest.split(":")[0] if rest and rest.split(":")[0] != value else head
        return _mine(relation, value, "person", fact.negated)
    return None


def _mine(relation: str, destination: str, kind: str, negated: bool) -> Triple:
    return Triple(
        source=USER,
        source_type=USER_ENTITY_TYPE,
        relation=relation,
        destination=destination,
        destination_type=kind,
        negated=negated,
    )


def sentence_triples(messages: Sequence[Message]) -> list[Triple]:
    """Third-person relations in what the user said; "my <relation> <Name>" also links the user
    (the sentence shapes: rules/third_person.py)."""
    return third_person_triples(messages)


def offline_triples(messages: Sequence[Message], facts: Sequence[CandidateFact]) -> list[Triple]:
    """Everything the rules understand, each triple once, in order."""
    seen: set[tuple[str, str, str, bool]] = set()
    out: list[Triple] = []
    for triple in [*facts_to_triples(facts), *sentence_triples(messages)]:
        key = (triple.source.casefold(), triple.relation, triple.destination.casefold(), triple.negated)
        if key not in seen:
            seen.add(key)
            out.append(triple)
    return out
