"""Tastes: likes, dislikes, favourites, diets, and statements that retire an old preference."""

from __future__ import annotations

import re

from engram.domain.models import MemoryBank
from engram.domain.steps import CandidateFact
from engram.rules.facts import DIET, PREFERENCE, Build, Match, Rule, make, regex_rule
from engram.rules.keys import object_key, singular
from engram.rules.vocab import DIETS
from engram.text.clauses import (
    ADV,
    ANYMORE,
    CANT,
    DONT,
    IM,
    IVE,
    Clause,
    clean_object,
    split_items,
    strip_trailing,
    third_person,
)
from engram.text.letters import LETTER

_I = MemoryBank.INTERESTS
_H = MemoryBank.HEALTH
_NOT_OBJECTS = frozenset(
    "it|that|this|them|him|her|you|those|these|both|everything|nothing|anything|something|one|all|"
    "it all|all of it|all of them|that one|this one|it here|it there|doing it".split("|")
)
_BAD_START = re.compile(
    r"^(?:you\b|your\b|it\s+when|it\s+if|how\b|what\b|when\b|the\s+way\b|"
    r"to\s+(?:think|say|believe|know|imagine|point\s+out|add|mention|ask|see|hear)\b)",
    re.I,
)
# Verb said -> (fact verb, sentiment).
_SENTIMENT = {
    "love": ("Loves", "love"),
    "adore": ("Loves", "love"),
    "like": ("Likes", "like"),
    "dig": ("Likes", "like"),
    "fancy": ("Likes", "like"),
    "enjoy": ("Enjoys", "like"),
    "hate": ("Hates", "hate"),
    "detest": ("Hates", "hate"),
    "loathe": ("Hates", "hate"),
    "despise": ("Hates", "hate"),
    "dislike": ("Dislikes", "dislike"),
}
# Verb of a retirement -> the "no longer" text.
_RETIRED = {
    "eat": "eats",
    "drink": "drinks",
    "play": "plays",
    "watch": "watches",
    "listen to": "listens to",
    "read": "reads",
    "do": "does",
}
_VERBS = r"(?P<v>like|love|enjoy|eat|drink|play|watch|listen\s+to|read|do)"
_ING = {
    "liking": "like",
    "loving": "love",
    "enjoying": "enjoy",
    "eating": "eat",
    "drinking": "drink",
    "playing": "play",
    "watching": "watch",
    "listening to": "listen to",
    "reading": "read",
    "doing": "do",
}


def objects(raw: str) -> tuple[list[str], bool] | None:
    """The things a preference is about, in third person; None when they are not things."""
    obj, complete = clean_object(raw)
    if not obj or obj.lower() in _NOT_OBJECTS or _BAD_START.match(obj):
        return None
    items = [third_person(item) for item in split_items(obj)]
    if not items or any(len(item.split()) > 7 or item.lower() in _NOT_OBJECTS for item in items):
        return None
    return items, complete


def preference(item: str, verb: str, sentiment: str) -> CandidateFact:
    return make(f"{verb} {item}", f"preference:{object_key(item)}", sentiment, _I, PREFERENCE)


def retired(item: str, verb: str) -> list[CandidateFact]:
    """'I don't eat meat anymore' retires the taste and records the diet."""
    verb = " ".join(verb.lower().split())
    said = _RETIRED.get(verb, "likes")
    facts = [make(f"No longer {said} {item}", f"preference:{object_key(item)}", None, _I, PREFERENCE, True)]
    if verb in ("eat", "drink"):
        facts.append(diet_fact(item, verb))
    return facts


def diet_fact(item: str, verb: str) -> CandidateFact:
    return make(f"Does not {verb} {item}", f"diet:{object_key(item)}", "avoids", _H, DIET)


def _sentiment(verb: str | None = None) -> Build:
    def build(found: re.Match[str], clause: Clause) -> Match | None:
        got = objects(found.group("o"))
        if got is None:
            return None
        said = verb or " ".join(found.group("v").lower().split())
        text, value = _SENTIMENT.get(said, ("Dislikes", "dislike"))
        if said.startswith(("can't", "cant", "cannot", "can not")):
            text, value = "Can't stand", "hate"
        return Match(tuple(preference(item, text, value) for item in got[0]), got[1])

    return build


