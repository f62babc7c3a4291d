"""Lifting the value of one clause once its aspect is known: a place, an organisation, a name, a job
title, an allergen, a diet. The aspect is decided by meaning elsewhere (state/aspects.py); these
are the text tools that find what it holds. Every pattern is anchored on a short literal cue and runs
over one bounded clause, so all of them take linear time. They return None rather than guess: a
clause without a clear value stays a kept message, never a wrong fact."""

from __future__ import annotations

import re

from engram.rules.vocab import ANIMALS, DEMONYMS, DIETS, NOT_NAMES, OCCUPATIONS, PLACES
from engram.text.clauses import MAX_CLAUSE
from engram.text.letters import CAPITAL, LETTER

# A capitalised name of one or more words, joined by the small words of place and company names
# ("Rio de Janeiro", "Stratford upon Avon", "Procter & Gamble"), in any script ("Łódź", "Θεσσαλονίκη").
# Each repetition starts with a space and a capital, so there is one way to match: linear.
_CONNECT = r"(?:de|da|do|dos|das|del|della|di|la|le|les|van|von|der|den|am|an|upon|on|of|y|&|und|et)"
_WORD = rf"{CAPITAL}[\w'\u2019.-]*"
_PROPER = rf"{_WORD}(?:\s+(?:{_CONNECT}\s+)?{_WORD})*"
_PROPER_RE = re.compile(_PROPER)
_PLACE_CUE = re.compile(rf"\b(?:in|to|from|near|outside|around|into)\s+(?:the\s+)?(?P<v>{_PROPER})")
_ORG_CUE = re.compile(
    rf"\b(?:at|for|with|joined|join|joining|by)\s+(?:the\s+)?(?P<v>{_PROPER})|(?P<s>{_PROPER})\s+(?:hired|took|offered)\b"
    rf"|\b(?:startup|company|firm|agency|studio|consultancy|lab|shop|business)\s+(?:called|named)\s+(?P<n>{_PROPER})"
)
_NAME_CUE = re.compile(
    rf"\b(?:called|named|name\s+is|name's|names\s+are)\s+(?P<v>{_PROPER})"
    rf"|\b(?:boyfriend|girlfriend|partner|wife|husband|fianc[eé]e?|spouse|hubby|missus|bf|gf|dog|cat|puppy|kitten"
    rf"|rabbit|bunny|hamster|parrot|pup|doggo|kitty)\s*,?\s+(?P<w>{_PROPER})"
)
_CALENDAR = frozenset(
    """
    january february march april may june july august september october november december jan feb mar apr
    jun jul aug sep sept oct nov dec monday tuesday wednesday thursday friday saturday sunday christmas easter
    xmas i i'm im i've ive i'd i'll ok okay lol omg tbh btw fyi the my our we he she they it this that
    """.split()
)
_LOWER_WORD = rf"{LETTER}[\w-]*"  # a word of any script
_ALLERGEN = re.compile(
    r"\b(?:allergic\s+to|allergy\s+to|allergies\s+to|intolerant\s+to|intolerance\s+to|react\s+badly\s+to"
    r"|can'?t\s+(?:eat|have|touch|go\s+near|stomach)|cannot\s+(?:eat|have|touch)|no\s+(?:eating|more))"
    rf"\s+(?:any\s+|anything\s+with\s+|the\s+)?(?P<v>{_LOWER_WORD}(?:\s+{_LOWER_WORD})?)",
    re.I,
)
_ALLERGEN_BEFORE = re.compile(
    rf"\b(?P<v>{_LOWER_WORD})\s+(?:allergy|allergies|intolerance)\b"
    rf"|\b(?P<w>{_LOWER_WORD})\s+(?:makes?|made|give|gives|gave|sends?|puts?)\s+me\s+(?:really\s+|so\s+|very\s+)?"
    r"(?:swell|sick|ill|break\s+out|itch|itchy|wheez|hives|into\s+anaphyla|throw\s+up|puke|come\s+out)",
    re.I,
)
_NOT_ALLERGENS = frozenset(
    """it that this them stuff anything something food a an the my me i so and or really btw lol tho though
    too now""".split()
)
_TITLE = re.compile(
    r"\b(?:work(?:ing)?\s+as|job\s+as|now\s+an?|became\s+an?|becoming\s+an?|i'?m\s+an?|i\s+am\s+an?|"
    r"promoted\s+to|new\s+job\s+as|gig\s+as|role\s+as|trained\s+as|qualified\s+as|"
    r"start(?:ed|ing)?\s+(?:work\s+|working\s+)?as|hired\s+as|taken\s+on\s+as)\s+(?:an?\s+)?"
    rf"(?P<v>{_LOWER_WORD}(?:\s+{_LOWER_WORD}){{0,2}})",
    re.I,
)
_DIET = re.compile(r"\b(?P<v>" + "|".join(sorted(DIETS, key=len, reverse=True)) + r"|plant[- ]based)\b", re.I)
_ANIMAL = re.compile(r"\b(?P<v>" + "|".join(sorted(ANIMALS, key=len, reverse=True)) + r")s?\b", re.I)
_KNOWN = "|".join(re.escape(p) for p in sorted(PLACES, key=len, reverse=True))
# A move that happened: "moved", not "moving to Lisbon in June" or "going to move" (a plan is no home yet).
_MOVED = r"(?:moved|relocated|transferred|made\s+the\s+move|came)"
_KNOWN_HOME = re.compile(
    rf"\b{_MOVED}\s+(?:back\s+|down\s+|up\s+|over\s+|out\s+)?"
    rf"(?:to|into)\s+(?P<v>{_KNOWN})\b|\b(?:in|near|outside|around)\s+(?P<w>{_KNOWN})\b",
    re.I,
)
_KNOWN_PLACE = re.compile(
    r"\b(?:in|to|from|near)\s+(?P<v>" + "|".join(re.escape(p) for p in sorted(PLACES, key=len, reverse=True)) + r")\b",
    re.I,
)


