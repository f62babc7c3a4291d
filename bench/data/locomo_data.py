"""LoCoMo, read in place from ../shared/bench/locomo10.json (CC BY-NC 4.0: never copied into the repo).

Turns become memories whose text names the speaker: "Caroline: I went to a LGBTQ support group
yesterday". When it was said is the message's `created_at` (`Turn.said_at`, the session's date and
time, read as UTC); the parts that predate messages carrying a time still write the session date
into the text (`memory_text(dated=True)`: "... yesterday (8 May 2023)"; in front, "[Caroline, 8 May
2023] ..." cost MiniLM 0.06 of recall@10). Speaker, date, session and dia_id are also kept as
metadata (filterable). A shared photo's caption is part of what was said.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

DEFAULT_PATH = Path(
    os.environ.get("LOCOMO_PATH") or Path(__file__).resolve().parents[3] / "shared" / "bench" / "locomo10.json"
)
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
_DIA_ID = re.compile(r"D(\d+):(\d+)")
_SESSION_KEY = re.compile(r"session_(\d+)")


@dataclass(frozen=True)
class Turn:
    dia_id: str
    speaker: str
    text: str
    session: int
    said_at: datetime | None  # the session's date and time, UTC
    caption: str | None = None

    @property
    def session_date(self) -> date | None:
        return self.said_at.date() if self.said_at else None

    def memory_text(self, dated: bool = True) -> str:
        photo = f" [shares a photo: {self.caption}]" if self.caption else ""
        day = self.session_date
        when = f" ({day.day} {day:%B %Y})" if dated and day else ""
        return f"{self.speaker}: {self.text}{photo}{when}"

    def metadata(self) -> dict[str, Any]:
        # The bench's own bookkeeping: who said a turn goes as the message's `name` (the documented field).
        meta: dict[str, Any] = {"session": self.session, "dia_id": self.dia_id}
        if self.session_date:
            meta["session_date"] = self.session_date.isoformat()
        return meta


@dataclass(frozen=True)
class Question:
    question: str
    category: int
    evidence: tuple[str, ...]  # normalised, existing dia_ids only
    raw_evidence: tuple[str, ...]
    dropped: tuple[str, ...] = ()  # ids that name no turn of the conversation
    answer: str = ""  # the answer key (bench/parts/qa.py)


@dataclass
class Conversation:
    sample_id: str
    turns: list[Turn]
    questions: list[Question] = field(default_factory=list)

    @property
    def user_id(self) -> str:
        return f"locomo-{self.sample_id}"


def parse_session_time(text: str) -> datetime | None:
    """'1:56 pm on 8 May, 2023' -> 2023-05-08 13:56 UTC (LoCoMo gives no zone; None when it is not
    in that shape)."""
    try:
        return datetime.strptime(" ".join(text.split()), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)
    except ValueError:
        return None


def parse_session_date(text: str) -> date | None:
    """'1:56 pm on 8 May, 2023' -> 2023-05-08 (None when it is not in that shape)."""
    when = parse_session_time(text)
    return when.date() if when else None


def split_evidence(raw: str) -> list[str]:
    """Normalise one evidence entry. The dataset has a few malformed ones: several ids in one
    string ('D8:6; D9:17', 'D9:1 D4:4'), a stray colon ('D:11:26'), a zero-padded turn ('D30:05')
    and a bare 'D'. Returns canonical 'D<session>:<turn>' ids (possibly none)."""
    ids = []
    for part in re.split(r"[;,\s]+", raw.strip()):
        match = _DIA_ID.fullmatch(part.replace("D:", "D"))
        if match:
            ids.append(f"D{int(match.group(1))}:{int(match.group(2))}")
    return ids


def normalise_evidence(raw: list[str], known: set[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(existing ids, dropped entries): unparsable entries and ids naming no turn are dropped."""
    kept: list[str] = []
    dropped: list[str] = []
    for entry in raw:
        ids = split_evidence(entry)
        if not ids:
            dropped.append(entry)
        for dia_id in ids:
            if dia_id in known:
                if dia_id not in kept:
                    kept.append(dia_id)
            else:
                dropped.append(dia_id)
    return tuple(kept), tuple(dropped)


def parse_conversation(sample: dict[str, Any]) -> Conversation:
    conv = sample["conversation"]
    turns: list[Turn] = []
    sessions = sorted(int(m.group(1)) for k in conv if (m := _SESSION_KEY.fullmatch(k)))
    for number in sessions:
        when = parse_session_time(str(conv.get(f"session_{number}_date_time", "")))
        for turn in conv[f"session_{number}"]:
            caption = turn.get("blip_caption")
            turns.append(
                Turn(
                    dia_id=str(turn["dia_id"]),
                    speaker=str(turn["speaker"]),
                    text=str(turn["text"]),
                    session=number,
                    said_at=when,
                    caption=str(caption) if caption else None,
                )
            )
    known = {t.dia_id for t in turns}
    questions = []
    for qa in sample["qa"]:
        category = int(qa["category"])
        if category not in CATEGORIES:
            continue  # category 5 (adversarial) has no answer in the conversation by design
        raw = [str(e) for e in qa.get("evidence", [])]
        kept, dropped = normalise_evidence(raw, known)
        questions.append(Question(str(qa["question"]), category, kept, tuple(raw), dropped, str(qa.get("answer", ""))))
    return Conversation(str(sample["sample_id"]), turns, questions)


def load(path: Path = DEFAULT_PATH) -> list[Conversation]:
    if not path.is_file():
        raise FileNotFoundError(f"LoCoMo data not found at {path} (see ../shared/bench/README.md)")
    return [parse_conversation(sample) for sample in json.loads(path.read_text(encoding="utf-8"))]
