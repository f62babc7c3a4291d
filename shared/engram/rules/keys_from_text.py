"""Keys for memories that have none: 'Lives in Berlin' -> ('location', 'Berlin').

Memories written by the LLM path, or before keys existed, carry only text. The reconciler reads
them with these patterns, which mirror the texts the offline extractor writes (so its own facts
round-trip) and the usual mem0 phrasings ("User lives in ...").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from engram.domain.steps import CandidateFact
from engram.rules import health, people, work
from engram.rules import preferences as prefs
from engram.rules.keys import object_key, singular
from engram.rules.reminders import reminder
from engram.rules.vocab import DEMONYMS, DIETS, FAITHS
from engram.text.clauses import Clause, clean_object, split_items


@dataclass(frozen=True)
class Keyed:
    key: str
    value: str | None
    negated: bool = False


_Read = Callable[[re.Match[str]], Keyed | None]
_CLAUSE = Clause("")


def _from(fact: CandidateFact | None) -> Keyed | None:
    return Keyed(fact.fact_key, fact.fact_value, fact.negated) if fact and fact.fact_key else None


def _clean(raw: str, place: bool = False) -> str | None:
    """A value only when it is the whole phrase: 'Berlin with his wife' is not a location."""
    value, complete = clean_object(raw, place)
    return value if value and complete and len(value.split()) <= 6 else None


def _simple(key: str, place: bool = False) -> _Read:
    def read(found: re.Match[str]) -> Keyed | None:
        value = _clean(found.group("v"), place)
        return Keyed(key, value) if value else None

    return read


def _preference(sentiment: str, negated: bool = False) -> _Read:
    def read(found: re.Match[str]) -> Keyed | None:
        value = _clean(found.group("v"))
        if not value:
            return None
        return Keyed(f"preference:{object_key(value)}", None if negated else sentiment, negated)

    return read


def _employer(negated: bool = False, key: str = "employer") -> _Read:
    def read(found: re.Match[str]) -> Keyed | None:
        org = work.org_name(found.group("v"), _CLAUSE)
        return Keyed(key, org[0], negated) if org and org[1] else None

    return read


def _former(prefix: str) -> _Read:
    def read(found: re.Match[str]) -> Keyed | None:
        value = _clean(found.group("v"), place=True)
        return Keyed(f"{prefix}:{value.lower()}", value) if value else None

    return read


def _title(any_title: bool) -> _Read:
    def read(found: re.Match[str]) -> Keyed | None:
        title = work.job_title(found.group("v"), any_title)
        return _from(work.title_fact(title)) if title else None

    return read


def _allergy(negated: bool = False) -> _Read:
    def read(found: re.Match[str]) -> Keyed | None:
        value = _clean(found.group("v"))
        return _from(health.allergy(value, negated=negated)) if value else None

    return read


def _condition(negated: bool = False) -> _Read:
    def read(found: re.Match[str]) -> Keyed | None:
        value = health.condition(found.group("v"))
        return _from(health.condition_fact(value, negated)) if value else None

    return read


def _named(found: re.Match[str]) -> Keyed | None:
    kind = people.who(found.group("rel"))
    return _from(people.named(kind[0], kind[1], found.group("n"))) if kind else None


def _counted(found: re.Match[str]) -> Keyed | None:
    kind = people.who(found.group("rel"))
    return Keyed(f"{kind[0]}:{kind[1]}", "1") if kind else None


def _favorite(found: re.Match[str]) -> Keyed | None:
    return Keyed(f"favorite:{singular(object_key(found.group('c')))}", found.group("v").strip())


def _demonym(found: re.Match[str]) -> Keyed | None:
    word = found.group("v").lower()
    if word in DIETS:
        return Keyed("diet", word)
    if word in DEMONYMS:
        return Keyed("religion" if word in FAITHS else "nationality", word.title())
    return None


def _reminder(negated: bool) -> _Read:
    def read(found: re.Match[str]) -> Keyed | None:
        return _from(reminder(found.group("v").strip(), negated))

    return read


_V = r"(?P<v>.+)"
_LIKE = r"(?:loves|adores|really\s+loves|is\s+passionate\s+about|is\s+obsessed\s+with|is\s+a\s+big\s+fan\s+of)"
_ENJOY = r"(?:likes|really\s+likes|enjoys|is\s+into|is\s+a\s+fan\s+of|is\s+fond\s+of|is\s+keen\s+on)"
_TEXT_RULES: tuple[tuple[str, _Read], ...] = (
    (rf"(?:user'?s\s+)?name\s+is\s+{_V}", _simple("name")),
    (rf"(?:prefers\s+to\s+be\s+called|goes\s+by)\s+{_V}", _simple("nickname")),
    (
        rf"(?:lives|is\s+living|resides|currently\s+lives|is\s+based|is\s+located)\s+in\s+{_V}",
        _simple("location", place=True),
    ),
    (rf"(?:has\s+)?(?:moved|relocated)\s+to\s+{_V}", _simple("location", place=True)),
    (rf"(?:is|comes)\s+(?:originally\s+)?from\s+{_V}", _simple("hometown", place=True)),
    (rf"(?:grew\s+up\s+in|was\s+born\s+and\s+raised\s+in|hometown\s+is)\s+{_V}", _simple("hometown", place=True)),
    (r"was\s+born\s+in\s+(?P<v>\d{4})", _simple("birth_year")),
    (rf"was\s+born\s+in\s+{_V}", _simple("birthplace", place=True)),
    (r"is\s+(?P<v>\d{1,3})\s+years\s+old", _simple("age")),
    (rf"(?:works|is\s+working|currently\s+works|is\s+employed)\s+(?:at|for|by)\s+{_V}", _employer()),
    (rf"no\s+longer\s+works\s+(?:at|for)\s+{_V}", _employer(negated=True)),
    (rf"previously\s+worked\s+(?:at|for)\s+{_V}", _former("former_employer")),
    (rf"previously\s+lived\s+in\s+{_V}", _former("former_location")),
    (rf"studies\s+at\s+{_V}", _employer(key="school")),
    (r"is\s+a\s+student", lambda m: Keyed("job_title", "student")),
    (rf"birthday\s+is\s+{_V}", _simple("birthday")),
    (
        rf"is\s+(?P<how>married|engaged)\s+to\s+{_V}",
        lambda m: Keyed("family:spouse" if m.group("how").lower() == "married" else "family:fiance", m.group("v")),
    ),
    (rf"is\s+in\s+a\s+relationship\s+with\s+{_V}", lambda m: Keyed("family:partner", m.group("v"))),
    (r"is\s+self-employed", lambda m: Keyed("employer", "self-employed")),
    (r"is\s+retired", lambda m: Keyed("job_title", "retired")),
    (rf"(?:works|is\s+working)\s+as\s+(?:an?\s+)?{_V}", _title(True)),
    (rf"is\s+(?:an?\s+){_V}", _title(False)),
    (r"is\s+(?P<v>married|single|divorced|engaged|widowed|separated)", _simple("marital_status")),
    (
        rf"no\s+longer\s+(?:likes|loves|enjoys|eats|drinks|plays|watches|listens\s+to|reads|does)\s+{_V}",
        _preference("", negated=True),
    ),
    (rf"{_LIKE}\s+{_V}", _preference("love")),
    (rf"{_ENJOY}\s+{_V}", _preference("like")),
    (rf"(?:dislikes|does\s+not\s+like|doesn'?t\s+like)\s+{_V}", _preference("dislike")),
    (rf"(?:hates|can'?t\s+stand|cannot\s+stand|detests)\s+{_V}", _preference("hate")),
    (r"prefers\s+(?P<v>.+?)(?:\s+(?:over|to)\s+.+)?", _preference("prefer")),
    (r"favou?rite\s+(?P<c>[\w\s'-]{1,30}?)\s+(?:is|are)\s+(?P<v>.+)", _favorite),
    (rf"no\s+longer\s+allergic\s+to\s+{_V}", _allergy(negated=True)),
    (rf"(?:is\s+)?allergic\s+to\s+{_V}", _allergy()),
    (r"has\s+(?:an?\s+)?(?P<v>[\w\s'-]+?)\s+allerg(?:y|ies)", _allergy()),
    (r"is\s+(?P<v>\w+)\s+intolerant", lambda m: Keyed(f"health:{m.group('v').lower()} intolerance", m.group("v"))),
    (
        rf"does\s+not\s+(?P<verb>eat|drink)\s+{_V}",
        lambda m: _from(prefs.diet_fact(m.group("v").strip(), m.group("verb").lower())),
    ),
    (r"is\s+no\s+longer\s+(?P<v>\w+)", lambda m: Keyed("diet", m.group("v").lower(), True)),
    (r"is\s+(?P<v>[\w-]+)", _demonym),
    (r"has\s+an?\s+(?P<rel>\w+(?:\s+\w+)?)\s+named\s+(?P<n>[\w'-]+)", _named),
    (r"(?P<rel>mother|father)'s\s+name\s+is\s+(?P<n>[\w'-]+)", _named),
    (r"has\s+an?\s+(?P<rel>\w+(?:\s+\w+)?)", _counted),
    (rf"no\s+longer\s+has\s+{_V}", _condition(negated=True)),
    (rf"has\s+{_V}", _condition()),
    (rf"cancelled\s+reminder:\s*{_V}", _reminder(True)),
    (rf"reminder:\s*{_V}", _reminder(False)),
)
_COMPILED = tuple((re.compile(p, re.IGNORECASE), read) for p, read in _TEXT_RULES)
_SUBJECT = re.compile(r"^(?:the\s+)?user(?:'s)?\s+(?=\w)", re.IGNORECASE)


def infer_key(text: str) -> Keyed | None:
    """The key a fact's text implies, or None when the text says something else or more."""
    body = _SUBJECT.sub("", " ".join(text.split())).rstrip(".! ")
    for pattern, read in _COMPILED:
        found = pattern.fullmatch(body)
        if found:
            keyed = read(found)
            if keyed is not None:
                return keyed
    return None


_PREF_PARTS = re.compile(rf"(?P<verb>{_LIKE}|{_ENJOY}|dislikes|hates)\s+(?P<o>.+)", re.IGNORECASE)


def preference_items(text: str) -> tuple[str, list[str]] | None:
    """'Loves pizza and sushi' -> ('Loves', ['pizza', 'sushi']), so one item can be retired."""
    found = _PREF_PARTS.fullmatch(_SUBJECT.sub("", " ".join(text.split())).rstrip(".! "))
    if not found:
        return None
    return found.group("verb"), split_items(found.group("o"))
