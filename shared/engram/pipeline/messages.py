"""Step 1 of the pipeline: messages to the text the extractor reads."""

from __future__ import annotations

from collections.abc import Sequence

from engram.domain.models import ExtractionPrompt, Message


def parse_messages(messages: Sequence[Message]) -> str:
    """'role: content' lines; system messages are instructions, not conversation."""
    return "\n".join(f"{m.role}: {m.content}" for m in messages if m.role != "system")


def choose_prompt(messages: Sequence[Message], requested: ExtractionPrompt | None) -> ExtractionPrompt:
    """The agent prompt only when the assistant speaks and the user does not (or when asked)."""
    if requested is not None:
        return requested
    roles = {m.role for m in messages}
    if "assistant" in roles and "user" not in roles:
        return ExtractionPrompt.AGENT
    return ExtractionPrompt.USER
