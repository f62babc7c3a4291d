"""Answers of the stub LLM, shaped by what each request asks so counts and sizes stay realistic.

A canned '{"facts": []}' would make every ingest look free (nothing to embed, nothing to reconcile).
Instead the stub plays a plausible, instant extractor:
- extraction (Engram's "facts" schema, mem0's "## New Messages" prompt): one fact per declarative
  sentence of at least five words said by the user-side speaker(s), at most three per message line;
  greetings and questions give nothing (a real model skips small talk too);
- reconciliation (Engram's "memory" schema): every new fact is an ADD unless a current memory has the
  same text (then NONE), every current memory a NONE, as a model does when nothing conflicts;
- relevance strategy ("operations"): every fact a NEW;
- the single call (facts, memory and, with the graph on, relations together): the three answers
  above in one object, decided against the current memories the prompt shows.
Token counts come from the stub server (words of prompt and answer).
"""

from __future__ import annotations

import json
import re
from typing import Any

MIN_WORDS = 5
MAX_FACTS_PER_LINE = 3
_SENTENCE = re.compile(r"[^.!?]+[.!?]*")
_SMALL_TALK = ("hey", "hi ", "hi,", "hello", "thanks", "thank you", "wow", "haha", "lol", "congrat", "bye", "see you")
_LINE = re.compile(r"^(user|assistant)(?: \([^)]*\))?: (.*)$")
_FENCED = re.compile(r"```\s*(.*?)\s*```", re.S)


def statements(text: str) -> list[str]:
    """The sentences of `text` a fact extractor would keep (declarative, long enough, not small talk)."""
    kept: list[str] = []
    for match in _SENTENCE.finditer(text):
        sentence = match.group(0).strip()
        if not sentence or sentence.endswith("?") or len(sentence.split()) < MIN_WORDS:
            continue
        if sentence.lower().startswith(_SMALL_TALK):
            continue
        kept.append(sentence.rstrip(".!").strip())
        if len(kept) == MAX_FACTS_PER_LINE:
            break
    return kept


def conversation_facts(conversation: str) -> list[str]:
    """Facts from 'role: content' lines (Engram's extraction input and mem0's parsed messages)."""
    facts: list[str] = []
    for line in conversation.splitlines():
        match = _LINE.match(line.strip())
        if match:
            facts.extend(statements(match.group(2)))
    return list(dict.fromkeys(facts))


def _messages(request: dict[str, Any]) -> tuple[str, str]:
    system = user = ""
    for message in request.get("messages", []):
        if isinstance(message, dict):
            if message.get("role") == "system":
                system += str(message.get("content", ""))
            else:
                user += str(message.get("content", ""))
    return system, user


def _schema_properties(request: dict[str, Any]) -> dict[str, Any]:
    response_format = request.get("response_format") or {}
    schema = (response_format.get("json_schema") or {}).get("schema") or {}
    properties = schema.get("properties") or {}
    return properties if isinstance(properties, dict) else {}


def _section(text: str, title: str) -> str:
    """The body of a '## title' section of mem0's prompt."""
    start = text.find(f"## {title}\n")
    if start < 0:
        return ""
    body = text[start + len(title) + 4 :]
    end = body.find("\n## ")
    return body if end < 0 else body[:end]


def _reconcile(user: str) -> dict[str, Any]:
    blocks = _FENCED.findall(user)
    current: list[dict[str, Any]] = json.loads(blocks[0]) if blocks else []
    new: list[Any] = json.loads(blocks[1]) if len(blocks) > 1 else []
    by_text = {str(m.get("text", "")).strip().lower(): str(m.get("id")) for m in current}
    decisions: list[dict[str, Any]] = [
        {"id": str(m.get("id")), "text": m.get("text", ""), "event": "NONE", "old_memory": None} for m in current
    ]
    next_id = len(current)
    for fact in new:
        text = str(fact.get("text", "") if isinstance(fact, dict) else fact)
        if text.strip().lower() in by_text:
            continue  # the NONE above already covers it
        decisions.append({"id": str(next_id), "text": text, "event": "ADD", "old_memory": None})
        next_id += 1
    return {"memory": decisions}


def respond(request: dict[str, Any]) -> str:
    """The stub's answer to one chat completion request (JSON text)."""
    _, user = _messages(request)
    properties = _schema_properties(request)
    if "## New Messages" in user:  # mem0's additive extraction (json_object, no schema)
        facts = conversation_facts(_section(user, "New Messages"))
        return json.dumps({"memory": [{"text": f} for f in facts]})
    if "facts" in properties and "memory" in properties:
        return json.dumps(_single_call(user, "relations" in properties))
    if "facts" in properties or (not properties and "Input:\n" in user):
        conversation = user.split("Input:\n", 1)[-1]
        facts = [{"text": f, "memory_bank": "General", "importance": 0.5} for f in conversation_facts(conversation)]
        return json.dumps({"facts": facts})
    if "operations" in properties:
        potential = user.split("Potential memories:\n", 1)[-1].split("\n", 1)[0]
        items = json.loads(potential) if potential.startswith("[") else []
        ops = [
            {"operation": "NEW", "id": None, "content": i.get("content", ""), "importance": 0.5}
            | {"relevance": 0.8, "reasoning": "new information"}
            for i in items
        ]
        return json.dumps({"operations": ops})
    if "relations" in properties and "delete" in properties:  # graph memory: the offline rules' triples
        return json.dumps(_graph(user))
    if "memory" in properties or "Current memories:" in user:
        return json.dumps(_reconcile(user))
    return "{}"


def _graph(user: str) -> dict[str, Any]:
    from engram.domain.models import Message
    from engram.rules.relations import sentence_triples

    matches = map(_LINE.match, user.split("Conversation:\n", 1)[-1].splitlines())
    lines = [m.group(2) for m in matches if m and m.group(2).strip()]  # a message that starts with a line break
    triples = sentence_triples([Message(role="user", content=line) for line in lines])
    return {"relations": [t.model_dump(exclude={"negated"}) for t in triples], "delete": []}


def _single_call(user: str, graph: bool) -> dict[str, Any]:
    head, conversation = user.split("Input:\n", 1) if "Input:\n" in user else (user, "")
    facts = conversation_facts(conversation)
    current = head.split("Existing relations:\n", 1)[0]
    answer: dict[str, Any] = {
        "facts": [{"text": f, "memory_bank": "General", "importance": 0.5} for f in facts],
        "memory": _reconcile(current + "```\n" + json.dumps(facts) + "\n```\n")["memory"],
    }
    if graph:
        answer |= _graph("Conversation:\n" + conversation)
    return answer
