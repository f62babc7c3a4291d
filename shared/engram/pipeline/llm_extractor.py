"""Step 2 with an LLM: extract candidate facts with the user or agent extraction prompt."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

from engram.domain.models import ExtractionPrompt, MemoryBank, Message, Scope, Usage
from engram.domain.ports import LLM
from engram.domain.statements import USER, Statement, of_the_person
from engram.domain.steps import CandidateFact
from engram.pipeline.windows import DEFAULT_WINDOW_CHARS, windows
from engram.reconcile.llm import bounded_importance
from engram.reconcile.llm_json import ask_json
from engram.reconcile.prompts import EXTRACTION_SCHEMA, MAX_STATEMENTS, extraction_system_prompt
from engram.state.open_reading import whose_value
from engram.text.letters import has_words
from engram.text.transcript import parse_messages, said_last

MAX_SUBJECT = 120  # characters: as long as an attribute may be (domain/statements.py)


def interpret_facts(answer: Any) -> list[CandidateFact]:
    if not isinstance(answer, dict) or not isinstance(answer.get("facts"), list):
        raise ValueError('expected {"facts": [...]}')
    facts: list[CandidateFact] = []
    for item in answer["facts"]:
        if isinstance(item, str):  # older prompts answer with bare strings
            item = {"text": item}
        if not isinstance(item, dict) or not has_words(str(item.get("text", ""))):
            raise ValueError(f"fact without text (a placeholder is not a fact): {item!r}")
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
                statements=model_statements(item.get("statements")),
            )
        )
    return facts


def model_statements(raw: Any) -> list[Statement]:
    """The statements a model gave for one fact; a malformed one is repaired where its meaning is plain (an
    empty subject is the user, a `single` that is not a boolean is many-valued) and dropped otherwise (no
    attribute or value, an unknown polarity, past the bounds): a wrong statement is worse than none, and a
    fact is never refused for its statements."""
    if not isinstance(raw, list):
        return []
    found: list[Statement] = []
    for item in raw[:MAX_STATEMENTS]:
        if not isinstance(item, dict):
            continue
        subject = item.get("subject")
        single = item.get("single")
        if isinstance(subject, str) and len(subject) > MAX_SUBJECT:
            continue  # a runaway string, not someone named
        try:
            statement = Statement(
                subject=" ".join(subject.split()) or USER if isinstance(subject, str) else USER,
                attribute=" ".join(str(item.get("attribute") or "").split()).casefold(),
                value=" ".join(str(item.get("value") or "").split()),
                polarity=item.get("polarity", "asserted"),
                single=single if isinstance(single, bool) else False,
            )
        except ValidationError:
            continue
        if not (has_words(statement.attribute) and has_words(statement.value)):
            continue  # the answer's shape copied ("...")
        if statement not in found:
            found.append(statement)
    return found


def stamped(facts: list[CandidateFact], messages: Sequence[Message]) -> list[CandidateFact]:
    """The facts with their statements as the conversation said them. Dated when it said them (its last
    message's time, as the applier dates the fact, pipeline/apply.said_at; unknown stays unknown, newer than
    any). And owned as its words say: a statement a model gave the person whose value the person said only
    of someone else ("my brother just became a pilot with Ryanair") is that someone's, since other people's
    attributes outdate nothing of the person's (state/open_reading.whose_value reads the words before it)."""
    said = said_last(messages)
    theirs = [m.content for m in messages if m.role == "user"]
    for fact in facts:
        fact.statements = [_owned(s, theirs) for s in fact.statements]
        if said is not None:
            fact.statements = [
                s if s.event_time else s.model_copy(update={"event_time": said}) for s in fact.statements
            ]
    return facts


def _owned(statement: Statement, texts: Sequence[str]) -> Statement:
    if not of_the_person(statement.subject):  # the model gave it to someone else already
        return statement
    owners = [o for o in (whose_value(t, statement.value) for t in texts) if o is not None]
    if not owners or USER in owners:
        return statement
    return statement.model_copy(update={"subject": owners[0]})


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
            facts += stamped(found, window)
            usage.add(used)
        return facts, usage
