"""Health: allergies, intolerances and conditions, and statements that retire them."""

from __future__ import annotations

import re

from engram.domain.models import MemoryBank
from engram.domain.steps import CandidateFact
from engram.rules.facts import HEALTH, Build, Match, Rule, make, regex_rule
from engram.rules.keys import object_key, singular
from engram.rules.vocab import CONDITION_ADJECTIVES, CONDITION_PHRASES, CONDITION_SUFFIXES, CONDITIONS
from engram.text.clauses import ADV, ANYMORE, DONT, IM, Clause, clean_object, split_items, third_person

_H = MemoryBank.HEALTH
_NOT_ALLERGENS = frozenset("it that this them you everything anything something".split())


def allergens(raw: str) -> tuple[list[str], bool] | None:
    obj, complete = clean_object(raw)
    items = [third_person(i) for i in split_items(obj)]
    if not items or any(i.lower() in _NOT_ALLERGENS or len(i.split()) > 4 for i in items):
        return None
    return items, complete


def allergy(allergen: str, text: str | None = None, negated: bool = False) -> CandidateFact:
    key = f"health:{singular(object_key(allergen))} allergy"
    if negated:
        return make(f"No longer allergic to {allergen}", key, allergen, _H, HEALTH, negated=True)
    return make(text or f"Allergic to {allergen}", key, allergen, _H, HEALTH)


def condition(raw: str) -> str | None:
    """A recognised condition ('asthma', 'a heart condition', 'celiac disease'), else None."""
    value = " ".join(raw.split())
    lower = value.lower()
    bare = re.sub(r"^(?:an?|the)\s+", "", lower)
    if lower in CONDITION_PHRASES or bare in CONDITIONS or bare.replace(" ", "-") in CONDITIONS:
        return value
    if bare.endswith(CONDITION_SUFFIXES) and len(bare.split()) <= 4:
        return value
    return None


def condition_fact(value: str, negated: bool = False) -> CandidateFact:
    key = f"health:{object_key(value)}"
    if negated:
        return make(f"No longer has {value}", key, value, _H, HEALTH, negated=True)
    return make(f"Has {value}", key, value, _H, HEALTH)


def _allergic(negated: bool = False) -> Build:
    def build(found: re.Match[str], clause: Clause) -> Match | None:
        got = allergens(found.group("o"))
        if got is None:
            return None
        return Match(tuple(allergy(a, negated=negated) for a in got[0]), got[1])

    return build


def _allergy_noun(found: re.Match[str], clause: Clause) -> Match | None:
    """'I have a severe peanut allergy' -> 'Has a peanut allergy'."""
    got = allergens(found.group("o"))
    if got is None or len(got[0]) != 1:
        return None
    allergen = got[0][0]
    plural = found.group("s").lower() == "ies"
    article = "an" if allergen[:1] in "aeiou" else "a"
    text = f"Has {allergen} allergies" if plural else f"Has {article} {allergen} allergy"
    return Match((allergy(allergen, text),), got[1])


def _intolerant(found: re.Match[str], clause: Clause) -> Match | None:
    what = found.group("o").lower()
    return Match((make(f"Is {what} intolerant", f"health:{what} intolerance", what, _H, HEALTH),))


def _adjective(found: re.Match[str], clause: Clause) -> Match | None:
    key, text = CONDITION_ADJECTIVES[" ".join(found.group("c").lower().split())]
    return Match((make(text, f"health:{key}", key, _H, HEALTH),))


def _conditions(negated: bool = False) -> Build:
    def build(found: re.Match[str], clause: Clause) -> Match | None:
        obj, complete = clean_object(found.group("o"))
        values = [condition(item) for item in split_items(obj)]
        if not values or any(v is None for v in values):
            return None
        return Match(tuple(condition_fact(v, negated) for v in values if v), complete)

    return build


_ADJECTIVES = "|".join(re.escape(a).replace(r"\ ", r"\s+") for a in sorted(CONDITION_ADJECTIVES, key=len, reverse=True))
_DEGREE = r"(?:(?:severely|very|mildly|deathly|highly|extremely|slightly|seriously|a\s+bit|a\s+little)\s+)?"
_HAVE = (
    r"(?:i\s+have|i'?ve\s+got|i\s+have\s+got|i\s+suffer\s+from|i'?m\s+suffering\s+from|i\s+live\s+with|"
    r"i\s+(?:was|have\s+been|'ve\s+been|got)\s+diagnosed\s+with)"
)

RULES: tuple[Rule, ...] = (
    regex_rule(
        rf"{IM}\s+{ADV}(?:no\s+longer|not)\s+{_DEGREE}allergic\s+to\s+(?P<o>.+?)(?:\s+{ANYMORE})?",
        _allergic(negated=True),
    ),
    regex_rule(rf"{IM}\s+{ADV}{_DEGREE}allergic\s+to\s+(?P<o>.+)", _allergic()),
    regex_rule(
        rf"{_HAVE}\s+(?:an?\s+)?(?:(?:severe|mild|serious|bad|slight|strong)\s+)?(?P<o>[\w\s'-]+?)\s+"
        r"allerg(?P<s>y|ies)",
        _allergy_noun,
    ),
    regex_rule(rf"{_HAVE}\s+(?:an?\s+)?(?:(?:severe|mild|serious)\s+)?allerg(?:y|ies)\s+to\s+(?P<o>.+)", _allergic()),
    regex_rule(rf"{IM}\s+{ADV}(?P<o>lactose|gluten|fructose|histamine|wheat|dairy)[- ]intolerant", _intolerant),
    regex_rule(
        rf"{_HAVE}\s+(?:an?\s+)?(?P<o>lactose|gluten|fructose|histamine|wheat|dairy)\s+intolerance", _intolerant
    ),
    regex_rule(rf"{IM}\s+{ADV}(?:an?\s+)?(?P<c>{_ADJECTIVES})", _adjective),
    regex_rule(
        rf"i\s+{ADV}(?:no\s+longer\s+have|{DONT}\s+have)\s+(?P<o>.+?)(?:\s+{ANYMORE})?", _conditions(negated=True)
    ),
    regex_rule(rf"{_HAVE}\s+(?P<o>.+)", _conditions()),
)
