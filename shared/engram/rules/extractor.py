"""FactExtractor without an LLM: deterministic rules over first-person statements.

Used when no LLM is configured, and as the preference shortcut: when `understands()`
says every user sentence was matched, the pipeline may skip the LLM and use these facts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from functools import lru_cache

from engram.domain.models import ExtractionPrompt, Message, Scope, Usage, utcnow
from engram.domain.steps import CandidateFact
from engram.rules.facts import latest
from engram.rules.patterns import ClauseResult, analyse_agent_message, analyse_message

_NO_TIME = datetime.max.replace(tzinfo=UTC)  # a message without a time was said last (at its add)
DEFAULT_BUDGET_S = 2.0  # CPU seconds per message: the whole extractor reads 100,000 characters in well under one


class OfflineExtractor:
    """Implements the FactExtractor port; usage is always zero (no LLM calls)."""

    def __init__(self, clock: Callable[[], datetime] = utcnow, budget_s: float | None = DEFAULT_BUDGET_S) -> None:
        self.clock = clock
        self.budget_s = budget_s  # CPU seconds per message; past it the rest of the message is not read

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

    def cut_short(self, messages: Sequence[Message], prompt: ExtractionPrompt = ExtractionPrompt.USER) -> list[int]:
        """Indices of the messages whose reading ran out of time (kept as episodes, the task says so)."""
        return [
            index
            for index, message in enumerate(messages)
            if any(result.cut_short for result in self._analyse([message], prompt))
        ]

    def _facts(self, messages: Sequence[Message], prompt: ExtractionPrompt) -> tuple[list[CandidateFact], bool]:
        """The latest fact per key, each with the index of its message; and whether every clause
        was understood."""
        facts: list[CandidateFact] = []
        understood = True
        # In the order things were said, so the newest statement of a key wins, whatever the order sent.
        order = sorted(range(len(messages)), key=lambda i: messages[i].created_at or _NO_TIME)
        for index in order:
            for result in self._analyse([messages[index]], prompt):
                understood = understood and result.understood
                facts += [fact.model_copy(update={"message_index": index}) for fact in result.facts]
        return [fact for _, fact in latest(facts)], understood

    def _analyse(self, messages: Sequence[Message], prompt: ExtractionPrompt) -> list[ClauseResult]:
        # The user prompt reads only what the user said; the agent prompt only what the assistant said.
        if prompt is ExtractionPrompt.AGENT:
            return [r for m in messages if m.role == "assistant" for r in analyse_agent_message(m.content)]
        # Relative dates resolve against when each message was said; a message without a time was said
        # when its add was accepted, which the API stamps on it (else now, for callers without the API).
        # Whole seconds: relative dates resolve to days, and an add's shortcut and episode checks ask
        # about the same message within milliseconds (the cache answers the second).
        now = self.clock().replace(microsecond=0)
        return [
            r
            for m in messages
            if m.role == "user"
            for r in _analysed(m.content, (m.created_at or now).replace(microsecond=0), self.budget_s)
        ]


@lru_cache(maxsize=256)
def _analysed(text: str, at: datetime, budget_s: float | None) -> tuple[ClauseResult, ...]:
    return tuple(analyse_message(text, at, budget_s))
