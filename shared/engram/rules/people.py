"""People and pets: family members, partners, friends and animals, with their names and ages."""

from __future__ import annotations

import re

from engram.domain.models import MemoryBank
from engram.domain.steps import CandidateFact
from engram.rules.facts import FAMILY, PERSONAL, PET, Match, Rule, make, regex_rule
from engram.rules.identity import person_name
from engram.rules.keys import singular
from engram.rules.vocab import (
    ANIMALS,
    DEMONYMS,
    NUMBER_WORDS,
    PLURAL_RELATIONS,
    RELATIONS,
    SINGLE_RELATIONS,
)
from engram.text.clauses import ADV, IM, MAX_CLAUSE, Clause, split_items, strip_trailing
from engram.text.letters import CAPITAL, LETTER

_R = MemoryBank.RELATIONSHIPS
_COUNT_WORDS = {v: k for k, v in NUMBER_WORDS.items() if k not in ("a", "an", "one")}
_PARENTS = frozenset({"mother", "father"})
_WORDS = sorted(
    [*RELATIONS, *PLURAL_RELATIONS, *ANIMALS, *(f"{a}s" for a in ANIMALS), "puppies", "bunnies"],
    key=len,
    reverse=True,
)
_WHO_ALTS = "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in _WORDS)
_WHO = f"(?P<rel>{_WHO_ALTS})"
_MODIFIER = r"(?:(?:older|younger|little|big|baby|twin|eldest|oldest|youngest|middle|new|adopted|rescue)\s+)?"


def who(word: str) -> tuple[str, str] | None:
    """(key group, canonical relation) for a relation or an animal, singular or plural."""
    w = " ".join(word.lower().split())
    w = PLURAL_RELATIONS.get(w, w)
    if w in RELATIONS:
        return RELATIONS[w]
    for form in (w, singular(w), "puppy" if w == "puppies" else w, "bunny" if w == "bunnies" else w):
        if form in ANIMALS:
            return "pet", form
    return None


def named(group: str, rel: str, name: str) -> CandidateFact:
    if group == "pet":
        return make(f"Has a {rel} named {name}", f"pet:{rel}:{name}", name, _R, PET)
    importance = FAMILY if group == "family" else PERSONAL
    if rel in _PARENTS:
        return make(f"{rel}'s name is {name}", f"family:{rel}", name, _R, importance)
    if rel in SINGLE_RELATIONS:
        key = f"family:{rel}"
    else:
        key = f"{group}:{name}" if rel == group else f"{group}:{rel}:{name}"
    article = "an" if rel[:1] in "aeiou" else "a"
    return make(f"Has {article} {rel} named {name}", key, name, _R, importance)


def counted(group: str, rel: str, count: int, said: str) -> CandidateFact:
    article = "an" if rel[:1] in "aeiou" else "a"
    amount = f"{article} {rel}" if count == 1 else f"{_COUNT_WORDS.get(count, count)} {said}"
    prefix = "pet" if group == "pet" else group
    importance = PET if group == "pet" else FAMILY
    return make(f"Has {amount}", f"{prefix}:{rel}", str(count), _R, importance)


def _name_ok(raw: str, clause: Clause, explicit: bool) -> str | None:
    if clause.lowercase and not explicit:
        return None
    name = person_name(raw, clause, need_capital=not clause.lowercase)
    if name is None or any(w.lower() in DEMONYMS or who(w) for w in name.split()):
        return None
    return name


def _have(found: re.Match[str], clause: Clause) -> Match | None:
    """'I have a dog named Max', 'I have two kids, Leo and Mia', 'I have a sister'."""
    kind = who(found.group("rel"))
    if kind is None:
        return None
    raw_count = found.group("n").lower()
    count = int(raw_count) if raw_count.isdigit() else NUMBER_WORDS.get(raw_count, 0)
    names_raw = found.group("names")
    if not names_raw:
        return Match((counted(kind[0], kind[1], count, found.group("rel").lower()),))
    names = [_name_ok(n, clause, explicit=True) for n in split_items(strip_trailing(names_raw), names=True)]
    if not names or any(n is None for n in names):
        return None
    return Match(tuple(named(kind[0], kind[1], n) for n in names if n))


