"""What flows between the pipeline's steps: facts an extractor found, reconciliation verdicts, an LLM's reply."""

from __future__ import annotations

from pydantic import Field

from engram.domain.limits import Importance
from engram.domain.model_base import Model
from engram.domain.models import Event, MemoryBank, MemoryKind, Usage
from engram.domain.statements import Statement


class CandidateFact(Model):
    """A fact the extractor found in a conversation, before reconciliation."""

    text: str
    fact_key: str | None = None
    fact_value: str | None = None
    memory_bank: MemoryBank = MemoryBank.GENERAL
    importance: Importance = 0.5
    negated: bool = False  # "I don't like X anymore": retires a memory, adds nothing
    attachment_ids: list[str] = Field(default_factory=list)
    message_index: int | None = None  # the message it came from, when the extractor knows it
    by_llm: bool = False  # its key and value are an LLM's reading, not a rule's
    span: tuple[int, int] | None = None  # a part of a long message: its characters [start, end)
    kind: MemoryKind = "fact"
    note: str | None = None  # what validation repaired in it (an LLM's importance of 7), for the task result
    # What the fact states, as the model read it in its call (empty: a rule's fact, or a model that said none).
    statements: list[Statement] = Field(default_factory=list)


class Decision(Model):
    """One reconciliation verdict, with real memory ids (short ids already mapped back)."""

    event: Event
    text: str
    memory_id: str | None = None  # required for UPDATE / DELETE / NONE
    fact_index: int | None = None  # which candidate fact it came from, when known
    old_memory: str | None = None
    importance: Importance | None = None
    attachment_ids: list[str] | None = None  # None: the decider said nothing about attachments
    note: str | None = None  # what validation repaired, for the task result and history
    duplicate: bool = False  # a NONE because the fact is a near-duplicate of a current memory
    statements: list[Statement] | None = None  # an UPDATE's statements when resolution set them (None: as they were)


class LLMReply(Model):
    content: str
    usage: Usage = Field(default_factory=Usage)
