"""Prompt texts (in engram/prompts/*.txt) and the JSON schemas the LLM must answer with.

An add's memory policy (domain/policy.py) shapes the prompts of its run: its custom prompts replace
the built-in ones and its instructions, include and exclude are added to each. The LLM steps are
built once per container and shared by every tenant, so the run's policy is set here, for the
duration of the run (`using_policy`), rather than passed through every port."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from functools import cache
from importlib import resources
from typing import Any, get_args

from engram.domain.models import Event, ExtractionPrompt, MemoryBank
from engram.domain.policy import MemoryPolicy
from engram.domain.statements import Polarity

BANKS = [bank.value for bank in MemoryBank]
_POLICY: ContextVar[MemoryPolicy | None] = ContextVar("engram_memory_policy", default=None)


@contextmanager
def using_policy(policy: MemoryPolicy | None) -> Iterator[None]:
    """The prompts built inside follow `policy` (None: the built-in prompts as they are)."""
    token = _POLICY.set(policy)
    try:
        yield
    finally:
        _POLICY.reset(token)


def policy_text(policy: MemoryPolicy | None = None) -> str:
    """The operator's instructions and include/exclude lists, as the prompts state them ("" when none)."""
    policy = policy or _POLICY.get()
    if policy is None:
        return ""
    lines = []
    if policy.instructions.strip():
        lines.append(f"Operator instructions (follow them):\n{policy.instructions.strip()}")
    if policy.include:
        lines.append("Keep only facts about these memory banks or topics: " + "; ".join(policy.include) + ".")
    if policy.exclude:
        lines.append("Never keep anything about these memory banks or topics: " + "; ".join(policy.exclude) + ".")
    return "\n".join(lines)


def _with_policy(system: str) -> str:
    """`system` with the policy's text before its closing answer line (or at its end when it has none)."""
    added = policy_text()
    if not added:
        return system
    head, _, last = system.rstrip().rpartition("\n")
    if head and last.startswith("Answer with JSON"):
        return f"{head.rstrip()}\n\n{added}\n\n{last}\n"
    return f"{system.rstrip()}\n\n{added}\n"


def custom_prompt(step: str) -> str | None:
    """The run's custom prompt for `step` (extraction, reconcile, graph), if the tenant set one."""
    policy = _POLICY.get()
    return getattr(policy.prompts, step) if policy is not None else None


@cache
def _load(name: str) -> str:
    return resources.files("engram").joinpath("prompts", f"{name}.txt").read_text(encoding="utf-8")


def extraction_system_prompt(kind: ExtractionPrompt, today: datetime | None = None) -> str:
    day = (today or datetime.now(UTC)).date().isoformat()
    return _with_policy((custom_prompt("extraction") or _load(f"extract_{kind.value}")).replace("{today}", day))


def load_prompt(name: str) -> str:
    return _load(name)


def reconcile_system_prompt(name: str) -> str:
    """A custom reconcile prompt replaces the default strategy's (the relevance strategy answers otherwise)."""
    custom = custom_prompt("reconcile") if name == "default" else None
    return _with_policy(custom or _load(f"reconcile_{name}"))


def graph_system_prompt(built_in: str) -> str:
    return _with_policy(custom_prompt("graph") or built_in)


def with_attachments_instructions(system: str, relevance: bool = False) -> str:
    """The reconciliation prompt plus the attachment rules (where each attachment goes; none is
    lost), for calls that have any; the relevance strategy's rules speak of its own operations."""
    answer_line = system.rstrip().rsplit("\n", 1)
    if relevance:
        rules = _load("reconcile_relevance_attachments").rstrip()
        example = (
            'Answer with JSON only: {"operations": [{"operation": "NEW|UPDATE|DELETE", "id": "existing id or null", '
            '"content": "...", "importance": 0.0, "relevance": 0.0, "reasoning": "...", "attachments": ["A1"]}]}'
        )
    else:
        rules = _load("reconcile_attachments").rstrip()
        example = (
            'Answer with JSON only: {"memory": [{"id": "0", "text": "...", "event": "ADD|UPDATE|DELETE|NONE", '
            '"old_memory": "... or null", "attachments": ["A1"]}]}'
        )
    return f"{answer_line[0].rstrip()}\n{rules}\n\n{example}\n"


