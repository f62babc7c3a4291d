"""Relations without an LLM: the offline extractor's key/value facts become (user, relation, X)
triples, and a few third-person sentence shapes ("My sister Maren lives in Oslo", "Alice now works
at Stanford as a professor") give relations between other entities."""

from __future__ import annotations

import re
from collections.abc import Sequence

from engram.domain.graph import USER_ENTITY_TYPE, Triple
from engram.domain.models import Message
from engram.domain.steps import CandidateFact
from engram.offline.vocab import RELATIONS

USER = "user"  # stands for the user's own entity until resolution maps it to the user id

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

_NAME = r"[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*"
_PLACE = r"[A-Z][\w'.&-]*(?:\s+[A-Z][\w'.&-]*)*"
_REL_WORDS = "|".join(sorted((re.escape(w) for w in RELATIONS), key=len, reverse=True))
_SUBJECT = rf"(?:(?:my|My)\s+(?P<rel>{_REL_WORDS})\s*,?\s+)?(?P<name>{_NAME})"
_VERBS = [
    (r"(?:now\s+)?(?:lives|is\s+living|resides)\s+in", "lives_in", "place"),
    (r"(?:has\s+)?(?:now\s+)?moved\s+to", "lives_in", "place"),
    (r"(?:now\s+)?(?:works|is\s+working)\s+(?:at|for)", "works_at", "organization"),
    (r"(?:now\s+)?studies\s+at", "studies_at", "organization"),
]
_THIRD_PERSON = [
    (re.compile(rf"{_SUBJECT}\s+{verb}\s+(?P<obj>{_PLACE})(?:\s+as\s+an?\s+(?P<job>[a-z][a-z ]*?))?$"), rel, kind)
    for verb, rel, kind in _VERBS
]
_SENTENCES = re.compile(r"(?<=[.!?;])\s+|\n+")


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
    if head in ("family", "friend", "work", "partner") and value and not value.isdigit():
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
    """Third-person relations in what the user said; "my <relation> <Name>" also links the user."""
    triples: list[Triple] = []
    for message in messages:
        if message.role != "user":
            continue
        for sentence in _SENTENCES.split(message.content):
            triples += _sentence(sentence.strip().rstrip(".!?;").strip())
    return triples


def _sentence(text: str) -> list[Triple]:
    for pattern, relation, kind in _THIRD_PERSON:
        found = pattern.match(text)
        if found is None or found["name"] in ("I", "We", "They", "He", "She", "It"):
            continue
        name = found["name"]
        triples = [
            Triple(
                source=name, source_type="person", relation=relation, destination=found["obj"], destination_type=kind
            )
        ]
        if found["job"]:
            triples.append(
                Triple(
                    source=name,
                    source_type="person",
                    relation="works_as",
                    destination=found["job"].strip(),
                    destination_type="job",
                )
            )
        if found["rel"]:
            triples.append(_mine(RELATIONS[found["rel"].lower()][1], name, "person", False))
        return triples
    return []


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
