"""Sentences addressed to the assistant (safety/instructions.py) leave the messages before anything reads
them, so no extractor, LLM or graph step can make a fact about the user of them. Per the tenant's
`stored_instructions`, each is then kept apart as a memory of kind "instruction" with its provenance (the
message it came from, who said it and when), or stored nowhere and reported as skipped."""

from __future__ import annotations

from dataclasses import dataclass

from engram.domain.models import AddRequest, MemoryBank, Message
from engram.domain.policy import Skipped, StoredInstructions
from engram.domain.steps import CandidateFact
from engram.pipeline.policy_screen import Located
from engram.safety.instructions import find, without

ADDRESSED = "addressed to the assistant"


@dataclass
class Screened:
    request: AddRequest  # the messages without the sentences addressed to the assistant
    flagged: list[CandidateFact]  # what to keep apart, as memories of kind "instruction"
    skipped: list[Located]  # what was stored nowhere ("drop")


def screen(request: AddRequest, mode: StoredInstructions) -> Screened:
    """Cut what addresses the assistant out of every message, whoever said it."""
    messages: list[Message] = []
    flagged: list[CandidateFact] = []
    skipped: list[Located] = []
    for index, message in enumerate(request.messages):
        spans = find(message.content) if message.role != "system" else []
        if not spans:
            messages.append(message)
            continue
        messages.append(message.model_copy(update={"content": without(message.content, spans)}))
        for span in spans:
            if mode == "drop":
                skipped.append((index, Skipped(text=span.text, reason=ADDRESSED)))
            else:
                flagged.append(
                    CandidateFact(
                        text=span.text, kind="instruction", message_index=index, memory_bank=MemoryBank.GENERAL
                    )
                )
    if not flagged and not skipped:
        return Screened(request, [], [])
    return Screened(request.model_copy(update={"messages": messages}), flagged, skipped)
