"""Question intent for fact-level ranking: "Where does Alice live?" wants the location fact.

Short key/value facts ("Name is Alice", "Lives in Berlin") give text search and embeddings little to
go on, and a fact containing the user's name matches every question that names them. A question's
wording says which kind of fact answers it (where -> a place, remind -> a reminder, like -> a
preference); the keys the extractor gives facts say which kind each fact is. Facts of the wanted
kinds are lifted by a fixed amount, so among the hits they come first without hiding the rest;
episodes (messages kept as said) are never lifted, so a current fact outranks an old remark.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from engram.domain.models import Fact

# A wanted fact closes this share of its distance to 1: order among lifted facts is kept, scores stay
# in [0, 1], and "Lives in Berlin" at 0.71 (-> 0.93) passes "Name is Alice" at 0.82.
LIFT = 0.75


@dataclass(frozen=True)
class Intent:
    pattern: re.Pattern[str]
    families: frozenset[str]  # key families (the part before the first ':') that answer it


def _intent(pattern: str, *families: str) -> Intent:
    return Intent(re.compile(pattern, re.IGNORECASE), frozenset(families))


# Tried in order; every matching intent adds its families (one question can want two kinds).
INTENTS: tuple[Intent, ...] = (
    _intent(r"\bremind|\bto[- ]?do\b|\bnot\s+forget\b|\bsupposed\s+to\b|\bneed\s+to\s+do\b", "reminder"),
    _intent(r"\ballerg|\bhealth\b|\bcondition\b|\bmedic|\bintoleran|\bsuffer|\bdiagnos|\billness\b", "health"),
    _intent(r"\b(?:diet|vegan|vegetarian|eat\s+meat)\b", "diet"),
    _intent(r"\bwhere\b.*\b(?:live|living|based|reside|home|stay)|\b(?:lives?|living)\s+where\b|\bcity\b", "location"),
    _intent(r"\bwhere\b.*\b(?:from|grow|grew|raised|born)\b|\bhome\s?town\b|\borigin", "hometown", "birthplace"),
    _intent(r"\bwhere\b.*\b(?:live|lived)\b.*\bbefore\b|\bused\s+to\s+live\b", "former_location"),
    _intent(
        r"\bwhere\b.*\bwork|\bemploy|\bcompany\b|\bemployer\b|\bwho\b.*\bwork\s+for\b|\bworks?\s+at\b",
        "employer",
    ),
    _intent(
        r"\bjob\b|\boccupation\b|\bprofession\b|\bfor\s+a\s+living\b|\bwork\s+as\b|\bposition\b|\brole\b",
        "job_title",
    ),
    _intent(r"\bused\s+to\s+work\b|\bprevious(?:ly)?\b.*\bwork|\bformer\b.*\b(?:job|employer)", "former_employer"),
    _intent(
        r"\bstud(?:y|ies|ying)\b|\bschool\b|\buniversity\b|\bcollege\b|\bmajor\b|\bdegree\b", "school", "field_of_study"
    ),
    _intent(
        r"\b(?:like|likes|love|loves|enjoy|enjoys|into|fan|favou?rite|prefer|prefers|hate|hates|dislike|dislikes|"
        r"stand|feel\s+about|think\s+(?:of|about)|taste|hobby|hobbies|fun)\b",
        "preference",
        "favorite",
    ),
    _intent(r"\bfavou?rite\b", "favorite"),
    _intent(
        r"\b(?:sister|brother|mother|mom|mum|father|dad|wife|husband|partner|son|daughter|kids?|children|"
        r"parents?|family|grand\w+|aunt|uncle|cousin|niece|nephew|sibling|siblings|spouse|girlfriend|boyfriend)\b",
        "family",
    ),
    _intent(
        r"\b(?:friend|friends|colleague|colleagues|coworker|boss|neighbou?r|mentor|roommate)\b", "friend", "colleague"
    ),
    _intent(r"\b(?:pet|pets|dog|dogs|cat|cats|puppy|kitten|animal|animals|bird|fish|hamster|rabbit|horse)\b", "pet"),
    _intent(r"\bhow\s+old\b|\bage\b|\bborn\s+in\s+what\s+year\b|\bwhat\s+year\b.*\bborn\b", "age", "birth_year"),
    _intent(r"\bbirthday\b|\bwhen\b.*\bborn\b", "birthday", "birth_year"),
    _intent(r"\bnickname\b|\bcalled\b|\bgo(?:es)?\s+by\b|\bcall\s+(?:her|him|them|me)\b", "nickname", "name"),
    _intent(r"\bname\b|\bwho\s+(?:is|am)\s+(?:she|he|they|i|the\s+user)\b", "name"),
    _intent(r"\bnationality\b|\bcitizen\b|\breligio", "nationality", "religion"),
    _intent(r"\bmarried\b|\bsingle\b|\bdivorced\b|\bengaged\b|\bmarital\b|\brelationship\s+status\b", "marital_status"),
)


_NAMES = frozenset({"name", "nickname"})
_OTHER_PEOPLE = frozenset({"family", "friend", "colleague", "pet"})


def wanted_families(query: str) -> frozenset[str]:
    """The key families a question asks about (empty when its wording names none)."""
    wanted: set[str] = set()
    for intent in INTENTS:
        if intent.pattern.search(query):
            wanted |= intent.families
    if wanted & _OTHER_PEOPLE:  # "the name of her sister", "what is her dog called": not the user's name
        wanted -= _NAMES
    return frozenset(wanted)


_NEGATIVE_QUERY = re.compile(r"\b(?:hate|hates|dislike|dislikes|stand|avoid|avoids|not\s+like|doesn'?t\s+like)\b", re.I)
_NEGATIVE_FACT = re.compile(
    r"^(?:dislikes|hates|can'?t\s+stand|cannot\s+stand|doesn'?t\s+like|avoids|is\s+not\s+a\s+fan)\b", re.I
)
_WORD = re.compile(r"[^\W_]+")


def _family(fact: Fact) -> str | None:
    return fact.fact_key.split(":", 1)[0].lower() if fact.fact_key and fact.kind == "fact" else None


def _answers(fact: Fact, family: str | None, wanted: frozenset[str], negative: bool) -> bool:
    if family not in wanted:
        return False
    if family == "preference":  # "What does she like?" is not answered by a dislike, nor the reverse
        return bool(_NEGATIVE_FACT.match(fact.text)) == negative
    return True


def _names_the_asker_knows(fact: Fact, family: str | None, wanted: frozenset[str], words: set[str]) -> bool:
    """A name fact whose name the question already uses ("Where does Alice live?") answers nothing."""
    if family not in _NAMES or family in wanted or not fact.fact_value:
        return False
    return set(_WORD.findall(fact.fact_value.lower())) <= words


def rerank(query: str, hits: Sequence[tuple[Fact, float]]) -> list[tuple[Fact, float]]:
    """Hits re-ordered: facts of the wanted kinds lifted, the user's own name fact set back when the
    question names the user but does not ask for the name."""
    wanted = wanted_families(query)
    negative = bool(_NEGATIVE_QUERY.search(query))
    words = set(_WORD.findall(query.lower()))
    ranked: list[tuple[Fact, float]] = []
    for fact, score in hits:
        family = _family(fact)
        if _answers(fact, family, wanted, negative):
            score = 1.0 - (1.0 - score) * (1.0 - LIFT)
        elif _names_the_asker_knows(fact, family, wanted, words):
            score *= 1.0 - LIFT
        ranked.append((fact, score))
    return sorted(ranked, key=lambda hit: -hit[1])
