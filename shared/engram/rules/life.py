"""Life beyond identity: job changes and promotions, trips and plans with their dates, routines,
possessions and education."""

from __future__ import annotations

import re

from engram.domain.models import MemoryBank
from engram.rules.dates import PAST, WHEN, resolve, resolve_past
from engram.rules.facts import PERSONAL, PREFERENCE, WORK, Match, Rule, make, one, regex_rule
from engram.rules.keys import object_key
from engram.rules.work import employer_fact, job_title, title_fact
from engram.text.clauses import ADV, IM, IVE, Clause, clean_object, has_capital, strip_trailing, third_person

_I = rf"(?:i|{IVE})"
_CALLED = re.compile(r"^(?:an?|the)\s+.+?\s+(?:called|named)\s+(?P<n>.+)$", re.I)
PLAN = 0.6
_GENERIC_OLD = re.compile(r"(?:the|a|an|my)\s", re.I)


def _org(raw: str, clause: Clause) -> str | None:
    """'a design studio called Fernweh' -> 'Fernweh'; 'Nokia' -> 'Nokia'; 'a bank' stays 'a bank'."""
    value = strip_trailing(raw)
    named = _CALLED.match(value)
    if named:
        value = named.group("n")
    words = value.split()
    if not words or len(words) > 5:
        return None
    if words[0].lower() in ("a", "an", "the"):
        return value if len(words) > 1 else None
    return value if has_capital(value) or clause.lowercase else None


def _joined(found: re.Match[str], clause: Clause) -> Match | None:
    """'I left the bank and joined a design studio called Fernweh as a UX lead': the new employer
    (and title) replace the old ones; the reconciler supersedes by key."""
    if "old" in found.groupdict() and not _GENERIC_OLD.match(found.group("old")):
        return None  # a named old employer is the work rules' job change (it also keeps the old name)
    org = _org(found.group("org"), clause)
    if org is None:
        return None
    facts = [employer_fact(org)]
    if found.group("title"):
        title = job_title(found.group("title"), any_title=True)
        if title is None:
            return None
        facts.append(title_fact(title))
    return Match(tuple(facts))


def _promoted(found: re.Match[str], clause: Clause) -> Match | None:
    title = job_title(found.group("title"), any_title=True)
    return one(title_fact(title)) if title else None


def _when(found: re.Match[str], clause: Clause) -> str:
    phrase = found.groupdict().get("when")
    return f" {resolve(phrase, clause.at)}" if phrase and clause.at else (f" {phrase.lower()}" if phrase else "")


def _past_event(found: re.Match[str], clause: Clause) -> Match | None:
    what, _ = clean_object(found.group("e"))
    if not what or len(what.split()) > 6 or clause.at is None:
        return None
    when = resolve_past(found.group("when"), clause.at)
    verb = {"had": "Had", "attended": "Attended", "visited": "Visited"}.get(found.group("v").lower(), "Went to")
    what = third_person(what)
    # Each occasion is its own memory: a class last week does not replace the one a month before.
    return one(make(f"{verb} {what} {when}", f"event:{object_key(what)}:{when}", what, MemoryBank.EVENTS, PLAN))


def _trip(found: re.Match[str], clause: Clause) -> Match | None:
    place = strip_trailing(found.group("p"))
    if not (has_capital(place) or clause.lowercase) or len(place.split()) > 4:
        return None
    why = found.groupdict().get("why") or found.groupdict().get("why2")
    purpose = f" for {third_person(strip_trailing(why))}" if why else ""
    text = f"Is travelling to {place}{purpose}{_when(found, clause)}"
    return one(make(text, f"trip:{place.lower()}", place, MemoryBank.EVENTS, PLAN))


def _event(found: re.Match[str], clause: Clause) -> Match | None:
    what, _ = clean_object(found.group("e"))
    if not what or len(what.split()) > 6:
        return None
    what = third_person(what)
    text = f"Has {what}{_when(found, clause)}"
    return one(make(text, f"event:{object_key(what)}", what, MemoryBank.EVENTS, PLAN))


def _routine(found: re.Match[str], clause: Clause) -> Match | None:
    act = third_person(" ".join(found.group("a").split()))
    verb, _, rest = act.partition(" ")
    verb = {"go": "Goes", "do": "Does", "play": "Plays"}.get(verb.lower(), verb.capitalize() + "s")
    done = f"{verb} {rest}".strip()
    text = f"{done} {found.group('f').lower()}"
    return one(make(text, f"routine:{object_key(act)}", found.group("f").lower(), MemoryBank.PERSONAL, PREFERENCE))


def _owns(found: re.Match[str], clause: Clause) -> Match | None:
    thing, complete = clean_object(found.group("o"))
    if not thing or len(thing.split()) > 6:
        return None
    thing = third_person(thing)
    return one(make(f"Owns {thing}", f"possession:{object_key(thing)}", thing, MemoryBank.PERSONAL, PERSONAL), complete)


def _drives(found: re.Match[str], clause: Clause) -> Match | None:
    """'I drive a VW Golf': the car, one at a time (key `car`, the catalogue's), so the next one replaces it."""
    car, complete = clean_object(found.group("o"))
    car = re.sub(r"^(?:an?|the)\s+", "", car, flags=re.I)
    if not car or len(car.split()) > 6:
        return None
    return one(make(f"Drives a {car}", "car", car, MemoryBank.PERSONAL, PERSONAL), complete)


