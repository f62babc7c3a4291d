"""What a new fact's statements do to a memory's: the resolution of one against the other, by event time.

A newer asserted value of a one-at-a-time attribute of the same subject outdates the memory's other value;
an ending or a denial outdates the value it names, one at a time or not; a value said before the memory's
is its history and outdates nothing; a hedge or the past about the same attribute changes nothing. Anything
else (other subjects, other attributes, many-valued attributes gathering values, the same value again) is no
change of state, and the plan's other checks decide (reconcile/checks.py)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from engram.domain.statements import USER, Statement, of_the_person, plain_words
from engram.text.match import values_match

# Whether two attributes as named are one: by meaning where the caller has it (state/attributes.py, wired by the
# bootstrap: "mobile" and "phone" are one), else by their words.
SameAttribute = Callable[[str, str], bool]


@dataclass(frozen=True)
class Change:
    outdated: tuple[Statement, ...]  # the memory's statements the new fact replaces or ends
    older: bool = False  # the new value was said before the memory's: its history, it outdates nothing
    by: Statement | None = None  # the new statement that decided it


def change(
    new: Sequence[Statement], old: Sequence[Statement], old_at: datetime, same_attribute: SameAttribute | None = None
) -> Change | None:
    """How the statements `new` bear on a memory stating `old` (valid from `old_at`); None: no change of
    state either way. A statement's time is its event time, else the memory's `old_at` (the new fact's, when
    it has none, is now: newer than anything stored). `same_attribute` compares attributes by meaning."""
    one = same_attribute or _same_words
    for statement in new:
        same = [s for s in old if _same(s, statement, one) and s.outdated_by is None and s.polarity == "asserted"]
        if not same:
            continue
        other = [s for s in same if not values_match(s.value, statement.value)]
        named = [s for s in same if values_match(s.value, statement.value)]
        one_at_a_time = statement.single and all(s.single for s in same)
        if statement.polarity in ("ended", "denied") and named:
            return _dated(statement, tuple(named), old, old_at)
        if statement.polarity == "asserted" and one_at_a_time and other and not named:
            return _dated(statement, tuple(other), old, old_at)
        if statement.polarity in ("hedged", "past") and one_at_a_time:
            return Change((), by=statement)  # "might move to York", "lived in Hull as a kid": the home stays
    return _theirs(new, old, one)


def _theirs(new: Sequence[Statement], old: Sequence[Statement], one: SameAttribute) -> Change | None:
    """A fact that states only someone else's value of an attribute the memory states of the person ("my
    brother just became a pilot" beside "I'm a pharmacist"): other people's attributes outdate nothing, so
    the memory stays, whatever the model chose."""
    if not new or any(of_the_person(s.subject) for s in new):
        return None
    mine = [s for s in old if of_the_person(s.subject) and s.outdated_by is None and s.polarity == "asserted"]
    for statement in new:
        if any(one(plain_words(s.attribute), plain_words(statement.attribute)) for s in mine):
            return Change((), by=statement)
    return None


def _dated(statement: Statement, outdated: tuple[Statement, ...], old: Sequence[Statement], old_at: datetime) -> Change:
    said = statement.event_time
    since = max((s.event_time or old_at for s in outdated), default=old_at)
    if said is not None and _naive(said) < _naive(since):
        return Change((), older=True, by=statement)
    return Change(outdated, by=statement)


def _same(a: Statement, b: Statement, one: SameAttribute) -> bool:
    return _subject(a.subject) == _subject(b.subject) and one(plain_words(a.attribute), plain_words(b.attribute))


def _same_words(a: str, b: str) -> bool:
    return a == b


def _subject(subject: str) -> str:
    return USER if of_the_person(subject) else plain_words(subject)


def _naive(at: datetime) -> datetime:
    """Times compared in UTC whether or not they carry a zone (stored times do; a model's may not)."""
    return at if at.tzinfo is None else at.astimezone(UTC).replace(tzinfo=None)
