"""Who the user is and where: name, nickname, nationality, age, home, origin, marital status."""

from __future__ import annotations

import re

from engram.domain.models import MemoryBank
from engram.rules.facts import HISTORY, LOCATION, NAME, PERSONAL, Build, Match, Rule, make, one, regex_rule
from engram.rules.vocab import CONDITION_ADJECTIVES, DEMONYMS, DIETS, FAITHS, NOT_NAMES, PLACES
from engram.text.clauses import ADV, IM, IVE, Clause, clean_object, has_capital, strip_trailing, title_case
from engram.text.letters import LETTER, is_capital

_P = MemoryBank.PERSONAL
_NAME_WORD = re.compile(rf"{LETTER}(?:{LETTER}|['\u2019.-])*")  # any script: "Łukasz", "Дарья"
_NAME_STOP = NOT_NAMES | {"is", "and", "or", "but", "too", "btw", "sir", "mine", "yours"}
_PLACE_STOP = frozenset("here there home work school it this that".split())


def person_name(raw: str, clause: Clause, need_capital: bool) -> str | None:
    """1-3 name-like words, capitalised unless the writer never uses capitals."""
    words = strip_trailing(raw).split()
    if not 1 <= len(words) <= 3:
        return None
    for word in words:
        if not _NAME_WORD.fullmatch(word) or word.lower() in _NAME_STOP:
            return None
        if need_capital and not clause.lowercase and not is_capital(word):
            return None
    return title_case(" ".join(words))


def _name(found: re.Match[str], clause: Clause) -> Match | None:
    name = person_name(found.group("n"), clause, need_capital=False)
    return one(make(f"Name is {name}", "name", name, _P, NAME)) if name else None


def _introduction(found: re.Match[str], clause: Clause) -> Match | None:
    """'I'm Alice' names the user only when the word is capitalised and not a state or nationality."""
    if clause.lowercase:
        return None
    words = found.group("n").split()
    if any(w.lower() in DEMONYMS or w.lower() in DIETS or w.lower() in CONDITION_ADJECTIVES for w in words):
        return None
    name = person_name(found.group("n"), clause, need_capital=True)
    return one(make(f"Name is {name}", "name", name, _P, NAME)) if name else None


def _nickname(text: str) -> Build:
    def build(found: re.Match[str], clause: Clause) -> Match | None:
        name = person_name(found.group("n"), clause, need_capital=True)
        if name is None or name.lower() in ("back", "later", "tomorrow", "anytime", "now", "maybe"):
            return None
        return one(make(text.format(name), "nickname", name, _P, NAME))

    return build


def _nationality(found: re.Match[str], clause: Clause) -> Match | None:
    word = found.group("d").lower()
    if word not in DEMONYMS:
        return None
    key = "religion" if word in FAITHS else "nationality"
    value = word.title()
    return one(make(f"Is {value}", key, value, _P, PERSONAL))


def place(raw: str, clause: Clause) -> tuple[str, bool] | None:
    """A place name: capitalised (or title-cased for an all-lowercase writer); 'an apartment' is not one."""
    value, complete = clean_object(raw, place=True)
    words = value.split()
    if not words or len(words) > 6 or value.lower() in _PLACE_STOP:
        return None
    if clause.lowercase:
        if words[0].lower() in ("a", "an", "my", "our", "some"):
            return None
        return title_case(value), complete
    return (value, complete) if has_capital(value) else None


def _lives(found: re.Match[str], clause: Clause) -> Match | None:
    got = place(found.group("p"), clause)
    if got is None:
        return None
    facts = [make(f"Lives in {got[0]}", "location", got[0], _P, LOCATION)]
    old = found.groupdict().get("old")
    if old:
        before = place(old, clause)
        if before is None:
            return None
        facts.append(
            make(f"Previously lived in {before[0]}", f"former_location:{before[0].lower()}", before[0], _P, HISTORY)
        )
    return Match(tuple(facts), got[1])


def _move(found: re.Match[str], clause: Clause) -> Match | None:
    """'I left London for Paris' is a move when one side is a well-known place."""
    old, new = strip_trailing(found.group("old")).lower(), strip_trailing(found.group("p")).lower()
    said_move = "move" in found.group(0).lower() or "live" in found.group(0).lower()
    if not (said_move or old in PLACES or new in PLACES):
        return None
    return _lives(found, clause)


def _origin(template: str, key: str) -> Build:
    def build(found: re.Match[str], clause: Clause) -> Match | None:
        got = place(found.group("p"), clause)
        if got is None:
            return None
        return one(make(template.format(got[0]), key, got[0], _P, PERSONAL), got[1])

    return build


def _born(found: re.Match[str], clause: Clause) -> Match | None:
    year = re.fullmatch(r"(?:in\s+)?((?:19|20)\d\d)", strip_trailing(found.group("p")), re.I)
    if year:
        return one(make(f"Was born in {year.group(1)}", "birth_year", year.group(1), _P, PERSONAL))
    return _origin("Was born in {}", "birthplace")(found, clause)


def _birthday(found: re.Match[str], clause: Clause) -> Match | None:
    day = strip_trailing(found.group("d"))
    if not re.search(r"\d", day) or len(day.split()) > 4:
        return None
    return one(make(f"Birthday is {day}", "birthday", day, _P, PERSONAL))


