"""Scoring of the knowledge-update part (pure: unit-tested in tests/unit/bench/test_bench_knowledge_update.py).

A question's evidence turns are dated; the latest-dated one holds the value now, every older one a value
it replaced. Two things are scored, and both together:

- **latest first**: the latest evidence turn is among the hits and ranks above every older evidence turn
  (a turn ranks where its first hit does; an older turn not among the hits ranks below it);
- **older outdated**: every older evidence turn left memories, and at least one memory of each is marked
  outdated as it stands after the ingest: closed (no current version), its current version carrying
  `outdated_by` or a statement's `outdated_by`, or its current version no longer from that turn (a later
  statement replaced its text). Memories of a turn: every memory one of whose versions came from it.

A memory (version) is mapped to its turn by the session of its add's task and its `source.message_index`
(`turn_of`).
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from bench.parts.longmemeval_score import UNKNOWN, Hit, hit_of
from engram.domain.models import Fact


@dataclass(frozen=True)
class Kept:
    """One memory after the ingest: the turns its versions came from, the turn its current version came
    from (None: closed, or from no one turn), and whether its current version is marked outdated."""

    memory_id: str
    turns: frozenset[str]
    current: bool
    now_from: str | None
    marked: bool

    def outdated_for(self, turn: str) -> bool:
        """Whether what `turn` said through this memory is no longer shown as current."""
        return not self.current or self.marked or self.now_from != turn


def turn_of(fact: Fact, sessions: Mapping[str, str]) -> str | None:
    """The turn a memory (version) came from, by its add's session (longmemeval_score.hit_of); None when
    it names no one message."""
    turn = hit_of(fact, sessions).turn
    return None if turn == UNKNOWN else turn


def kept(versions: Iterable[Fact], sessions: Mapping[str, str]) -> list[Kept]:
    """Every stored version of a user's memories (FactStore.list_versions) -> the memories as they stand."""
    by_id: dict[str, list[Fact]] = defaultdict(list)
    for v in versions:
        by_id[v.id].append(v)
    out = []
    for memory_id, versions_of in by_id.items():
        turns = frozenset(t for v in versions_of if (t := turn_of(v, sessions)) is not None)
        current = [v for v in versions_of if v.is_current]
        if not current:
            out.append(Kept(memory_id, turns, current=False, now_from=None, marked=False))
            continue
        now = max(current, key=lambda v: v.version)
        marked = bool(now.outdated_by) or any(s.outdated_by for s in now.statements)
        out.append(Kept(memory_id, turns, current=True, now_from=turn_of(now, sessions), marked=marked))
    return out


def latest_and_older(evidence: dict[str, datetime]) -> tuple[str, list[str]]:
    """The latest-dated evidence turn, and the others (said strictly before it)."""
    latest = max(evidence, key=lambda ref: evidence[ref])
    return latest, [ref for ref, when in evidence.items() if when < evidence[latest]]


def first_ranks(hits: Sequence[Hit], turns: Iterable[str]) -> dict[str, int | None]:
    """Each turn's rank among the hits (0 = first), None when no hit is of it."""
    rank: dict[str, int] = {}
    for position, hit in enumerate(hits):
        rank.setdefault(hit.turn, position)
    return {t: rank.get(t) for t in turns}


def score(evidence: dict[str, datetime], hits: Sequence[Hit], memories: Sequence[Kept]) -> dict[str, Any]:
    """One question's figures. `evidence`: evidence turn -> when it was said (two or more times)."""
    latest, older = latest_and_older(evidence)
    if not older:
        raise ValueError("a knowledge update needs evidence said at two or more times")
    ranks = first_ranks(hits, [latest, *older])
    top = ranks[latest]
    first = top is not None and all(r is None or r > top for t, r in ranks.items() if t != latest)
    of_turn = {t: [m for m in memories if t in m.turns] for t in older}
    outdated = all(any(m.outdated_for(t) for m in ms) for t, ms in of_turn.items())
    return {
        "latest": latest,
        "latest_rank": top,
        "older_ranks": [ranks[t] for t in older],
        "older_memories": sum(len(ms) for ms in of_turn.values()),
        "older_memories_outdated": sum(m.outdated_for(t) for t, ms in of_turn.items() for m in ms),
        "latest_first": first,
        "older_outdated": outdated,
        "both": first and outdated,
    }


SHARES = ("latest_first", "older_outdated", "both")


def summarise(rows: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Shares of the questions over which each holds; the latest evidence's presence and median rank."""
    rows = list(rows)
    out: dict[str, Any] = {"questions": len(rows)}
    for key in SHARES:
        out[key] = round(sum(bool(r[key]) for r in rows) / len(rows), 4) if rows else None
    found = [r["latest_rank"] for r in rows if r["latest_rank"] is not None]
    out["latest_found"] = len(found)
    out["latest_rank_median"] = statistics.median(found) if found else None
    out["older_above_latest"] = sum(
        any(o is not None and (r["latest_rank"] is None or o < r["latest_rank"]) for o in r["older_ranks"])
        for r in rows
    )
    return out