def _proper(value: str) -> str | None:
    """The name without calendar words or pronouns at its ends ("Lisbon In" is "Lisbon"); None if nothing is left."""
    words = value.split()
    while words and words[-1].lower().strip(".'") in _CALENDAR | NOT_NAMES:
        words.pop()
    while words and words[0].lower().strip(".'") in _CALENDAR | NOT_NAMES:
        words.pop(0)
    text = " ".join(words).rstrip(".'")
    return text if text and text.lower() not in DEMONYMS else None


def place(clause: str) -> str | None:
    """'the commute from my flat in Leeds' -> 'Leeds'; a known place in lower case too ('moved to lisbon')."""
    clause = clause[:MAX_CLAUSE]
    for found in _PLACE_CUE.finditer(clause):
        value = _proper(found.group("v"))
        if value:
            return value
    known = _KNOWN_PLACE.search(clause)
    return known.group("v").title() if known else None


_MOVED_TO = re.compile(
    rf"\b(?i:{_MOVED})(?i:\s+for\s+(?:work|a\s+job|my\s+job|uni|school|love))?\s+(?i:back\s+|down\s+|up\s+|over\s+|out\s+)?"
    rf"(?i:to|into)\s+(?:the\s+)?(?P<v>{_PROPER})"
)
_LIVE_IN = re.compile(rf"\b(?:in|near|outside|around)\s+(?:the\s+)?(?P<v>{_PROPER})")
# "in X" after a place that is not a home: "my climbing gym in Shoreditch", "the office in Leeds".
_NOT_A_HOME = re.compile(
    r"\b(?:gym|office|offices|hotel|hostel|airbnb|studio|school|college|campus|hospital|clinic|restaurant|"
    r"cafe|caf\u00e9|bar|pub|club|shop|store|branch|class|team|conference|lab|site|church|court|pitch|"
    r"market|warehouse|factory|plant|hq|headquarters|stadium|venue|wedding|meeting)s?\s+(?:\w+\s+)?$",
    re.I,
)
# A stay, a visit or a work week, not a home: "staying at a hotel in Tokyo for a conference", "in Berlin
# all week for work", "visiting my parents in Cork".
_STAY = re.compile(
    r"\b(?:stay|staying|stayed|hotel|hostel|airbnb|conference|convention|summit|trip|visit\w*|holiday|"
    r"vacation|business|all\s+week|this\s+week|next\s+week|this\s+weekend|for\s+the\s+(?:week|weekend|day|night)|"
    r"for\s+work|for\s+a\s+(?:few|couple|week|conference|wedding|meeting)|(?:few|couple\s+of)\s+days|"
    r"back\s+(?:on|next|home|tomorrow))\b",
    re.I,
)
_BEFORE = 40  # how far before "in X" the place it belongs to is looked for


