"""Messages as the text an extractor reads: the transcript, when its last message was said, which prompt fits."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from engram.domain.models import ExtractionPrompt, Message


def parse_messages(messages: Sequence[Message]) -> str:
    """'role (name, when said): content' lines; system messages are instructions, not conversation.
    The time lets the LLM resolve "yesterday" against the day it was said, not the day it reads it."""
    return "\n".join(f"{_speaker(m)}: {m.content}" for m in messages if m.role != "system")


def _speaker(message: Message) -> str:
    about = [message.name] if message.name else []
    if message.created_at is not None:
        about.append(f"{message.created_at:%Y-%m-%d %H:%M} UTC")
    return f"{message.role} ({', '.join(about)})" if about else message.role


def said_last(messages: Sequence[Message]) -> datetime | None:
    """When the last of these messages was said (the 'today' of a prompt about them)."""
    times = [m.created_at for m in messages if m.created_at is not None]
    return max(times) if times else None


def choose_prompt(messages: Sequence[Message], requested: ExtractionPrompt | None) -> ExtractionPrompt:
    """The agent prompt only when the assistant speaks and the user does not (or when asked)."""
    if requested is not None:
        return requested
    roles = {m.role for m in messages}
    if "assistant" in roles and "user" not in roles:
        return ExtractionPrompt.AGENT
    return ExtractionPrompt.USER
