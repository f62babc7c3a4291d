"""Relative dates in what people say ("next month", "on Friday", "tomorrow") made absolute against
the time the message was said, so a plan still means the right day when it is read months later."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta

_MONTHS = "january february march april may june july august september october november december".split()
_DAYS = "monday tuesday wednesday thursday friday saturday sunday".split()
WHEN = (
    r"(?:tomorrow|tonight|today|this\s+(?:weekend|week|month|year|summer|winter|spring|autumn|fall)|"
    r"next\s+(?:week|weekend|month|year|summer|winter|spring|autumn|fall|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday)|"
    r"in\s+(?:two|three|a\s+couple\s+of|a\s+few)\s+(?:days|weeks)|in\s+a\s+(?:week|month)|"
    r"on\s+(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|"
    r"(?:in|on)\s+(?:january|february|march|april|may|june|july|august|september|october|november|december)"
    r"(?:\s+\d{1,2}(?:st|nd|rd|th)?)?)"
)
_COUNTS = {"two": 2, "three": 3, "a couple of": 2, "a few": 3, "a": 1}


def _day(d: date) -> str:
    return f"{d.day} {d:%B %Y}"


def _month_after(d: date, months: int) -> date:
    year, month = divmod(d.month - 1 + months, 12)
    return date(d.year + year, month + 1, 1)


def resolve(phrase: str, now: datetime) -> str:
    """'next month' said on 23 November 2026 -> 'in December 2026'; unknown phrases come back as said."""
    said = " ".join(phrase.lower().split())
    today = now.date()
    if said in ("today", "tonight"):
        return f"on {_day(today)}"
    if said == "tomorrow":
        return f"on {_day(today + timedelta(days=1))}"
    if said in ("this week", "next week", "this weekend", "next weekend", "in a week"):
        monday = today - timedelta(days=today.weekday())
        start = monday + timedelta(days=7 if said.startswith(("next", "in")) else 0)
        if said.endswith("weekend"):
            return f"on the weekend of {_day(start + timedelta(days=5))}"
        return f"in the week of {_day(start)}"
    if said in ("this month", "next month", "in a month"):
        return f"in {_month_after(today, 0 if said == 'this month' else 1):%B %Y}"
    if said in ("this year", "next year"):
        return f"in {today.year + (said == 'next year')}"
    counted = re.fullmatch(r"in (two|three|a couple of|a few) (days|weeks)", said)
    if counted:
        days = _COUNTS[counted.group(1)] * (7 if counted.group(2) == "weeks" else 1)
        return f"around {_day(today + timedelta(days=days))}"
    weekday = re.fullmatch(r"(?:on|next) (\w+day)", said)
    if weekday and weekday.group(1) in _DAYS:
        ahead = (_DAYS.index(weekday.group(1)) - today.weekday()) % 7 or 7
        return f"on {_day(today + timedelta(days=ahead))}"
    month = re.fullmatch(r"(?:in|on) (\w+)(?: (\d{1,2})(?:st|nd|rd|th)?)?", said)
    if month and month.group(1) in _MONTHS:
        number = _MONTHS.index(month.group(1)) + 1
        year = today.year + (number < today.month)
        if month.group(2):
            return f"on {int(month.group(2))} {month.group(1).title()} {year}"
        return f"in {month.group(1).title()} {year}"
    return said


# Past times ("yesterday", "last week", "three days ago"), resolved against when they were said, so
# "I went to a pottery class yesterday" said on 8 May 2023 reads "on 7 May 2023" whenever it is read.
PAST = (
    r"(?:yesterday|last\s+night|the\s+day\s+before\s+yesterday|"
    r"last\s+(?:week|weekend|month|year|summer|winter|spring|autumn|fall|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday)|"
    r"(?:two|three|four|five|a\s+couple\s+of|a\s+few|\d{1,2})\s+(?:days|weeks|months|years)\s+ago|"
    r"an?\s+(?:day|week|month|year)\s+ago)"
)
_PAST_COUNTS = {"two": 2, "three": 3, "four": 4, "five": 5, "a couple of": 2, "a few": 3, "a": 1, "an": 1}
_SEASON_MONTH = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}


def resolve_past(phrase: str, now: datetime) -> str:
    """'yesterday' said on 8 May 2023 -> 'on 7 May 2023'; unknown phrases come back as said."""
    said = " ".join(phrase.lower().split())
    today = now.date()
    if said in ("yesterday", "last night"):
        return f"on {_day(today - timedelta(days=1))}"
    if said == "the day before yesterday":
        return f"on {_day(today - timedelta(days=2))}"
    if said in ("last week", "last weekend"):
        monday = today - timedelta(days=today.weekday() + 7)
        if said == "last weekend":
            return f"on the weekend of {_day(monday + timedelta(days=5))}"
        return f"in the week of {_day(monday)}"
    if said == "last month":
        return f"in {_month_after(today, -1):%B %Y}"
    if said == "last year":
        return f"in {today.year - 1}"
    last = re.fullmatch(r"last (\w+)", said)
    if last and last.group(1) in _SEASON_MONTH:
        month = _SEASON_MONTH[last.group(1)]
        year = today.year - 1 if month >= today.month or last.group(1) == "winter" else today.year
        return f"in {last.group(1)} {year}"
    if last and last.group(1) in _DAYS:
        back = (today.weekday() - _DAYS.index(last.group(1))) % 7 or 7
        return f"on {_day(today - timedelta(days=back))}"
    counted = re.fullmatch(r"(two|three|four|five|a couple of|a few|an?|\d{1,2}) (day|week|month|year)s? ago", said)
    if counted:
        n = int(counted.group(1)) if counted.group(1).isdigit() else _PAST_COUNTS[counted.group(1)]
        unit = counted.group(2)
        if unit in ("day", "week"):
            return f"around {_day(today - timedelta(days=n * (7 if unit == 'week' else 1)))}"
        if unit == "month":
            return f"in {_month_after(today, -n):%B %Y}"
        return f"in {today.year - n}"
    return said
