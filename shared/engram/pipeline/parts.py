"""Long messages kept in parts: a 50,000-character message is found by the sentence that answers, and
a search answer stays small. Parts end at sentence boundaries and say which characters of the message
they keep (`span`), so `include=source` and the message index still lead back to the whole."""

from __future__ import annotations

import re

PART_CHARS = 2_000  # a message longer than this is kept in parts of about PART_TARGET characters
PART_TARGET = 1_200
_BOUNDARY = re.compile(r"(?<=[.!?])\s+|\n\s*")  # after a sentence's end mark, or at a line break
_SPACE = re.compile(r"\s")


def spans(text: str, limit: int = PART_CHARS, target: int = PART_TARGET) -> list[tuple[int, int]]:
    """[start, end) spans of `text` without surrounding whitespace: one for a text up to `limit`
    characters, else parts of about `target` cut after sentences (a sentence longer than `limit` is
    cut at a space, or anywhere). Linear in the text's length."""
    start = len(text) - len(text.lstrip())
    end = len(text.rstrip())
    if end - start <= limit:
        return [(start, end)] if end > start else []
    cuts = [m.end() for m in _BOUNDARY.finditer(text, start, end)] + [end]
    out: list[tuple[int, int]] = []
    begin = previous = start
    for cut in cuts:
        if cut - begin > target and previous > begin:  # the part so far is long enough: close it
            out.append((begin, previous))
            begin = previous
        while cut - begin > limit:  # one sentence longer than a part: cut it at a space
            space = _last_space(text, begin + target, begin + limit)
            out.append((begin, space))
            begin = space
        previous = cut
    if end > begin:
        out.append((begin, end))
    return [(s, e) for s, e in ((s + _lead(text, s, e), e - _trail(text, s, e)) for s, e in out) if e > s]


def _last_space(text: str, low: int, high: int) -> int:
    found = [m.start() for m in _SPACE.finditer(text, low, high)]
    return found[-1] + 1 if found else high


def _lead(text: str, start: int, end: int) -> int:
    piece = text[start:end]
    return len(piece) - len(piece.lstrip())


def _trail(text: str, start: int, end: int) -> int:
    piece = text[start:end]
    return len(piece) - len(piece.rstrip())
