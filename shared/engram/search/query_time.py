"""Time in a question: "What did I do in August 2023?", "... last week", "two years ago", "on Friday".

A question's time phrase becomes a range of event time (when things were said or held), resolved
against the question's own time (`now`, which a client may pass, else the server's clock). Search
then lifts the memories valid in that range (search/time_ranking.py). Every pattern here is a flat
alternation anchored on words, linear in the question's length.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

_MONTHS = "january february march april may june july august september october november december".split()
_ABBR = {m[:3]: i + 1 for i, m in enumerate(_MONTHS)} | {"sept": 9}
_DAYS = "monday tuesday wednesday thursday friday saturday sunday".split()
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "a couple of": 2}
_MONTH = (
    r"(?P<month>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|"
    r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)

_ISO_DAY = re.compile(r"\b(?P<y>(?:19|20)\d\d)-(?P<m>\d\d)-(?P<d>\d\d)\b")
_DAY_MONTH_YEAR = re.compile(
    rf"\b(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\.?,?\s+(?P<y>(?:19|20)\d\d)\b", re.I
)
_MONTH_DAY_YEAR = re.compile(rf"\b{_MONTH}\.?\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<y>(?:19|20)\d\d)\b", re.I)
_MONTH_YEAR = re.compile(rf"\b{_MONTH}\.?,?\s+(?:of\s+)?(?P<y>(?:19|20)\d\d)\b", re.I)
_IN_MONTH = re.compile(rf"\b(?:in|during|since|last|this)\s+{_MONTH}\b", re.I)
_YEAR = re.compile(r"\b(?:in|during|of|since|year)\s+(?P<y>(?:19|20)\d\d)\b|\b(?P<bare>(?:19|20)\d\d)\b", re.I)
_RELATIVE = re.compile(
    r"\b(?P<p>yesterday|today|tonight|last\s+night|the\s+day\s+before\s+yesterday|"
    r"(?:last|this|past)\s+(?:week|weekend|month|year)|"
    r"(?:a|an|one|two|three|four|five|six|a\s+couple\s+of|\d{1,2})\s+(?:day|week|month|year)s?\s+ago|"
    r"(?:on|last|this)\s+(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday))\b",
    re.I,
)
_LATEST = re.compile(
    r"\b(?:current(?:ly)?|now|nowadays|these\s+days|still|any\s*more|any\s+longer|latest|most\s+recent(?:ly)?|"
    r"at\s+the\s+moment|right\s+now|today)\b",
    re.I,
)


@dataclass(frozen=True)
class TimeSpan:
    start: datetime
    end: datetime  # exclusive

    def holds(self, when: datetime) -> bool:
        return self.start <= when < self.end


def _span(first: date, days: int) -> TimeSpan:
    start = datetime.combine(first, time(), UTC)
    return TimeSpan(start, start + timedelta(days=days))


def _month(year: int, month: int) -> TimeSpan:
    start = datetime(year, month, 1, tzinfo=UTC)
    end = datetime(year + (month == 12), month % 12 + 1, 1, tzinfo=UTC)
    return TimeSpan(start, end)


def _year(year: int) -> TimeSpan:
    return TimeSpan(datetime(year, 1, 1, tzinfo=UTC), datetime(year + 1, 1, 1, tzinfo=UTC))


def _months_back(today: date, months: int) -> tuple[int, int]:
    year, month = divmod(today.year * 12 + today.month - 1 - months, 12)
    return year, month + 1


def _relative(phrase: str, today: date) -> TimeSpan | None:
    said = " ".join(phrase.lower().split())
    if said in ("today", "tonight"):
        return _span(today, 1)
    if said in ("yesterday", "last night"):
        return _span(today - timedelta(days=1), 1)
    if said == "the day before yesterday":
        return _span(today - timedelta(days=2), 1)
    monday = today - timedelta(days=today.weekday())
    if said in ("this week", "past week"):
        return _span(monday, 7) if said == "this week" else _span(today - timedelta(days=7), 8)
    if said in ("last week", "last weekend"):
        return _span(monday - timedelta(days=7), 7)
    if said == "this weekend":
        return _span(monday + timedelta(days=5), 2)
    if said in ("this month", "past month"):
        return _month(today.year, today.month) if said == "this month" else _span(today - timedelta(days=31), 32)
    if said == "last month":
        return _month(*_months_back(today, 1))
    if said in ("this year", "past year"):
        return _year(today.year) if said == "this year" else _span(today - timedelta(days=366), 367)
    if said == "last year":
        return _year(today.year - 1)
    weekday = re.fullmatch(r"(on|last|this) (\w+day)", said)
    if weekday and weekday.group(2) in _DAYS:
        back = (today.weekday() - _DAYS.index(weekday.group(2))) % 7
        back = back or (7 if weekday.group(1) == "last" else 0)
        return _span(today - timedelta(days=back), 1)
    ago = re.fullmatch(r"(a|an|one|two|three|four|five|six|a couple of|\d{1,2}) (day|week|month|year)s? ago", said)
    if ago:
        n = int(ago.group(1)) if ago.group(1).isdigit() else _NUMBERS[ago.group(1)]
        unit = ago.group(2)
        if unit == "day":
            return _span(today - timedelta(days=n + 1), 3)  # "three days ago" is rarely exact: a day either side
        if unit == "week":
            return _span(today - timedelta(days=7 * n + 4), 9)
        if unit == "month":
            return _month(*_months_back(today, n))
        return _year(today.year - n)
    return None


def _month_number(name: str) -> int:
    return _ABBR[name.lower()[:4] if name.lower().startswith("sept") else name.lower()[:3]]


def time_in_query(query: str, now: datetime) -> TimeSpan | None:
    """The span of event time a question asks about, or None when it names no time."""
    today = now.astimezone(UTC).date()
    found = _ISO_DAY.search(query)
    if found:
        try:
            return _span(date(int(found["y"]), int(found["m"]), int(found["d"])), 1)
        except ValueError:
            return None
    for pattern in (_DAY_MONTH_YEAR, _MONTH_DAY_YEAR):
        found = pattern.search(query)
        if found:
            try:
                return _span(date(int(found["y"]), _month_number(found["month"]), int(found["d"])), 1)
            except ValueError:
                return None
    found = _MONTH_YEAR.search(query)
    if found:
        return _month(int(found["y"]), _month_number(found["month"]))
    found = _RELATIVE.search(query)
    if found:
        return _relative(found["p"], today)
    found = _IN_MONTH.search(query)
    if found:  # "in August": the latest August that has begun
        month = _month_number(found["month"])
        return _month(today.year - (month > today.month), month)
    found = _YEAR.search(query)
    if found:
        return _year(int(found["y"] or found["bare"]))
    return None


# A question in the past tense asks what was so, and text since outdated may be its answer ("What did Caroline
# research?"); "where do I live?" asks what is.
_PAST = re.compile(r"\b(?:did|didn't|was|wasn't|were|weren't|had|used\s+to|previously|formerly|before)\b", re.I)


def asks_about_the_past(query: str) -> bool:
    """'What did I research?', 'Where was I living before?': what held then answers, outdated or not."""
    return bool(_PAST.search(query))


def asks_for_latest(query: str) -> bool:
    """'What is my current job?', 'Do I still live in Hamburg?': the newest statement answers."""
    return bool(_LATEST.search(query))