def _phrase(text: str, value: str) -> Build:
    """'I'm a big fan of jazz' -> 'Is a big fan of jazz' (kept as said)."""

    def build(found: re.Match[str], clause: Clause) -> Match | None:
        got = objects(found.group("o"))
        if got is None:
            return None
        return Match(tuple(preference(item, text, value) for item in got[0]), got[1])

    return build


def _retire(found: re.Match[str], clause: Clause) -> Match | None:
    got = objects(found.group("o"))
    if got is None:
        return None
    rest = found.groupdict().get("rest") or ""
    verb = found.groupdict().get("v") or "like"
    verb = _ING.get(" ".join(verb.lower().split()), verb)
    facts = [fact for item in got[0] for fact in retired(item, verb)]
    return Match(tuple(facts), got[1] and not strip_trailing(rest))


def _not_into(found: re.Match[str], clause: Clause) -> Match | None:
    """'I'm not into X' is a dislike; with 'anymore' or 'no longer' it retires a liking."""
    if found.group("no") or found.group("anymore"):
        return _retire(found, clause)
    return _sentiment("dislike")(found, clause)


def _prefer(found: re.Match[str], clause: Clause) -> Match | None:
    better, complete = clean_object(found.group("o"))
    other = found.group("other")
    if not better or better.lower() in _NOT_OBJECTS:
        return None
    item = third_person(better)
    if other:
        worse, complete = clean_object(other)
        text = f"Prefers {item} over {third_person(worse)}"
    else:
        text = f"Prefers {item}"
    return Match((make(text, f"preference:{object_key(item)}", "prefer", _I, PREFERENCE),), complete)


def _favorite(found: re.Match[str], clause: Clause) -> Match | None:
    category = " ".join((found.group("c") or "").split())
    got = objects(found.group("o"))
    if got is None:
        return None
    items = got[0]
    if not category:
        return Match(tuple(preference(item, "Loves", "love") for item in items), got[1])
    if len(category.split()) > 3:
        return None
    value = ", ".join(items[:-1]) + (" and " if len(items) > 1 else "") + items[-1]
    verb = "are" if len(items) > 1 or found.group("are") else "is"
    text = f"Favorite {third_person(category)} {verb} {value}"
    key = f"favorite:{singular(object_key(category))}"
    return Match((make(text, key, value, _I, PREFERENCE),), got[1])


def _diet(found: re.Match[str], clause: Clause) -> Match | None:
    diet = found.group("d").lower()
    if diet not in DIETS:
        return None
    negated = bool(found.groupdict().get("no"))
    text = f"Is no longer {diet}" if negated else f"Is {diet}"
    return Match((make(text, "diet", diet, _H, DIET, negated),))


def _avoids(found: re.Match[str], clause: Clause) -> Match | None:
    got = objects(found.group("o"))
    if got is None:
        return None
    verb = found.group("v").lower()
    return Match(tuple(diet_fact(item, verb) for item in got[0]), got[1])


_FAV = r"(?:all[- ]time\s+)?(?:favou?rite|fave)"
_FAN = r"(?:a\s+)?(?:(?P<big>big|huge|massive|great|real)\s+)?fan\s+of"
_END = rf"\s+{ANYMORE}(?P<rest>(?:[,\s].*)?)"