def _degree(found: re.Match[str], clause: Clause) -> Match | None:
    field, complete = clean_object(found.group("f"))
    if not field or len(field.split()) > 5:
        return None
    kind = " ".join(found.group("k").lower().split())
    return one(make(f"Has a {kind} in {field}", f"degree:{object_key(field)}", field, MemoryBank.WORK, WORK), complete)


def _graduated(found: re.Match[str], clause: Clause) -> Match | None:
    school = _org(found.group("s"), clause)
    return one(make(f"Graduated from {school}", "alma_mater", school, MemoryBank.WORK, WORK)) if school else None


_GO = r"(?:heading|going|flying|travell?ing|driving|off|taking\s+a\s+trip)"
_WHEN = rf"(?:\s+(?P<when>{WHEN}))?"
_WHY = r"(?:\s+for\s+(?P<why>(?:a|an|the|my|our)\s+[\w' -]+?))?"
_WHY_AFTER = _WHY.replace("?P<why>", "?P<why2>")  # "to Madrid next month for a wedding"
_ACT = (
    r"(?P<a>go\s+(?:swimming|running|jogging|cycling|hiking|climbing|bouldering|skiing|dancing|surfing)|"
    r"run|swim|jog|cycle|bike\s+to\s+work|walk\s+to\s+work|meditate|do\s+yoga|do\s+pilates|"
    r"play\s+(?:tennis|football|soccer|chess|squash|padel|basketball|volleyball|the\s+piano|the\s+guitar)|"
    r"visit\s+my\s+\w+|call\s+my\s+\w+)"
)
_FREQ = (
    r"(?P<f>every\s+(?:day|morning|evening|night|week|weekend|monday|tuesday|wednesday|thursday|friday|saturday|"
    r"sunday|other\s+day)|each\s+(?:morning|evening|week)|daily|twice\s+a\s+week|three\s+times\s+a\s+week|"
    r"once\s+a\s+week|on\s+(?:mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays|weekends))"
)

# Tried before the work rules: "left the bank and joined ..." names its old employer with an article.
EARLY: tuple[Rule, ...] = (
    regex_rule(
        rf"{_I}\s+{ADV}(?:left|quit)\s+(?P<old>.+?)\s+(?:and|to)\s+{ADV}(?:joined|join|started\s+at|moved\s+to)\s+"
        r"(?P<org>.+?)(?:\s+as\s+(?:an?\s+)?(?P<title>.+))?",
        _joined,
    ),
    regex_rule(
        rf"(?:{_I}|{IM})\s+{ADV}(?:joined|(?:just\s+)?started\s+(?:working\s+)?at)\s+(?P<org>(?:a|an|the)\s+.+?)"
        r"(?:\s+as\s+(?:an?\s+)?(?P<title>.+))?",
        _joined,
    ),
    regex_rule(
        rf"(?:i|{IVE})\s+{ADV}(?:got|was|been|have\s+been)\s+promoted\s+to\s+(?:an?\s+|the\s+)?(?P<title>.+)",
        _promoted,
    ),
)
RULES: tuple[Rule, ...] = (
    regex_rule(
        rf"(?:{IM}|we'?re|we\s+are|i\s+will\s+be|i'?ll\s+be)\s+{ADV}{_GO}\s+to\s+(?P<p>.+?){_WHY}{_WHEN}{_WHY_AFTER}",
        _trip,
    ),
    regex_rule(
        rf"(?:i|we)\s+(?:will\s+|'ll\s+)?(?:fly|go|travel|head)\s+to\s+(?P<p>.+?){_WHY}{_WHEN}",
        _trip,
    ),
    regex_rule(
        rf"(?:{IVE}|i\s+have|i'?ve\s+got|i\s+got)\s+(?P<e>(?:an?|my)\s+[\w' -]+?(?:appointment|interview|exam|"
        r"meeting|wedding|party|concert|surgery|flight|match|game|presentation|recital|race|marathon|trip))\s+"
        rf"(?P<when>{WHEN})",
        _event,
    ),
    regex_rule(
        rf"(?:i|we)\s+(?:just\s+|finally\s+)?(?P<v>went\s+to|attended|visited|had)\s+"
        rf"(?P<e>(?:a|an|the|my|our)\s+[\w' -]+?)\s+(?P<when>{PAST})",
        _past_event,
    ),
    regex_rule(rf"i\s+(?:usually\s+|always\s+|try\s+to\s+)?{_ACT}\s+{_FREQ}", _routine),
    regex_rule(rf"{_FREQ}\s*,?\s+i\s+(?:usually\s+|always\s+)?{_ACT}", _routine),
    regex_rule(rf"i\s+{ADV}(?:own|bought|purchased)\s+(?P<o>(?:a|an|two|three|my\s+own)\s+.+)", _owns),
    regex_rule(rf"i\s+{ADV}drive\s+(?P<o>(?:a|an)\s+.+)", _drives),
    regex_rule(
        rf"(?:{IVE}|i\s+(?:hold|got|earned|finished|did|completed))\s+(?:got\s+)?(?:a|an|my)\s+"
        r"(?P<k>(?:bachelor'?s|master'?s|phd|doctorate|degree|diploma)(?:\s+degree)?)\s+in\s+(?P<f>.+)",
        _degree,
    ),
    regex_rule(r"i\s+(?:graduated|have\s+graduated)\s+from\s+(?P<s>.+?)(?:\s+in\s+(?:19|20)\d\d)?", _graduated),
)