def _age(found: re.Match[str], clause: Clause) -> Match | None:
    years = int(found.group("n"))
    if not 1 <= years <= 120:
        return None
    return one(make(f"Is {years} years old", "age", str(years), _P, PERSONAL))


def _marital(found: re.Match[str], clause: Clause) -> Match | None:
    status = found.group("s").lower()
    return one(make(f"Is {status}", "marital_status", status, MemoryBank.RELATIONSHIPS, PERSONAL))


_WE = r"(?:i|we)"
_BEEN = rf"(?:{IM}|we'?re|we\s+are)"
_HAVE = rf"(?:{IVE}|we'?ve|we\s+have)"
_FIRST_NAMES = r"(?:full\s+|first\s+|real\s+|given\s+|legal\s+)?"
_AGE_UNIT = r"(?:\s+(?:years?|yrs?)(?:\s+old)?|\s*y/?o|\s+years\s+of\s+age)?"

RULES: tuple[Rule, ...] = (
    regex_rule(rf"my\s+{_FIRST_NAMES}name(?:'s|\s+is)\s+(?P<n>.+)", _name),
    regex_rule(r"(?:the\s+)?name'?s\s+(?P<n>.+)", _name),
    regex_rule(rf"{IM}\s+called\s+(?P<n>.+)", _name),
    regex_rule(r"(?:(?:you\s+can|please|just)\s+)*call\s+me\s+(?P<n>.+)", _nickname("Prefers to be called {}")),
    regex_rule(
        r"(?:people|everyone|everybody|most\s+people|(?:my\s+)?friends)\s+(?:usually\s+)?calls?\s+me\s+(?P<n>.+)",
        _nickname("Goes by {}"),
    ),
    regex_rule(r"i\s+(?:usually\s+)?go\s+by\s+(?P<n>.+)", _nickname("Goes by {}")),
    regex_rule(rf"{IM}\s+(?:a\s+)?(?P<d>{LETTER}+(?:-{LETTER}+)?)(?:\s+citizen)?", _nationality),
    regex_rule(rf"{IM}\s+(?P<n>{LETTER}[\w'-]*(?:\s+{LETTER}[\w'-]*)?)", _introduction),
    regex_rule(rf"{_WE}\s+{ADV}(?:moved|relocated)\s+from\s+(?P<old>.+?)\s+to\s+(?P<p>.+)", _lives),
    regex_rule(rf"{_WE}\s+{ADV}left\s+(?P<old>.+?)\s+(?:for|to\s+(?:move\s+to|live\s+in))\s+(?P<p>.+)", _move),
    regex_rule(rf"{_WE}\s+{ADV}(?:live|reside)\s+in\s+(?P<p>.+)", _lives),
    regex_rule(rf"{_BEEN}\s+{ADV}(?:living|residing|based|located|settled)\s+(?:in|out\s+of)\s+(?P<p>.+)", _lives),
    regex_rule(rf"{_HAVE}\s+{ADV}(?:been\s+living|lived)\s+in\s+(?P<p>.+)", _lives),
    regex_rule(rf"(?:{_WE}|{_HAVE})\s+{ADV}(?:moved|relocated)\s+(?:back\s+)?to\s+(?P<p>.+)", _lives),
    regex_rule(rf"(?:{_WE}|{_HAVE})\s+{ADV}settled\s+(?:down\s+)?in\s+(?P<p>.+)", _lives),
    regex_rule(r"(?:my\s+|our\s+)?home\s+(?:for\s+me\s+)?(?:is|is\s+now|now\s+is)\s+(?:in\s+)?(?P<p>.+)", _lives),
    regex_rule(rf"{_WE}\s+{ADV}call\s+(?P<p>.+?)\s+home", _lives),
    regex_rule(rf"{IM}\s+{ADV}(?:originally\s+)?from\s+(?P<p>.+)", _origin("Is from {}", "hometown")),
    regex_rule(rf"i\s+{ADV}(?:originally\s+)?come\s+from\s+(?P<p>.+)", _origin("Is from {}", "hometown")),
    regex_rule(
        rf"(?:i|{IVE})\s+{ADV}(?:grew\s+up|was\s+raised|been\s+raised)\s+in\s+(?P<p>.+)",
        _origin("Grew up in {}", "hometown"),
    ),
    regex_rule(
        r"i\s+was\s+born\s+and\s+(?:raised|bred)\s+in\s+(?P<p>.+)", _origin("Was born and raised in {}", "hometown")
    ),
    regex_rule(r"my\s+home\s?town\s+is\s+(?P<p>.+)", _origin("Hometown is {}", "hometown")),
    regex_rule(r"i\s+was\s+born\s+in\s+(?P<p>.+)", _born),
    regex_rule(r"(?:my\s+birthday\s+is|i\s+was\s+born)\s+on\s+(?P<d>.+)", _birthday),
    regex_rule(r"my\s+birthday\s+is\s+(?P<d>.+)", _birthday),
    regex_rule(rf"{IM}\s+(?P<n>\d{{1,3}}){_AGE_UNIT}", _age),
    regex_rule(rf"i\s+{ADV}turned\s+(?P<n>\d{{1,3}}){_AGE_UNIT}", _age),
    regex_rule(rf"{IM}\s+{ADV}(?P<s>married|single|divorced|engaged|widowed|separated)", _marital),
    regex_rule(rf"i\s+{ADV}got\s+(?P<s>married|divorced|engaged)", _marital),
)