def moved_to(clause: str) -> str | None:
    """The place of a move that happened: 'moved (back) to X', 'relocated to X'."""
    for found in _MOVED_TO.finditer(clause[:MAX_CLAUSE]):
        value = _proper(found.group("v"))
        if value:
            return value
    return None


def stays(text: str) -> bool:
    """Whether the text speaks of a stay, a visit or a work week somewhere (no home)."""
    return bool(_STAY.search(text[:MAX_CLAUSE]))


def home_place(clause: str) -> str | None:
    """Where someone lives: 'moved (back) to X' or 'in X' ('the commute from my flat in Leeds'); not
    'to X' alone ('the commute to Zurich' is not where they live), nor the place of a stay, a gym or an
    office ('staying at a hotel in Tokyo', 'my climbing gym in Shoreditch'), nor a planned move."""
    clause = clause[:MAX_CLAUSE]
    moved = moved_to(clause)
    if moved:
        return moved
    if stays(clause):
        return None
    for found in _LIVE_IN.finditer(clause):
        value = _proper(found.group("v"))
        if value and not _of_another_place(clause, found.start()):
            return value
    known = _KNOWN_HOME.search(clause)
    if known is None or (known.group("w") and _of_another_place(clause, known.start())):
        return None
    return (known.group("v") or known.group("w")).title()


def _of_another_place(clause: str, at: int) -> bool:
    """Whether the "in X" at `at` belongs to a place that is not a home ("my climbing gym in Shoreditch")."""
    return bool(_NOT_A_HOME.search(clause[max(0, at - _BEFORE) : at]))


def any_proper(clause: str) -> str | None:
    """The first capitalised name that is not the clause's first word ('doing the Japan thing' -> 'Japan')."""
    clause = clause[:MAX_CLAUSE]
    for found in _PROPER_RE.finditer(clause):
        if found.start() == 0:
            continue
        value = _proper(found.group(0))
        if value:
            return value
    return place(clause)


_TRAVEL = re.compile(
    r"\b(?:trip|travel\w*|fly|flying|flights?|heading|going|off\s+to|visit\w*|holiday|vacation|honeymoon|"
    r"booked|backpack\w*|road\s+trip|tour\w*|getaway|doing\s+the)\b",
    re.I,
)


def trip_place(clause: str) -> str | None:
    """Where a trip goes, when the clause speaks of travelling ('booked flights to Osaka')."""
    return any_proper(clause) if _TRAVEL.search(clause[:MAX_CLAUSE]) else None


def organisation(clause: str) -> str | None:
    """'started at Siemens last week' -> 'Siemens'; 'Deloitte hired me' -> 'Deloitte'."""
    clause = clause[:MAX_CLAUSE]
    for found in _ORG_CUE.finditer(clause):
        value = _proper(found.group("v") or found.group("s") or found.group("n"))
        if value and value.lower() not in PLACES:
            return value
    return None


def name(clause: str) -> str | None:
    """'another cat, called Miso' -> 'Miso'; 'my boyfriend Tom' -> 'Tom'."""
    clause = clause[:MAX_CLAUSE]
    for found in _NAME_CUE.finditer(clause):
        value = _proper(found.group("v") or found.group("w"))
        if value:
            return _before_possessive(value)
    return None


def _before_possessive(value: str) -> str:
    """The whole name, up to a possessive: "Ana Lúcia" stays whole, "Sofia's" (sister) is "Sofia"."""
    words: list[str] = []
    for word in value.split():
        if word[-2:] in ("'s", "\u2019s") and len(word) > 2:
            words.append(word[:-2])
            break
        words.append(word)
    return " ".join(words)


def allergen(clause: str) -> str | None:
    """'allergic to peanuts' / 'shellfish makes me swell up' / 'a cashew allergy' -> the allergen, lower case."""
    clause = clause[:MAX_CLAUSE]
    found = _ALLERGEN.search(clause)
    raw = found.group("v") if found else None
    if raw is None:
        before = _ALLERGEN_BEFORE.search(clause)
        raw = (before.group("v") or before.group("w")) if before else None
    if raw is None:
        return None
    words = [w for w in raw.lower().split() if w not in _NOT_ALLERGENS]
    if words and words[-1] in ("so", "and", "but", "or", "because"):
        words.pop()
    value = " ".join(words)
    return value or None


def job_title(clause: str) -> str | None:
    """'I'm a nurse now' -> 'nurse': a title whose head is a known occupation."""
    clause = clause[:MAX_CLAUSE]
    for found in _TITLE.finditer(clause):
        words = found.group("v").lower().split()
        for end in range(len(words), 0, -1):
            if words[end - 1] in OCCUPATIONS:
                return " ".join(words[:end])
    return None


