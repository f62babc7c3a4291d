"""FactExtractor without an LLM: deterministic rules over first-person statements.

Used when no LLM is configured, and as the preference shortcut: when `understands()`
says every user sentence was matched, the pipeline may skip the LLM and use these facts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from functools import lru_cache

from engram.domain.models import CandidateFact, ExtractionPrompt, Message, Scope, Usage, utcnow
from engram.offline.facts import latest
from engram.offline.patterns import ClauseResult, analyse_agent_message, analyse_message


class OfflineExtractor:
    """Implements the FactExtractor port; usage is always zero (no LLM calls)."""

    def __init__(self, clock: Callable[[], datetime] = utcnow) -> None:
        self.clock = clock

    def extract(
        self, messages: Sequence[Message], prompt: ExtractionPrompt, scope: Scope
    ) -> tuple[list[CandidateFact], Usage]:
        return self._facts(messages, prompt)[0], Usage()

    def understands(self, messages: Sequence[Message], prompt: ExtractionPrompt = ExtractionPrompt.USER) -> bool:
        """True when every clause with content was matched by a rule (small talk counts as
        understood and empty), so an LLM would find nothing these rules missed."""
        return all(result.understood for result in self._analyse(messages, prompt))

    def shortcut(
        self, messages: Sequence[Message], prompt: ExtractionPrompt = ExtractionPrompt.USER
    ) -> list[CandidateFact] | None:
        """The facts when the rules understood everything, else None (ask the LLM)."""
        facts, understood = self._facts(messages, prompt)
        return facts if understood else None

    def _facts(self, messages: Sequence[Message], prompt: ExtractionPrompt) -> tuple[list[CandidateFact], bool]:
        """The latest fact per key, each with the index of its message; and whether every clause
        was understood."""
        facts: list[CandidateFact] = []
        understood = True
        for index, message in enumerate(messages):
            for result in self._analyse([message], prompt):
                understood = understood and result.understood
                facts += [fact.model_copy(update={"message_index": index}) for fact in result.facts]
        return [fact for _, fact in latest(facts)], understood

    def _analyse(self, messages: Sequence[Message], prompt: ExtractionPrompt) -> list[ClauseResult]:
        # The user prompt reads only what the user said; the agent prompt only what the assistant said.
        if prompt is ExtractionPrompt.AGENT:
            return [r for m in messages if m.role == "assistant" for r in analyse_agent_message(m.content)]
        # Messages carry no time of their own; extraction runs right after the add, so now is when they were said.
        # Whole seconds: relative dates resolve to days, and an add's shortcut and episode checks ask
        # about the same message within milliseconds (the cache answers the second).
        at = self.clock().replace(microsecond=0)
        return [r for m in messages if m.role == "user" for r in _analysed(m.content, at)]


@lru_cache(maxsize=256)
def _analysed(text: str, at: datetime) -> tuple[ClauseResult, ...]:
    return tuple(analyse_message(text, at))