RULES: tuple[Rule, ...] = (
    regex_rule(rf"i\s+{ADV}{DONT}\s+{ADV}{_VERBS}\s+(?P<o>.+?){_END}", _retire),
    regex_rule(rf"i\s+{ADV}no\s+longer\s+{ADV}{_VERBS}\s+(?P<o>.+)", _retire),
    regex_rule(
        rf"(?:i|{IVE})\s+{ADV}stopped\s+(?P<v>liking|loving|enjoying|eating|drinking|playing|watching|"
        r"listening\s+to|reading|doing)\s+(?P<o>.+)",
        _retire,
    ),
    regex_rule(
        rf"(?:i|{IVE})\s+{ADV}(?:gone\s+off|went\s+off|fallen\s+out\s+of\s+love\s+with|lost\s+interest\s+in|"
        r"grown\s+out\s+of|grew\s+out\s+of|got(?:ten)?\s+(?:tired|bored|sick)\s+of)\s+(?P<o>.+)",
        _retire,
    ),
    regex_rule(
        rf"{IM}\s+{ADV}(?:not|(?P<no>no\s+longer))\s+{ADV}(?:into|{_FAN}|keen\s+on|fond\s+of|"
        rf"interested\s+in)\s+(?P<o>.+?)(?P<anymore>{_END})?",
        _not_into,
    ),
    regex_rule(rf"{IM}\s+{ADV}(?P<no>not|no\s+longer)\s+(?:an?\s+)?(?P<d>{LETTER}+)(?:\s+{ANYMORE})?", _diet),
    regex_rule(rf"{IM}\s+{ADV}(?:an?\s+)?(?P<d>{LETTER}+)", _diet),
    regex_rule(rf"i\s+{ADV}{DONT}\s+{ADV}(?P<v>eat|drink)\s+(?P<o>.+)", _avoids),
    regex_rule(
        rf"i\s+{ADV}(?P<v>hate|dislike|detest|loathe|despise|{CANT}\s+stand|{CANT}\s+bear|"
        rf"{DONT}\s+{ADV}(?:like|enjoy|care\s+for|love))\s+(?P<o>.+)",
        _sentiment(),
    ),
    regex_rule(rf"i\s+{ADV}(?P<v>love|adore|like|enjoy|dig|fancy)\s+(?P<o>.+)", _sentiment()),
    # Idioms of liking and disliking.
    regex_rule(
        r"(?:for\s+me\s*,?\s+)?nothing\s+(?:beats|compares\s+to|tops)\s+(?P<o>.+?)(?:\s+for\s+me)?", _sentiment("love")
    ),
    regex_rule(rf"i\s+{ADV}{CANT}\s+(?:get\s+enough\s+of|live\s+without|resist)\s+(?P<o>.+)", _sentiment("love")),
    regex_rule(rf"{IM}\s+{ADV}(?:a\s+)?(?:sucker|huge\s+sucker)\s+for\s+(?P<o>.+)", _sentiment("love")),
    regex_rule(
        rf"i\s+{ADV}(?:am\s+|'m\s+)?(?:never|not)\s+(?:going\s+to\s+)?(?:touch|eat)\s+(?P<o>.+?)\s+again",
        _sentiment("hate"),
    ),
    regex_rule(
        r"(?P<o>[\w' -]+?)\s+(?:is|are)\s+(?:really\s+|just\s+)?(?:not\s+my\s+thing|not\s+for\s+me|the\s+worst)",
        _sentiment("dislike"),
    ),
    regex_rule(
        r"(?P<o>[\w' -]+?)\s+(?:is|are)\s+(?:really\s+|totally\s+)?my\s+(?:jam|thing|happy\s+place|guilty\s+pleasure)",
        _sentiment("love"),
    ),
    regex_rule(
        rf"{IM}\s+{ADV}(?:a\s+)?(?:big|huge|massive|great|real)\s+fan\s+of\s+(?P<o>.+)",
        _phrase("Is a big fan of", "love"),
    ),
    regex_rule(rf"{IM}\s+{ADV}(?:a\s+)?fan\s+of\s+(?P<o>.+)", _phrase("Is a fan of", "like")),
    regex_rule(rf"{IM}\s+{ADV}into\s+(?P<o>.+)", _phrase("Is into", "like")),
    regex_rule(
        rf"{IM}\s+{ADV}(?P<how>passionate\s+about|obsessed\s+with|crazy\s+about|mad\s+about|"
        r"nuts\s+about)\s+(?P<o>.+)",
        _sentiment("love"),
    ),
    regex_rule(rf"{IM}\s+{ADV}(?:keen\s+on|fond\s+of)\s+(?P<o>.+)", _sentiment("like")),
    regex_rule(
        rf"i\s+{ADV}(?:much\s+)?prefer\s+(?P<o>.+?)(?:\s+(?:over|to|rather\s+than|instead\s+of)\s+"
        r"(?P<other>.+))?",
        _prefer,
    ),
    regex_rule(rf"my\s+{_FAV}\s+(?P<c>[\w\s'-]{{1,30}}?)\s+(?:is|(?P<are>are))\s+(?P<o>.+)", _favorite),
    regex_rule(rf"(?P<o>.+?)\s+(?:is|(?P<are>are))\s+my\s+{_FAV}(?:\s+(?P<c>[\w\s'-]{{1,30}}))?", _favorite),
    regex_rule(rf"(?P<o>.+?)\s+(?:is|are)\s+my\s+least\s+{_FAV}(?:\s+[\w\s'-]{{1,30}})?", _sentiment("dislike")),
)
