"""Episodes: messages kept in their own words beside the facts read from them.

Rules (and even an LLM) recognise only some of what people say; a message that states something
the extractor did not fully read is kept as given, so nothing said is lost. Greetings, thanks,
filler and questions state nothing and are not kept. A message whose every statement the offline
rules understood is not kept either: its facts already say all it says.

Independently of that choice, an add with attachments from which nothing at all was extracted
keeps its messages as given, so no uploaded attachment ends up held by no memory.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from engram.domain.models import ExtractionPrompt, Message
from engram.domain.steps import CandidateFact
from engram.pipeline.parts import spans
from engram.text.clauses import is_question, is_small_talk, split_clauses, split_sentences

KEPT_FOR_ATTACHMENTS = "kept as given: no fact was extracted and the message carries attachments"
EPISODE_IMPORTANCE = 0.4  # below any recognised fact: the facts read from it say what matters


@runtime_checkable
class UnderstandsMessages(Protocol):
    """An extractor that can tell when it read every statement of some messages."""

    def understands(self, messages: Sequence[Message], prompt: ExtractionPrompt = ...) -> bool: ...


@runtime_checkable
class CutsShort(Protocol):
    """An extractor that reads each message within a time budget and says which ran out."""

    def cut_short(self, messages: Sequence[Message], prompt: ExtractionPrompt = ...) -> list[int]: ...


CUT_SHORT = "extraction cut short (the message's time budget ran out): kept as said"


def states_something(text: str) -> bool:
    """True when a sentence is neither a question nor only greetings, thanks and filler."""
    for sentence in split_sentences(text):
        if is_question(sentence):
            continue
        if any(not is_small_talk(clause) for clause in split_clauses(sentence)):
            return True
    return False


def read_role(prompt: ExtractionPrompt) -> str:
    return "assistant" if prompt is ExtractionPrompt.AGENT else "user"


def as_given(message: Message, index: int, **fields: object) -> list[CandidateFact]:
    """A message as said: one memory, or parts of a long one at sentence boundaries (pipeline/parts.py)."""
    content = message.content
    found = spans(content)
    whole = len(found) == 1
    return [
        CandidateFact(text=content[a:b], message_index=index, span=None if whole else (a, b), **fields)
        for a, b in found
    ]


def _episode(message: Message, index: int) -> list[CandidateFact]:
    return as_given(message, index, kind="episode", importance=EPISODE_IMPORTANCE)


ASSISTANT_IMPORTANCE = 0.3  # what the assistant said: below what the user said of themselves


def episodes(
    messages: Sequence[Message], prompt: ExtractionPrompt, extractor: object, assistant_turns: bool = False
) -> list[CandidateFact]:
    """One episode per message (of the side the prompt reads) that states something the extractor
    did not fully understand; with `assistant_turns`, also each assistant message of a conversation
    the user prompt reads ("what was the restaurant you recommended?" is answered by the assistant)."""
    role = read_role(prompt)
    kept: list[CandidateFact] = []
    for index, message in enumerate(messages):
        if assistant_turns and role == "user" and message.role == "assistant":
            if states_something(message.content):
                kept += as_given(message, index, kind="episode", importance=ASSISTANT_IMPORTANCE)
            continue
        if message.role != role or not states_something(message.content):
            continue
        if isinstance(extractor, UnderstandsMessages) and extractor.understands([message], prompt):
            continue
        kept += _episode(message, index)
    return kept


def kept_for_attachments(messages: Sequence[Message], prompt: ExtractionPrompt) -> list[CandidateFact]:
    """The messages as given (those of the side the prompt reads, else any but system), for an add
    whose attachments would otherwise be held by nothing."""
    role = read_role(prompt)
    chosen = [(i, m) for i, m in enumerate(messages) if m.role == role] or [
        (i, m) for i, m in enumerate(messages) if m.role != "system"
    ]
    return [part for index, message in chosen for part in _episode(message, index)]
