"""LongMemEval_S, read in place from ../shared/bench/longmemeval_s_dev.json.gz (MIT; 184 of the 500
questions, see ../shared/bench/README.md): never copied into the repo.

A question's haystack is ~40-58 chat sessions of user/assistant turns, each dated
("2023/05/20 (Sat) 02:21", no zone: read as UTC); `has_answer` marks the evidence turns. A turn is
named by its session id and its position in the session (`TurnRef`, "<session_id>#<turn>").
"""

from __future__ import annotations

import gzip
import hashlib
import json
import math
import os
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

DEFAULT_PATH = Path(
    os.environ.get("LONGMEMEVAL_PATH")
    or Path(__file__).resolve().parents[3] / "shared" / "bench" / "longmemeval_s_dev.json.gz"
)
TYPES = (
    "single-session-user",
    "single-session-assistant",
    "single-session-preference",
    "multi-session",
    "knowledge-update",
    "temporal-reasoning",
)
TURN_GAP = timedelta(seconds=1)  # sessions are dated, turns are not: a second apart, in order


def turn_ref(session_id: str, turn: int) -> str:
    return f"{session_id}#{turn}"


def parse_date(text: str) -> datetime:
    """'2023/05/20 (Sat) 02:21' -> 2023-05-20 02:21 UTC."""
    day, _, rest = text.strip().partition(" (")
    clock = rest.partition(") ")[2]
    return datetime.strptime(f"{day} {clock}", "%Y/%m/%d %H:%M").replace(tzinfo=UTC)


@dataclass(frozen=True)
class Turn:
    role: str
    content: str
    has_answer: bool


@dataclass(frozen=True)
class Session:
    session_id: str
    said_at: datetime  # when its first turn was said
    turns: tuple[Turn, ...]

    def turn_said_at(self, turn: int) -> datetime:
        return self.said_at + turn * TURN_GAP


@dataclass(frozen=True)
class Question:
    question_id: str
    question_type: str
    question: str
    question_date: datetime
    sessions: tuple[Session, ...]  # in the order said (the file's order is not always by date)
    answer: str = ""  # the answer key (a rubric for preference questions; bench/parts/qa.py)

    @property
    def abstention(self) -> bool:
        return self.question_id.endswith("_abs")

    def evidence(self) -> dict[str, datetime]:
        """Evidence turn -> when it was said."""
        return {
            turn_ref(s.session_id, i): s.turn_said_at(i)
            for s in self.sessions
            for i, t in enumerate(s.turns)
            if t.has_answer
        }

    def evidence_sessions(self) -> set[str]:
        return {ref.rpartition("#")[0] for ref in self.evidence()}


def parse_question(item: dict[str, Any]) -> Question:
    sessions = [
        Session(
            session_id=str(sid),
            said_at=parse_date(str(date)),
            turns=tuple(Turn(str(t["role"]), str(t["content"]), bool(t.get("has_answer"))) for t in turns),
        )
        for sid, date, turns in zip(
            item["haystack_session_ids"], item["haystack_dates"], item["haystack_sessions"], strict=True
        )
    ]
    sessions.sort(key=lambda s: s.said_at)  # stable: sessions of one minute keep the file's order
    return Question(
        question_id=str(item["question_id"]),
        question_type=str(item["question_type"]),
        question=str(item["question"]),
        question_date=parse_date(str(item["question_date"])),
        sessions=tuple(sessions),
        answer=str(item.get("answer", "")),
    )


def load(path: Path = DEFAULT_PATH) -> list[Question]:
    if not path.is_file():
        raise FileNotFoundError(f"LongMemEval data not found at {path} (see ../shared/bench/README.md)")
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [parse_question(item) for item in json.load(f)]


def _rank(question_id: str) -> str:
    return hashlib.sha256(question_id.encode()).hexdigest()


def stratified(questions: Sequence[Question], n: int) -> list[Question]:
    """A fixed subset of n questions, every type in proportion (at least one each), the questions of
    a type taken in the order of a hash of their id: never chosen by results, the same on every run."""
    if n >= len(questions):
        return list(questions)
    by_type: dict[str, list[Question]] = defaultdict(list)
    for q in sorted(questions, key=lambda q: _rank(q.question_id)):
        by_type[q.question_type].append(q)
    if n < len(by_type):
        raise ValueError(f"a stratified sample of {n} cannot hold each of the {len(by_type)} question types")
    quota = {t: n * len(qs) / len(questions) for t, qs in by_type.items()}
    share = {t: max(1, math.floor(quota[t])) for t in by_type}
    while sum(share.values()) < n:  # largest remainders first
        short = max(by_type, key=lambda t: (quota[t] - share[t], t))
        share[short] += 1
    while sum(share.values()) > n:  # types given one question below their quota gave up the most
        over = min((t for t in share if share[t] > 1), key=lambda t: (quota[t] - share[t], t))
        share[over] -= 1
    chosen = {q.question_id for t, qs in by_type.items() for q in qs[: share[t]]}
    return [q for q in questions if q.question_id in chosen]
