"""Scoring of the LongMemEval part (pure: unit-tested in tests/unit/bench/test_bench_longmemeval.py).

A search hit is mapped to the turn it came from: its add (`source.task_id`; one add per session), or
else its metadata (`session_id`), names the session, and its `source.message_index` the turn within it. A raw turn
and an episode are that message; a fact read from a message points at it too. A hit with no known
message (a fact of several messages) still names its session.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from bench.data.longmemeval_data import turn_ref
from bench.rig.stats import all_at, recall_at
from engram.domain.models import Fact

UNKNOWN = "?"


@dataclass(frozen=True)
class Hit:
    turn: str  # "<session_id>#<turn>", or UNKNOWN
    session: str  # the session id, or UNKNOWN
    valid_from: datetime


def session_of(fact: Fact, sessions: Mapping[str, str] | None = None) -> str | None:
    """The session a memory came from: its add's (`sessions`: task id -> session, one add per session),
    else its `metadata.session_id`. An update that replaced an older memory's text keeps that memory's
    metadata but names its own add (`source.task_id`) and message."""
    if sessions and fact.source is not None and fact.source.task_id in sessions:
        return sessions[fact.source.task_id]
    said = fact.metadata.get("session_id")
    return str(said) if said is not None else None


def hit_of(fact: Fact, sessions: Mapping[str, str] | None = None) -> Hit:
    session = session_of(fact, sessions)
    index = fact.source.message_index if fact.source is not None else None
    turn = turn_ref(session, index) if session is not None and index is not None else UNKNOWN
    return Hit(turn=turn, session=session if session is not None else UNKNOWN, valid_from=fact.valid_from)


def newest_first(evidence: dict[str, datetime], hits: Sequence[Hit], k: int = 20) -> bool | None:
    """Knowledge updates: does the newest evidence session rank above every older one retrieved?
    None when the question does not tell (evidence in one session only, or the newest evidence
    session or every older one missing from the top k). A session ranks where its first evidence
    turn does."""
    said: dict[str, datetime] = {}
    for ref, when in evidence.items():
        session = ref.rpartition("#")[0]
        said[session] = max(when, said.get(session, when))
    if len(said) < 2:
        return None
    rank: dict[str, int] = {}
    for position, hit in enumerate(hits[:k]):
        if hit.turn in evidence:
            rank.setdefault(hit.session, position)
    newest = max(said, key=lambda s: said[s])
    older = [rank[s] for s in said if s != newest and s in rank]
    if newest not in rank or not older:
        return None
    return rank[newest] < min(older)


def score(evidence: dict[str, datetime], hits: Sequence[Hit]) -> dict[str, Any]:
    """One question's figures. `evidence`: evidence turn -> when it was said (not empty)."""
    turns = [h.turn for h in hits]
    sessions = [h.session for h in hits]
    wanted_sessions = {ref.rpartition("#")[0] for ref in evidence}
    top10 = [h for h in hits[:10] if h.turn in evidence]
    return {
        "turn_recall@5": recall_at(turns, evidence, 5),
        "turn_recall@10": recall_at(turns, evidence, 10),
        "turn_all@10": all_at(turns, evidence, 10),
        "session_recall@5": recall_at(sessions, wanted_sessions, 5),
        "session_recall@10": recall_at(sessions, wanted_sessions, 10),
        "evidence_in_top10": len(top10),
        "evidence_dated_that_day": sum(h.valid_from.date() == evidence[h.turn].date() for h in top10),
        "newest_first": newest_first(evidence, hits),
    }


MEANS = ("turn_recall@5", "turn_recall@10", "turn_all@10", "session_recall@5", "session_recall@10")


def summarise(rows: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Means of the recall figures; pooled share of evidence memories dated the day they were said;
    the knowledge-update ordering over the questions that tell."""
    rows = list(rows)
    out: dict[str, Any] = {"questions": len(rows)}
    for key in MEANS:
        out[key] = round(statistics.fmean(r[key] for r in rows), 4) if rows else None
    found = sum(r["evidence_in_top10"] for r in rows)
    dated = sum(r["evidence_dated_that_day"] for r in rows)
    out["evidence_in_top10"] = found
    out["valid_from_on_the_day"] = round(dated / found, 4) if found else None
    told = [r["newest_first"] for r in rows if r["newest_first"] is not None]
    out["newest_first"] = {"questions": len(told), "share": round(sum(told) / len(told), 4) if told else None}
    return out
