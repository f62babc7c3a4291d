"""Ranking by event time: what a question asks about when, what is outdated, and what is newest.

- A memory valid from within the span a question names ("in August 2023", "last week") is lifted;
  with an explicit `time_range`, memories outside it are left out.
- An episode part of which a later statement replaced (`outdated_by`) keeps a share of its score, so
  current knowledge ranks above outdated text. One that says nothing still current (every statement of it
  replaced) ranks below the memories that replaced it when they are found too, however near its words are
  to the question ("I live in Leeds" is nearer "where do I live?" than "I moved to York" is), unless the
  question asks about the time it was said, asks in the past tense, or is about others only.
- A question about the latest state ("what is my current job", "do I still ...") lifts newer
  memories over older ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from engram.domain.models import Fact
from engram.search.query_time import TimeSpan, asks_about_the_past, asks_for_latest, time_in_query
from engram.search.statement_ranking import asks_about_the_person

TIME_LIFT = 0.5  # a memory valid in the asked span closes this share of its distance to 1
OUTDATED_SHARE = 0.8  # of an outdated episode's score
NEWEST_LIFT = 0.15  # the newest hit of a "latest" question closes this share of its distance to 1
TIME_POOL = 60  # hits ranked when the question names a time (a span can lift one from far down)
RANGE_POOL = 200  # hits searched when `time_range` leaves some out


def _lift(score: float, share: float) -> float:
    return 1.0 - (1.0 - score) * (1.0 - share)


@dataclass(frozen=True)
class TimeAsked:
    """What a question asks about time, read once per search: the span it names (or the client's
    `time_range`, which then also restricts), and whether it wants the latest state."""

    span: TimeSpan | None
    restrict: bool
    latest: bool
    past: bool = False  # asked in the past tense: what was so, outdated since or not
    person: bool = True  # about the person themself ("where do I live?"), not only others ("what does John do?")

    @classmethod
    def of(cls, query: str, now: datetime, time_range: tuple[datetime, datetime] | None = None) -> TimeAsked:
        past, person = asks_about_the_past(query), asks_about_the_person(query)
        if time_range is not None:
            return cls(TimeSpan(*time_range), True, asks_for_latest(query), past, person)
        return cls(time_in_query(query, now), False, asks_for_latest(query), past, person)

    @property
    def any(self) -> bool:
        return self.span is not None or self.latest


def rank_by_time(hits: Sequence[tuple[Fact, float]], asked: TimeAsked) -> list[tuple[Fact, float]]:
    """The hits re-scored by event time, best first."""
    span = asked.span
    kept = [(f, s) for f, s in hits if not asked.restrict or span is None or span.holds(f.valid_from)]
    newest = sorted({f.valid_from for f, _ in kept})
    scores: dict[str, float] = {}
    for fact, score in kept:
        if fact.outdated_by:
            score *= OUTDATED_SHARE
        if span is not None and span.holds(fact.valid_from):
            score = _lift(score, TIME_LIFT)
        if asked.latest and len(newest) > 1:
            score = _lift(score, NEWEST_LIFT * newest.index(fact.valid_from) / (len(newest) - 1))
        scores[fact.id] = score
    facts = {fact.id: fact for fact, _ in kept}
    ranked = [(fact, _below_replacements(fact, facts, scores, asked, set())) for fact, _ in kept]
    return sorted(ranked, key=lambda hit: -hit[1])


def _below_replacements(
    fact: Fact, facts: dict[str, Fact], scores: dict[str, float], asked: TimeAsked, seen: set[str]
) -> float:
    """A wholly outdated memory's score, for a question about the person's own state: at most the share of each
    found replacement's (itself outdated in turn, as it ranks); any other memory's as it is, and so is one a
    question asks about as it was: from the time it names ("what did I do on 25 February?") or in the past
    tense ("where did I live before?"), unless it asks for the latest. A question about others only (a
    conversation's speakers: "how did John describe the team bond?") reads what was said as said."""
    score = scores[fact.id]
    if not fact.statements or any(s.outdated_by is None for s in fact.statements):
        return score  # says something still current (or nothing read): its words may be what is asked
    as_it_was = (asked.span is not None and asked.span.holds(fact.valid_from)) or (asked.past and not asked.latest)
    if not asked.person or as_it_was:
        return score
    seen = seen | {fact.id}
    for replacement in dict.fromkeys([*fact.outdated_by, *(s.outdated_by or "" for s in fact.statements)]):
        if replacement in facts and replacement not in seen:
            score = min(score, OUTDATED_SHARE * _below_replacements(facts[replacement], facts, scores, asked, seen))
    return score
