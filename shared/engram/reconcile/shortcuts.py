"""Preference shortcuts: what the offline rules fully understand skips the LLM."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engram.domain.models import Attachment, ExtractionPrompt, Fact, Message, ReconcileStrategy, Scope, Usage
from engram.domain.ports import FactExtractor, Reconciler
from engram.domain.steps import CandidateFact, Decision
from engram.rules.extractor import OfflineExtractor


class ShortcutExtractor:
    """The rules' facts when they understood every statement; otherwise the LLM's."""

    reads_instructions = True

    def __init__(self, rules: OfflineExtractor, llm: FactExtractor) -> None:
        self._rules = rules
        self._llm = llm

    def extract(
        self, messages: Sequence[Message], prompt: ExtractionPrompt, scope: Scope
    ) -> tuple[list[CandidateFact], Usage]:
        facts = self._rules.shortcut(messages, prompt)
        if facts is not None:
            return facts, Usage()
        return self._llm.extract(messages, prompt, scope)

    def shortcut(self, messages: Sequence[Message], prompt: ExtractionPrompt) -> list[CandidateFact] | None:
        """The rules' facts when they understood every statement, else None."""
        return self._rules.shortcut(messages, prompt)

    def understands(self, messages: Sequence[Message], prompt: ExtractionPrompt = ExtractionPrompt.USER) -> bool:
        """Whether the rules read every statement (then no episode is kept for these messages)."""
        return self._rules.understands(messages, prompt)

    def cut_short(self, messages: Sequence[Message], prompt: ExtractionPrompt = ExtractionPrompt.USER) -> list[int]:
        """The messages the rules ran out of time on (the LLM then reads them whole)."""
        return self._rules.cut_short(messages, prompt)


class ShortcutReconciler:
    """Key rules decide when every new fact carries a key a rule gave it; else the LLM. (An LLM's
    keys are free-form, so facts it extracted are always decided by the LLM.)"""

    def __init__(self, rules: Reconciler, llm: Reconciler) -> None:
        self._rules = rules
        self._llm = llm

    def reconcile(
        self,
        facts: Sequence[CandidateFact],
        existing: Sequence[Fact],
        strategy: ReconcileStrategy,
        conversation: str,
        attachments: Mapping[str, Attachment] | None = None,
    ) -> tuple[list[Decision], Usage]:
        decider = self._rules if facts and all(f.fact_key and not f.by_llm for f in facts) else self._llm
        return decider.reconcile(facts, existing, strategy, conversation, attachments=attachments)
