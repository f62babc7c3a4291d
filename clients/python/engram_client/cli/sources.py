"""What `engram import` reads, as units of work (one add call each), in the order they must be stored:
an Engram export (JSONL, one memory a line after a header), a JSONL of chat messages, or a LoCoMo-style
conversation (JSON: speaker_a/speaker_b and session_N lists of {speaker, dia_id, text})."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

EXPORT_TYPE = "engram-export"
_SESSION = re.compile(r"^session_(\d+)$")


@dataclass
class Unit:
    """One add call: messages for a user, or one exported memory to restore."""

    user_id: str
    messages: list[dict[str, Any]] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    memory: dict[str, Any] | None = None  # an exported memory (text, metadata, attachments, ...)
    relation: dict[str, Any] | None = None  # an exported graph relation (its line's type is "relation")


class SourceError(ValueError):
    """The file is none of the formats `engram import` reads; the message says what was wrong where."""


def read_units(path: Path, user_id: str | None, batch: int) -> list[Unit]:
    text = path.read_text(encoding="utf-8")
    stripped = text.lstrip()
    if not stripped:
        return []
    first_line = stripped.splitlines()[0]
    try:
        head = json.loads(first_line)
    except json.JSONDecodeError:
        head = None
    if isinstance(head, dict) and head.get("type") == EXPORT_TYPE:
        return list(_export_units(stripped.splitlines()[1:], user_id, head.get("user_id")))
    if head is None or isinstance(head, list) or _is_locomo(head):
        data = json.loads(stripped)
        samples = data if isinstance(data, list) else [data]
        return [unit for sample in samples for unit in _locomo_units(sample, user_id)]
    if not user_id:
        raise SourceError("a JSONL of messages needs --user-id")
    return _message_units(stripped.splitlines(), user_id, batch)


def _is_locomo(head: Any) -> bool:
    return isinstance(head, dict) and "conversation" in head


def _export_units(lines: list[str], user_id: str | None, exported_user: Any = None) -> Iterator[Unit]:
    for number, line in enumerate(lines, start=2):
        if not line.strip():
            continue
        try:
            memory = json.loads(line)
        except json.JSONDecodeError as err:
            raise SourceError(f"line {number}: not JSON ({err.msg})") from err
        if isinstance(memory, dict) and memory.get("type") == "relation":
            if not (user_id or exported_user):
                raise SourceError(f"line {number}: a relation of an export whose header names no user_id")
            yield Unit(user_id=str(user_id or exported_user), relation=memory)
        else:
            yield Unit(user_id=user_id or memory["user_id"], memory=memory)


def _message_units(lines: list[str], user_id: str, batch: int) -> list[Unit]:
    messages: list[dict[str, Any]] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            message = json.loads(line)
        except json.JSONDecodeError as err:
            raise SourceError(f"line {number}: not JSON ({err.msg})") from err
        if not isinstance(message, dict) or not isinstance(message.get("content"), str):
            raise SourceError(f'line {number}: expected {{"role": ..., "content": "..."}}')
        messages.append({"role": message.get("role", "user"), "content": message["content"]})
    return [Unit(user_id, messages[i : i + batch]) for i in range(0, len(messages), batch)]


def _locomo_units(sample: dict[str, Any], user_id: str | None) -> Iterator[Unit]:
    conversation = sample.get("conversation")
    if not isinstance(conversation, dict):
        raise SourceError("a LoCoMo sample needs a 'conversation' object")
    user = user_id or f"locomo-{sample.get('sample_id', 'conversation')}"
    sessions = sorted(
        (int(m.group(1)), key) for key in conversation if (m := _SESSION.match(key)) and conversation[key]
    )
    for number, key in sessions:
        messages = []
        for turn in conversation[key]:
            caption = f" [shares a photo: {turn['blip_caption']}]" if turn.get("blip_caption") else ""
            messages.append({"role": "user", "content": f"{turn['speaker']}: {turn['text']}{caption}"})
        metadata: dict[str, Any] = {"session": number}
        if conversation.get(f"{key}_date_time"):
            metadata["session_date"] = str(conversation[f"{key}_date_time"])
        yield Unit(user, messages, metadata)