def _age(found: re.Match[str], clause: Clause) -> Match | None:
    kind = who(found.group("rel"))
    if kind is None:
        return None
    years = found.group("age")
    unit = (found.group("unit") or "years").lower()
    unit = "months" if unit.startswith("month") else "years"
    facts: list[CandidateFact] = []
    name = _name_ok(found.group("name"), clause, explicit=False) if found.group("name") else None
    if found.group("name") and name is None:
        return None
    if name:
        facts.append(named(kind[0], kind[1], name))
        text, key = f"{kind[1]} {name} is {years} {unit} old", f"{kind[0]}:{kind[1]}:{name}:age"
    else:
        text, key = f"Has a {kind[1]} who is {years} {unit} old", f"{kind[0]}:{kind[1]}:age"
    facts.append(make(text, key, f"{years} {unit}", _R, PET if kind[0] == "pet" else FAMILY))
    return Match(tuple(facts))


def _partner(text: str, rel: str) -> Rule:
    def rule(clause: Clause) -> Match | None:
        found = re.fullmatch(rf"(?i:{IM}\s+{ADV}{text})\s+(?P<n>.+)", clause.text)
        if not found:
            return None
        name = _name_ok(found.group("n"), clause, explicit=True)
        if name is None:
            return None
        phrase = {"spouse": "Is married to", "fiance": "Is engaged to"}.get(rel, "Is in a relationship with")
        return Match((make(f"{phrase} {name}", f"family:{rel}", name, _R, FAMILY),))

    return rule


# A name of any script, whole ("Chloé", not "Chlo"): a first word (lower case only counts in a message
# written all in lower case) and maybe a capitalised second ("Ana Lúcia").
_NAME_PART = rf"(?:{LETTER}|['\u2019-])+"
_NAME = rf"(?P<name>{LETTER}{_NAME_PART}(?:\s+{CAPITAL}{_NAME_PART})?)(?!\w)"
_MENTION = re.compile(
    rf"(?i:\bmy\s+{_MODIFIER})(?P<rel>(?i:{_WHO_ALTS}))"
    rf"(?P<link>(?i:'s\s+name\s+is|\s+is\s+(?:called|named)|\s+(?:named|called))|\s+is|,)?\s+{_NAME}(?P<tail>,?)"
)


def mentions(clause: Clause) -> Match | None:
    """'my sister Anna', "my wife's name is Maria", 'my husband, Tom, ...' anywhere in a clause."""
    facts: list[CandidateFact] = []
    covered = False
    if len(clause.text) > MAX_CLAUSE:
        return None
    for found in _MENTION.finditer(clause.text):
        kind = who(found.group("rel"))
        link = (found.group("link") or "").lower()
        explicit = any(w in link for w in ("name", "called", "named"))
        name = _name_ok(found.group("name"), clause, explicit) if kind else None
        if kind is None or name is None:
            continue
        facts.append(named(kind[0], kind[1], name))
        rest = clause.text[found.end() :]
        covered = covered or (found.start() == 0 and not strip_trailing(rest))
    return Match(tuple(facts), covered) if facts else None


_COUNT = r"(?P<n>a|an|one|two|three|four|five|six|\d)"
_HAVE = r"(?:i|we)\s+(?:have|'ve\s+got|have\s+got|got|adopted)"

RULES: tuple[Rule, ...] = (
    regex_rule(
        rf"{_HAVE}\s+(?:a\s+new\s+)?{_COUNT}\s+{_MODIFIER}{_WHO}(?:\s+(?:named|called)|,)?(?:\s+(?P<names>.+))?",
        _have,
    ),
    regex_rule(
        rf"my\s+{_MODIFIER}{_WHO}(?:\s+(?!(?:is|just|turned)\b)(?P<name>{LETTER}[\w'-]+))?\s+(?:is|just\s+turned|turned)\s+"
        r"(?P<age>\d{1,2})(?:\s+(?P<unit>years?|yrs?|months?)(?:\s+old)?|\s+y/?o)?",
        _age,
    ),
    _partner(r"married\s+to", "spouse"),
    _partner(r"engaged\s+to", "fiance"),
    _partner(r"(?:dating|seeing|in\s+a\s+relationship\s+with)", "partner"),
)
