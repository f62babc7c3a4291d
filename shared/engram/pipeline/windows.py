"""Conversations cut into windows an extractor can read in one go: every message in some window,
nothing dropped, message order kept."""

from __future__ import annotations

import re
from collections.abc import Sequence

from engram.domain.models import Message

DEFAULT_WINDOW_CHARS = 12_000  # about 3,000 tokens of conversation per extraction call
_BREAK = re.compile(r"(?<=[.!?\n])\s+")


def split_text(text: str, limit: int) -> list[str]:
    """Pieces of at most `limit` characters, cut after a sentence where one ends in time, else at a
    space, else anywhere."""
    pieces: list[str] = []
    rest = text
    while len(rest) > limit:
        head = rest[:limit]
        cut = max((m.end() for m in _BREAK.finditer(head)), default=0) or head.rfind(" ") + 1 or limit
        pieces.append(rest[:cut].strip())
        rest = rest[cut:]
    if rest.strip():
        pieces.append(rest.strip())
    return [p for p in pieces if p]


def windows(messages: Sequence[Message], limit: int = DEFAULT_WINDOW_CHARS) -> list[list[Message]]:
    """Consecutive messages packed into windows of at most `limit` characters of content; a message
    longer than a window is split across windows of its own."""
    if limit < 1:
        raise ValueError("limit must be positive")
    found: list[list[Message]] = []
    current: list[Message] = []
    size = 0
    for message in messages:
        parts = split_text(message.content, limit) if len(message.content) > limit else [message.content]
        for part in parts:
            if current and size + len(part) > limit:
                found.append(current)
                current, size = [], 0
            current.append(message if part is message.content else message.model_copy(update={"content": part}))
            size += len(part)
    if current:
        found.append(current)
    return found
