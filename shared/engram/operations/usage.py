"""A tenant's usage per UTC day, from the counters Accounting keeps (never from scanning tasks)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta

from engram.domain.errors import ValidationError
from engram.domain.models import utcnow
from engram.domain.operations import USAGE_FIELDS, UsageDay, UsageReport
from engram.domain.operations_ports import UsageCounters

MAX_DAYS = 366
DEFAULT_DAYS = 30


def _today() -> date:
    return utcnow().date()


@dataclass
class UsageService:
    counters: UsageCounters
    today: Callable[[], date] = _today

    def report(self, tenant_id: str, first: date | None, last: date | None) -> UsageReport:
        """Days `first`..`last` inclusive; by default the last 30 days up to today."""
        try:
            last = last or (first + timedelta(days=DEFAULT_DAYS - 1) if first else self.today())
        except OverflowError:  # `from` near 9999-12-31: the default span runs past the calendar
            last = date.max
        try:
            first = first or last - timedelta(days=DEFAULT_DAYS - 1)
        except OverflowError:  # `to` near 0001-01-01
            first = date.min
        if first > last:
            raise ValidationError("from", f"must not be after to ({last.isoformat()})")
        span = (last - first).days + 1
        if span > MAX_DAYS:
            raise ValidationError("to", f"the range is {span} days; at most {MAX_DAYS}")
        days = self.counters.days(tenant_id, [(first + timedelta(d)).isoformat() for d in range(span)])
        totals = UsageDay(
            date=f"{first.isoformat()}..{last.isoformat()}",
            **{k: sum(getattr(d, k) for d in days) for k in USAGE_FIELDS},
        )
        return UsageReport(from_=first.isoformat(), to=last.isoformat(), days=days, totals=totals)
