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

from engram.domain.models import CandidateFact, ExtractionPrompt, Message
from engram.offline.text import is_question, is_small_talk, split_clauses, split_sentences

KEPT_FOR_ATTACHMENTS = "kept as given: no fact was extracted and the message carries attachments"
EPISODE_IMPORTANCE = 0.4  # below any recognised fact: the facts read from it say what matters


@runtime_checkable
class UnderstandsMessages(Protocol):
    """An extractor that can tell when it read every statement of some messages."""

    def understands(self, messages: Sequence[Message], prompt: ExtractionPrompt = ...) -> bool: ...


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


def _episode(message: Message, index: int) -> CandidateFact:
    return CandidateFact(
        text=message.content.strip(), kind="episode", message_index=index, importance=EPISODE_IMPORTANCE
    )


def episodes(messages: Sequence[Message], prompt: ExtractionPrompt, extractor: object) -> list[CandidateFact]:
    """One episode per message (of the side the prompt reads) that states something the extractor
    did not fully understand."""
    role = read_role(prompt)
    kept: list[CandidateFact] = []
    for index, message in enumerate(messages):
        if message.role != role or not states_something(message.content):
            continue
        if isinstance(extractor, UnderstandsMessages) and extractor.understands([message], prompt):
            continue
        kept.append(_episode(message, index))
    return kept


def kept_for_attachments(messages: Sequence[Message], prompt: ExtractionPrompt) -> list[CandidateFact]:
    """The messages as given (those of the side the prompt reads, else any but system), for an add
    whose attachments would otherwise be held by nothing."""
    role = read_role(prompt)
    chosen = [(i, m) for i, m in enumerate(messages) if m.role == role] or [
        (i, m) for i, m in enumerate(messages) if m.role != "system"
    ]
    return [_episode(message, index) for index, message in chosen]
