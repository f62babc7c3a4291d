"""Step 2 with an LLM: extract candidate facts with the user or agent extraction prompt."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engram.domain.models import ExtractionPrompt, MemoryBank, Message, Scope, Usage
from engram.domain.ports import LLM
from engram.domain.steps import CandidateFact
from engram.pipeline.windows import DEFAULT_WINDOW_CHARS, windows
from engram.reconcile.llm import bounded_importance
from engram.reconcile.llm_json import ask_json
from engram.reconcile.prompts import EXTRACTION_SCHEMA, extraction_system_prompt
from engram.text.transcript import parse_messages, said_last


def interpret_facts(answer: Any) -> list[CandidateFact]:
    if not isinstance(answer, dict) or not isinstance(answer.get("facts"), list):
        raise ValueError('expected {"facts": [...]}')
    facts: list[CandidateFact] = []
    for item in answer["facts"]:
        if isinstance(item, str):  # older prompts answer with bare strings
            item = {"text": item}
        if not isinstance(item, dict) or not str(item.get("text", "")).strip():
            raise ValueError(f"fact without text: {item!r}")
        bank = item.get("memory_bank")
        importance, repaired = bounded_importance(item.get("importance", 0.5))
        key, value = item.get("fact_key"), item.get("fact_value")
        facts.append(
            CandidateFact(
                text=str(item["text"]).strip(),
                fact_key=key.strip() or None if isinstance(key, str) else None,
                fact_value=value.strip() or None if isinstance(value, str) else None,
                by_llm=True,
                memory_bank=MemoryBank(str(bank)) if bank in MemoryBank._value2member_map_ else MemoryBank.GENERAL,
                importance=0.5 if importance is None else importance,
                note=repaired,
            )
        )
    return facts


class LLMFactExtractor:
    reads_instructions = True  # the policy's instructions are in its prompt (pipeline/ingest.py asks)

    def __init__(self, llm: LLM, window_chars: int = DEFAULT_WINDOW_CHARS) -> None:
        self._llm = llm
        self._window_chars = window_chars

    def extract(
        self, messages: Sequence[Message], prompt: ExtractionPrompt, scope: Scope
    ) -> tuple[list[CandidateFact], Usage]:
        """One call per window of the conversation: a conversation longer than one prompt is read
        whole, window by window, instead of being cut or refused."""
        facts: list[CandidateFact] = []
        usage = Usage()
        for window in windows(messages, self._window_chars):
            conversation = parse_messages(window)
            if not conversation.strip():
                continue
            found, used = ask_json(
                self._llm,
                extraction_system_prompt(prompt, said_last(window)),
                f"Input:\n{conversation}",
                EXTRACTION_SCHEMA,
                "facts",
                interpret_facts,
            )
            facts += found
            usage.add(used)
        return facts, usage
