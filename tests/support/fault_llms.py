"""LLM stand-ins for the fault tests: one fact per user message, said a little differently each time
the same conversation is asked about again (as a real model does), and a flaky one that breaks its
JSON a given share of the time."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

from engram.domain.models import Usage
from engram.domain.steps import LLMReply


def said(user_prompt: str) -> list[str]:
    """The user messages of an extraction prompt ("user: ..." lines)."""
    return [line.split(": ", 1)[1] for line in user_prompt.splitlines() if line.startswith(("user: ", "user ("))]


def fact_of(message: str) -> str:
    """The fact the stand-ins extract from a message: "I like tea." -> "I like tea"."""
    return message.strip().rstrip(".")


class RephrasingLLM:
    """Extracts each user message as a fact; asked about the same conversation again, it answers
    with other words' casing and punctuation (same meaning, other text: a new id if stored again)."""

    def __init__(self) -> None:
        self.asked: Counter[str] = Counter()
        self.calls = 0

    def complete_json(self, system: str, user: str, schema: dict[str, Any], schema_name: str) -> LLMReply:
        self.calls += 1
        if schema_name != "facts":
            raise AssertionError(f"unexpected {schema_name} call: each user says one thing once")
        conversation = user.split("\n\nYour previous answer", 1)[0]
        self.asked[conversation] += 1
        again = self.asked[conversation] > 1
        facts = [f"{fact_of(m).lower()}." if again else fact_of(m) for m in said(conversation)]
        return LLMReply(content=_facts(facts), usage=Usage(llm_calls=1))


def _facts(texts: list[str]) -> str:
    return json.dumps({"facts": [{"text": t, "memory_bank": "General", "importance": 0.5} for t in texts]})


# Broken replies a model sends: none of them can be read as the facts asked for.
BROKEN = {
    "truncated": lambda good: good[: len(good) // 2],
    "prose only": lambda good: "Sure! Here are the facts I found in the conversation.",
    "wrong key": lambda good: good.replace('"facts"', '"fact"'),
    "fact without text": lambda good: good.replace('"text"', '"txt"', 1),
    "a bare list": lambda good: json.dumps(json.loads(good)["facts"]),
    "empty": lambda good: "",
    "trailing garbage inside": lambda good: good[:-2] + ",}",
}
# Replies that are still the right JSON once unwrapped (parse_json_loosely repairs them).
REPAIRABLE = {
    "fenced": lambda good: f"```json\n{good}\n```",
    "wrapped in prose": lambda good: f"Here you go:\n{good}\nHope this helps.",
}


class FlakyLLM:
    """Extracts each user message as a fact, but `rate` of its replies (seeded) are malformed:
    mostly broken beyond repair, some only wrapped. A conversation saying a word of `hopeless` only
    ever gets broken ones."""

    def __init__(self, rate: float, seed: int, hopeless: frozenset[str] = frozenset()) -> None:
        self.rate = rate
        self.rng = random.Random(seed)
        self.hopeless = hopeless
        self.served: Counter[str] = Counter()

    def complete_json(self, system: str, user: str, schema: dict[str, Any], schema_name: str) -> LLMReply:
        if schema_name != "facts":
            raise AssertionError(f"unexpected {schema_name} call: each user says one thing once")
        facts = [fact_of(m) for m in said(user.split("\n\nYour previous answer", 1)[0])]
        good = _facts(facts)
        hopeless = any(name in user for name in self.hopeless)
        if hopeless or self.rng.random() < self.rate:
            kinds = sorted(BROKEN) if hopeless else sorted(BROKEN) + sorted(REPAIRABLE)
            kind = self.rng.choice(kinds)
            self.served["broken" if kind in BROKEN else "repairable"] += 1
            return LLMReply(content={**BROKEN, **REPAIRABLE}[kind](good), usage=Usage(llm_calls=1))
        self.served["good"] += 1
        return LLMReply(content=good, usage=Usage(llm_calls=1))
