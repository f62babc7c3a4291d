"""Redaction of what an add, a correction or an import brings, before the API stores any of it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from engram.domain.models import Message
from engram.domain.policy import RedactKind
from engram.safety.redaction import redact

REDACTED = "redacted"  # the task's count of spans replaced by a placeholder


def redact_messages(messages: list[Message], kinds: Iterable[RedactKind]) -> tuple[list[Message], Counter[RedactKind]]:
    """Each message's content with the spans of `kinds` (credentials always) replaced; what was found."""
    wanted = frozenset(kinds)
    found: Counter[RedactKind] = Counter()
    out = []
    for message in messages:
        result = redact(message.content, wanted)
        found += result.found
        out.append(message if not result.found else message.model_copy(update={"content": result.text}))
    return out, found
