"""One LLM call per add: facts, their reconciliation decisions and the graph's relations together.

The memories a reconciliation would compare against are found before the call, by embedding each
message and searching the index; they are shown under short integer ids as in the separate
reconciliation call. Each part of the answer is checked by the parser of its separate call (a
malformed part is asked again); a missing part leaves that step to its separate call.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from engram.domain.graph import Relation, Triple
from engram.domain.models import ExtractionPrompt, Fact, Message, Usage
from engram.domain.ports import LLM
from engram.domain.steps import CandidateFact, Decision
from engram.graph.llm import SCHEMA as GRAPH_SCHEMA
from engram.graph.llm import SYSTEM as GRAPH_SYSTEM
from engram.graph.llm import GraphContext
from engram.pipeline.llm_extractor import interpret_facts, stamped
from engram.pipeline.windows import DEFAULT_WINDOW_CHARS, windows
from engram.reconcile.checks import PlanChecks
from engram.reconcile.llm import DecisionInterpreter
from engram.reconcile.llm_json import ask_json
from engram.reconcile.prompts import EXTRACTION_SCHEMA, extraction_system_prompt, load_prompt, reconcile_schema
from engram.text.clauses import split_sentences
from engram.text.transcript import parse_messages, said_last

SCHEMA_NAME = "facts_memory_relations"


@dataclass
class OneCallAnswer:
    facts: list[CandidateFact]
    decisions: list[Decision] | None  # None: the reply had no "memory" part (the reconciler decides)
    shown: list[Fact]  # the existing memories the decisions could name
    graph: tuple[list[Triple], list[Relation]] | None  # None: no graph part (the graph step asks itself)
    usage: Usage = field(default_factory=Usage)
    # The current relations of the entities the prompt's graph part listed, as read for it (GraphContext.current)
    relations_read: dict[str, list[Relation]] = field(default_factory=dict)


@dataclass
class _Interpret:
    shown: list[Fact]
    graph: GraphContext | None

    def __call__(self, answer: Any) -> OneCallAnswer:
        if not isinstance(answer, dict):
            raise ValueError('expected {"facts": [...], "memory": [...], ...}')
        facts = interpret_facts({"facts": answer.get("facts")})
        decisions = None
        if answer.get("memory") is not None:
            decisions = DecisionInterpreter(self.shown, facts, relevance=False)({"memory": answer["memory"]})
        graph = None
        if self.graph is not None and answer.get("relations") is not None:
            part = self.graph.interpret(
                {"relations": answer["relations"], "delete": answer.get("delete") or [], "refine": answer.get("refine")}
            )
            graph = self.graph.decided(part)
        read = self.graph.current if self.graph is not None else {}
        return OneCallAnswer(facts, decisions, self.shown, graph, relations_read=read)


def system_prompt(prompt: ExtractionPrompt, with_graph: bool, today: datetime | None = None) -> str:
    extraction = extraction_system_prompt(prompt, today).rstrip().rsplit("\n", 1)[0]  # without its answer line
    parts = [extraction, load_prompt("one_call").rstrip()]
    shape = '{"facts": [{"text": "...", "fact_key": "... or null", "fact_value": "... or null", '
    shape += '"memory_bank": "...", "importance": 0.0, "statements": [{"subject": "user", "attribute": "...", '
    shape += '"value": "...", "polarity": "asserted|ended|denied|hedged|past", "single": true}]}], '
    shape += '"memory": [{"id": "0", "text": "...", '
    shape += '"event": "ADD|UPDATE|DELETE|NONE", "old_memory": "... or null"}]'
    if with_graph:
        parts.append("Finally, for the knowledge graph: " + GRAPH_SYSTEM)
        shape += ', "relations": [{"source": "...", "source_type": "...", "relation": "...", '
        shape += '"destination": "...", "destination_type": "..."}], "delete": [0], '
        shape += '"refine": [{"id": 0, "source": "...", "source_type": "...", "relation": "...", '
        shape += '"destination": "...", "destination_type": "..."}]'
    parts.append(f"Answer with JSON only: {shape}}}")
    return "\n\n".join(parts) + "\n"


def schema(with_graph: bool) -> dict[str, Any]:
    properties: dict[str, Any] = {
        "facts": EXTRACTION_SCHEMA["properties"]["facts"],
        "memory": reconcile_schema()["properties"]["memory"],
    }
    if with_graph:
        properties |= GRAPH_SCHEMA["properties"]
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def user_message(shown: Sequence[Fact], graph: GraphContext | None, messages: Sequence[Message]) -> str:
    current = json.dumps([{"id": str(i), "text": f.text} for i, f in enumerate(shown)], ensure_ascii=False, indent=2)
    text = "Current memories:\n```\n" + current + "\n```\n\n"
    if graph is not None:
        text += f"Existing relations:\n{graph.listing}\n\n"
    return text + f"Input:\n{parse_messages(messages)}"


def queries(messages: Sequence[Message]) -> list[str]:
    """What to search the memories with before the call: each statement of each message (a fact is
    usually one sentence, and a long message's own vector is far from each of its sentences)."""
    found: list[str] = []
    for message in messages:
        if message.role == "system" or not message.content.strip():
            continue
        sentences = [s for s in split_sentences(message.content) if not s.endswith("?") and len(s.split()) >= 3]
        # A lone statement among greetings and questions is searched alone: the whole message's
        # vector can be far from it (LoCoMo: 0.16 from a memory 0.88 from the fact it gave).
        found += sentences or [message.content]
    return list(dict.fromkeys(found))


@runtime_checkable
class _Shortcut(Protocol):
    def shortcut(self, messages: Sequence[Message], prompt: ExtractionPrompt) -> list[CandidateFact] | None: ...


@dataclass
class OneCall:
    llm: LLM
    window_chars: int = DEFAULT_WINDOW_CHARS
    attempts: int = 3
    checks: PlanChecks | None = None  # validate the plan's decisions (reconcile/checks.py) before they apply

    def fits(self, messages: Sequence[Message], prompt: ExtractionPrompt) -> bool:
        """Whether the extractor would read the conversation in one window (longer: separate calls)."""
        del prompt  # the windows do not depend on it
        return len(windows(messages, self.window_chars)) <= 1

    @staticmethod
    def shortcut(extractor: object, messages: Sequence[Message], prompt: ExtractionPrompt) -> bool:
        """Whether the offline rules read every statement (then extraction costs no call at all)."""
        return isinstance(extractor, _Shortcut) and extractor.shortcut(messages, prompt) is not None

    def ask(
        self, messages: Sequence[Message], prompt: ExtractionPrompt, shown: list[Fact], graph: GraphContext | None
    ) -> OneCallAnswer:
        """Raises LLMOutputError when no attempt gave a usable answer."""
        answer, usage = ask_json(
            self.llm,
            system_prompt(prompt, graph is not None, said_last(messages)),
            user_message(shown, graph, messages),
            schema(graph is not None),
            SCHEMA_NAME,
            _Interpret(shown, graph),
            self.attempts,
        )
        answer.usage = usage
        answer.facts = stamped(answer.facts, messages)
        return answer