def diet(clause: str) -> str | None:
    found = _DIET.search(clause[:MAX_CLAUSE])
    return found.group("v").lower().replace(" ", "-") if found else None


def animal(clause: str) -> str | None:
    found = _ANIMAL.search(clause[:MAX_CLAUSE])
    return found.group("v").lower() if found else None


# A product's name: capitalised words and model numbers ("Pixel 9", "Tesla Model 3", "iPhone 15 Pro").
_PRODUCT_WORD = rf"(?:{CAPITAL}|i(?={CAPITAL}))[\w'.+-]*"
_PRODUCT = re.compile(rf"(?<![\w'])(?P<v>{_PRODUCT_WORD}(?:\s+(?:{_PRODUCT_WORD}|\d[\w.+-]*))*)")
# Having it now: "got", "bought", "drive", "upgraded to" (not "looked at the iPhone 16 in the shop").
_OWNING = re.compile(
    r"\b(?:got|get|getting|bought|buy|have|has|own|owns|(?:my|our)\s+new|(?:my|our)\s+[\w-]+(?:\s+is|'s)|switched|upgraded|drive|drives|driving|use|uses|using|ordered|"
    r"picked\s+up|replaced|swapped|traded|arrived)\b",
    re.I,
)
# Of two names, the one a change goes to: "swapped my iPhone for a Pixel 9", "upgraded to a Pixel 9".
_TOWARDS = re.compile(r"\b(?:for|to|into|with)\s+(?:an?\s+|the\s+|my\s+)?(?:new\s+|shiny\s+)?$", re.I)
_AHEAD = 30  # how far before a name its "for a" / "to the" is looked for


def product(clause: str) -> str | None:
    """'got a new phone, a Pixel 9' -> 'Pixel 9'; 'swapped my iPhone for a Pixel 9' -> 'Pixel 9'."""
    clause = clause[:MAX_CLAUSE]
    if not _OWNING.search(clause):
        return None
    named = [
        (found.start(), value)
        for found in _PRODUCT.finditer(clause)
        if found.start() > 0
        and (value := _proper(found.group("v")))
        and value[:1].isalpha()  # "May 2023" is a date, not a product named "2023"
        and value.lower() not in PLACES
    ]
    if len(named) == 1:
        return named[0][1]
    towards = [v for at, v in named if _TOWARDS.search(clause[max(0, at - _AHEAD) : at])]
    return towards[0] if len(towards) == 1 else None  # two names and no clear new one: no reading


ROLES = (
    r"(?i:manager|line\s+manager|boss|team\s+lead|supervisor|doctor|gp|dentist|landlord|landlady|coach|"
    r"therapist|trainer|physio|tutor|accountant|mentor)"
)
_PERSON_CUE = re.compile(
    rf"\b{ROLES}(?:\s+(?i:is|'s|named|called)(?:\s+now)?|\s*,)?\s+(?P<v>{_PROPER})"
    rf"|(?P<w>{_PROPER})\s+(?i:is)\s+(?:(?i:now)\s+)?(?i:my|our)\s+(?:(?i:new)\s+)?{ROLES}\b",
)


def person(clause: str) -> str | None:
    """A person in a role: 'my new manager is Priya', 'Dr Okafor is my GP now', 'my landlord, Mr Reyes'."""
    clause = clause[:MAX_CLAUSE]
    for found in _PERSON_CUE.finditer(clause):
        value = _proper(found.group("v") or found.group("w"))
        if value:
            return _before_possessive(value)
    return None


_PROVIDER_CUE = re.compile(
    r"\b(?i:switched|switching|switch|moved|changed|gone|went|signed\s+up|now)"
    r"(?:\s+(?i:our|my|the)\s+[\w-]+(?:\s+[\w-]+)?)?\s+(?:(?i:over)\s+)?(?i:to|with)\s+"
    rf"(?P<v>{_PROPER})|\b(?i:with|from|through|via)\s+(?P<w>{_PROPER})"
)


def provider(clause: str) -> str | None:
    """Who a service is from: 'switched to Octopus for electricity', 'our broadband is with Virgin Media'."""
    clause = clause[:MAX_CLAUSE]
    for found in _PROVIDER_CUE.finditer(clause):
        value = _proper(found.group("v") or found.group("w"))
        if value and value.lower() not in PLACES:
            return value
    return None
