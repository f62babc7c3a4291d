"""Reminders: 'remind me to call mom tomorrow', and deleting one ('delete my reminder about milk')."""

from __future__ import annotations

import re

from engram.domain.models import MemoryBank
from engram.domain.steps import CandidateFact
from engram.rules.facts import REMINDER, Build, Match, Rule, make, regex_rule
from engram.rules.keys import object_key
from engram.text.clauses import ANYMORE, DONT, Clause

_E = MemoryBank.EVENTS
_DAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
_CLOCK = r"\d{1,2}(?:[:.]\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.|o'?clock)?"
_WHEN = re.compile(
    r"\b(?:today|tonight|tomorrow(?:\s+(?:morning|afternoon|evening|night))?|tmrw|tmr|"
    rf"this\s+(?:morning|afternoon|evening|weekend|week|month)|next\s+(?:week|month|year|weekend|{_DAY})|"
    rf"(?:on\s+)?{_DAY}(?:\s+(?:morning|afternoon|evening|night))?|on\s+the\s+\d{{1,2}}(?:st|nd|rd|th)?|"
    rf"(?:at|by|before|after|around)\s+(?:{_CLOCK}|noon|midnight|lunch(?:time)?|dinner|breakfast|"
    r"the\s+end\s+of\s+the\s+(?:day|week|month))|in\s+the\s+(?:morning|afternoon|evening)|"
    r"later(?:\s+today|\s+on)?|in\s+(?:an?|\d+|a\s+few|two|three)\s+(?:minutes?|hours?|days?|weeks?)|"
    rf"every\s+(?:day|morning|evening|night|week|month|{_DAY})|daily|weekly|monthly|asap|soon)\b",
    re.I,
)
_FAMILY_WORDS = r"(?:mom|mum|mother|dad|father|wife|husband|partner|sister|brother|son|daughter|kids|grandma|grandpa)"


def task_text(raw: str) -> str | None:
    """The task as the user put it, without politeness and with 'my mom' as 'mom'."""
    task = re.sub(r"(?:,?\s+(?:please|thanks|thank\s+you|ok|okay))+$", "", raw.strip(), flags=re.I)
    task = re.sub(r"^(?:i\s+(?:need|have|must|should|want)\s+to\s+|i'?ve\s+got\s+to\s+|i\s+)", "", task, flags=re.I)
    task = re.sub(rf"\bmy\s+(?={_FAMILY_WORDS}\b)", "", task, flags=re.I)
    task = " ".join(task.rstrip(" .!,;").split())
    return task if task and len(task.split()) <= 20 else None


def reminder_key(task: str) -> str:
    """'call mom tomorrow at 5pm' -> 'reminder:call mom': when it is due is not what it is."""
    return "reminder:" + object_key(" ".join(_WHEN.sub(" ", task).split()))


def reminder(task: str, negated: bool = False) -> CandidateFact:
    key = reminder_key(task)
    if negated:
        return make(f"Cancelled reminder: {task}", key, None, _E, REMINDER, negated=True)
    return make(f"Reminder: {task}", key, task, _E, REMINDER)


def _build(negated: bool = False) -> Build:
    def build(found: re.Match[str], clause: Clause) -> Match | None:
        task = task_text(found.group("t"))
        if task is None or reminder_key(task) == "reminder:":
            return None
        return Match((reminder(task, negated),))

    return build


_ASK = r"(?:(?:please\s+)?(?:(?:can|could|would|will)\s+you\s+)?(?:please\s+)?)"
_DROP = r"(?:delete|remove|cancel|clear|drop|forget(?:\s+about)?|scrap|get\s+rid\s+of|dismiss|erase)"
_ABOUT = r"(?:about|to|for|of|on|regarding|that)"

RULES: tuple[Rule, ...] = (
    regex_rule(
        rf"{_ASK}(?:you\s+can\s+)?{_DROP}\s+(?:my|the|that|this)\s+reminder\s+{_ABOUT}\s+(?P<t>.+)",
        _build(negated=True),
    ),
    regex_rule(
        rf"i\s+(?:no\s+longer|{DONT})\s+need\s+(?:my|the|that|a)\s+reminder\s+{_ABOUT}\s+(?P<t>.+?)"
        rf"(?:\s+{ANYMORE})?",
        _build(negated=True),
    ),
    regex_rule(rf"{_ASK}remind\s+me\s+(?:to|that|about|of)\s+(?P<t>.+)", _build()),
    regex_rule(rf"{_ASK}(?:{DONT})\s+let\s+me\s+forget\s+(?:to\s+|about\s+)?(?P<t>.+)", _build()),
    regex_rule(
        rf"{_ASK}(?:set|add|create|make|put\s+in)\s+(?:a|an|me\s+a)\s+reminder\s+(?:to|for|about|that)\s+"
        r"(?P<t>.+)",
        _build(),
    ),
    regex_rule(r"i\s+(?:need|have|must|should)\s+to\s+remember\s+to\s+(?P<t>.+)", _build()),
    regex_rule(r"make\s+sure\s+i\s+(?:remember\s+to|don'?t\s+forget\s+to)\s+(?P<t>.+)", _build()),
    regex_rule(r"note\s+to\s+self:?\s+(?P<t>.+)", _build()),
)
