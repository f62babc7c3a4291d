"""Prompt texts (in engram/prompts/*.txt) and the JSON schemas the LLM must answer with."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from functools import cache
from importlib import resources
from typing import Any

from engram.domain.models import Event, ExtractionPrompt, MemoryBank

BANKS = [bank.value for bank in MemoryBank]


@cache
def _load(name: str) -> str:
    return resources.files("engram").joinpath("prompts", f"{name}.txt").read_text(encoding="utf-8")


def extraction_system_prompt(kind: ExtractionPrompt, today: datetime | None = None) -> str:
    day = (today or datetime.now(UTC)).date().isoformat()
    return _load(f"extract_{kind.value}").replace("{today}", day)


def load_prompt(name: str) -> str:
    return _load(name)


def reconcile_system_prompt(name: str) -> str:
    return _load(f"reconcile_{name}")


def with_attachments_instructions(system: str) -> str:
    """The reconciliation prompt plus the attachment rules (where each attachment goes; none is
    lost), for calls that have any."""
    answer_line = system.rstrip().rsplit("\n", 1)
    rules = _load("reconcile_attachments").rstrip()
    example = (
        'Answer with JSON only: {"memory": [{"id": "0", "text": "...", "event": "ADD|UPDATE|DELETE|NONE", '
        '"old_memory": "... or null", "attachments": ["A1"]}]}'
    )
    return f"{answer_line[0].rstrip()}\n{rules}\n\n{example}\n"


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
                },
                "required": ["text", "fact_key", "fact_value", "memory_bank", "importance"],
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
    if with_attachments:
        item["properties"]["attachments"] = {"type": "array", "items": {"type": "string"}}
        item["required"].append("attachments")
    return {
        "type": "object",
        "properties": {"memory": {"type": "array", "items": item}},
        "required": ["memory"],
        "additionalProperties": False,
    }


RELEVANCE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "operations": {
            "type": "array",
            "items": {
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
            },
        }
    },
    "required": ["operations"],
    "additionalProperties": False,
}


def reconcile_user_message(existing: list[dict[str, Any]], facts: list[Any]) -> str:
    """The user turn of the default reconciliation call: current memories, then new facts."""
    current = json.dumps(existing, ensure_ascii=False, indent=2) if existing else "[]"
    new = json.dumps(facts, ensure_ascii=False, indent=2)
    return "Current memories:\n```\n" + current + "\n```\n\nNew facts:\n```\n" + new + "\n```\n"


def relevance_user_message(message: str, existing: list[dict[str, Any]], facts: list[dict[str, Any]]) -> str:
    lines = [f"[ID: {m['id']}] {m['text']}" for m in existing] or ["No existing memories."]
    return (
        f'User message: "{message}"\n'
        f"Potential memories:\n{json.dumps(facts, ensure_ascii=False)}\n"
        "Existing memories:\n" + "\n".join(lines) + "\n"
    )