MAX_STATEMENTS = 3  # per fact, in the model's answer (strict structured outputs accept maxItems)
# What a fact states (domain/statements.py), as the model gives it; its event time is the message's.
STATEMENT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "subject": {"type": "string"},
        "attribute": {"type": "string"},
        "value": {"type": "string"},
        "polarity": {"type": "string", "enum": list(get_args(Polarity))},
        "single": {"type": "boolean"},
    },
    "required": ["subject", "attribute", "value", "polarity", "single"],
    "additionalProperties": False,
}

EXTRACTION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "facts": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "text": {"type": "string"},
                    "fact_key": {"type": ["string", "null"]},
                    "fact_value": {"type": ["string", "null"]},
                    "memory_bank": {"type": "string", "enum": BANKS},
                    "importance": {"type": "number"},
                    # Bounded: a small model otherwise repeats one statement until its answer is cut off.
                    "statements": {"type": "array", "items": STATEMENT_SCHEMA, "maxItems": MAX_STATEMENTS},
                },
                "required": ["text", "fact_key", "fact_value", "memory_bank", "importance", "statements"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["facts"],
    "additionalProperties": False,
}


def reconcile_schema(with_attachments: bool = False) -> dict[str, Any]:
    item: dict[str, Any] = {
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "text": {"type": "string"},
            "event": {"type": "string", "enum": [e.value for e in Event]},
            "old_memory": {"type": ["string", "null"]},
        },
        "required": ["id", "text", "event", "old_memory"],
        "additionalProperties": False,
    }
    return _list_of("memory", item, with_attachments)


def relevance_schema(with_attachments: bool = False) -> dict[str, Any]:
    item: dict[str, Any] = {
        "type": "object",
        "properties": {
            "operation": {"type": "string", "enum": ["NEW", "UPDATE", "DELETE"]},
            "id": {"type": ["string", "null"]},
            "content": {"type": "string"},
            "importance": {"type": "number"},
            "relevance": {"type": "number"},
            "reasoning": {"type": "string"},
        },
        "required": ["operation", "id", "content", "importance", "relevance", "reasoning"],
        "additionalProperties": False,
    }
    return _list_of("operations", item, with_attachments)


def _list_of(key: str, item: dict[str, Any], with_attachments: bool) -> dict[str, Any]:
    """An answer that is one list of `item`s under `key`; each item names its attachments when asked."""
    if with_attachments:
        item["properties"]["attachments"] = {"type": "array", "items": {"type": "string"}}
        item["required"].append("attachments")
    return {
        "type": "object",
        "properties": {key: {"type": "array", "items": item}},
        "required": [key],
        "additionalProperties": False,
    }


def reconcile_user_message(existing: list[dict[str, Any]], facts: list[Any]) -> str:
    """The user turn of the default reconciliation call: current memories, then new facts."""
    current = json.dumps(existing, ensure_ascii=False, indent=2) if existing else "[]"
    new = json.dumps(facts, ensure_ascii=False, indent=2)
    return "Current memories:\n```\n" + current + "\n```\n\nNew facts:\n```\n" + new + "\n```\n"


def relevance_user_message(
    message: str, existing: list[dict[str, Any]], facts: list[dict[str, Any]], legend: str = ""
) -> str:
    """The user turn of the relevance call; `legend` says what each attachment short id is (if any)."""
    lines = [f"[ID: {m['id']}] {m['text']}{_held(m)}" for m in existing] or ["No existing memories."]
    text = (
        f'User message: "{message}"\n'
        f"Potential memories:\n{json.dumps(facts, ensure_ascii=False)}\n"
        "Existing memories:\n" + "\n".join(lines) + "\n"
    )
    return f"{text}\nAttachments:\n{legend}\n" if legend else text


def _held(memory: dict[str, Any]) -> str:
    held = memory.get("attachments")
    return f" (attachments: {', '.join(held)})" if held else ""
