"""Step 4 with an LLM: one reconciliation call deciding ADD / UPDATE / DELETE / NONE.

Existing memory ids are shown to the model as short integers so it cannot invent UUIDs; the
answer is validated (unknown ids, missing facts, lost details) and repaired or retried.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from aws_lambda_powertools import Logger

from engram.domain.errors import LLMOutputError
from engram.domain.limits import MAX_IMPORTANCE, MIN_IMPORTANCE
from engram.domain.models import Attachment, Event, Fact, ReconcileStrategy, Usage
from engram.domain.ports import LLM
from engram.domain.steps import CandidateFact, Decision
from engram.reconcile.attachment_codes import AttachmentCodes
from engram.reconcile.checks import PlanChecks, beside
from engram.reconcile.llm_json import ask_json
from engram.reconcile.prompts import (
    reconcile_schema,
    reconcile_system_prompt,
    reconcile_user_message,
    relevance_schema,
    relevance_user_message,
    with_attachments_instructions,
)
from engram.text.letters import has_words
from engram.text.match import dropped_details, looks_negated, overlap

logger = Logger(child=True)

UNUSABLE = "reconciliation answer unusable, added as a new memory"
COVERED = 0.5  # share of a fact's content words a decision must hold to account for it


class DecisionInterpreter:
    """Turns one raw answer into decisions with real ids; raises ValueError when unusable."""

    def __init__(
        self,
        existing: Sequence[Fact],
        facts: Sequence[CandidateFact],
        relevance: bool,
        codes: AttachmentCodes | None = None,
    ) -> None:
        self.codes = codes or AttachmentCodes()
        self.short_to_id = {str(i): fact.id for i, fact in enumerate(existing)}
        self.texts = {fact.id: fact.text for fact in existing}
        self.facts = facts
        self.relevance = relevance

    def __call__(self, answer: Any) -> list[Decision]:
        key = "operations" if self.relevance else "memory"
        if not isinstance(answer, dict) or not isinstance(answer.get(key), list):
            raise ValueError(f'expected {{"{key}": [...]}}')
        decisions: list[Decision] = []
        seen: set[str] = set()
        updates: dict[int, Decision] = {}  # per potential memory, its first UPDATE (relevance)
        for item in answer[key]:
            decision = self._one(item)
            if decision is not None and self.relevance:
                decision = self._one_update_per_fact(decision, updates)
            if decision is None:
                continue
            if decision.memory_id is not None:
                if decision.memory_id in seen:
                    continue  # one verdict per memory; the first one wins
                seen.add(decision.memory_id)
            decisions.append(decision)
        return decisions

    def _one_update_per_fact(self, decision: Decision, updates: dict[int, Decision]) -> Decision | None:
        """The relevance prompt allows one UPDATE per potential memory. A second one that repeats the
        first (same memory or same text) is dropped; one that merges the fact into another memory is
        kept as a NEW memory, so its text is not lost. Either way the task result says so."""
        index = decision.fact_index
        if decision.event is not Event.UPDATE or index is None:
            return decision
        first = updates.setdefault(index, decision)
        if first is decision:
            return decision
        fact = self.facts[index].text
        if decision.memory_id == first.memory_id or _same_text(decision.text, first.text):
            logger.warning("second UPDATE for one potential memory dropped", extra={"fact": fact})
            _add_note(first, f'a second UPDATE for "{fact}" dropped: one UPDATE per potential memory')
            return None
        logger.warning("second UPDATE for one potential memory becomes a NEW", extra={"fact": fact})
        note = f'a second UPDATE for "{fact}" kept as a new memory: one UPDATE per potential memory'
        return Decision(
            event=Event.ADD,
            text=decision.text,
            fact_index=index,
            importance=decision.importance,
            # None: the new memory takes its fact's own attachments (attachment_settle), not those
            # the model listed for the memory it meant to update, which stay where they are.
            note=f"{decision.note}; {note}" if decision.note else note,
        )

    def _one(self, item: Any) -> Decision | None:
        if not isinstance(item, dict):
            raise ValueError(f"operation is not an object: {item!r}")
        decision = self._verdict(item)
        if decision is not None and self.codes and isinstance(item.get("attachments"), list):
            known, invented = self.codes.resolve(item["attachments"])
            decision.attachment_ids = known
            if invented:
                logger.warning("unknown attachment ids dropped", extra={"ids": invented})
                dropped = f"unknown attachment ids dropped: {', '.join(invented)}"
                decision.note = f"{decision.note}; {dropped}" if decision.note else dropped
        return decision

    def _verdict(self, item: dict[str, Any]) -> Decision | None:
        if self.relevance:
            raw_event = str(item.get("operation", "")).upper()
            event_name = "ADD" if raw_event == "NEW" else raw_event
            text = str(item.get("content") or "").strip()
        else:
            event_name = str(item.get("event", "")).upper()
            text = str(item.get("text") or "").strip()
        if event_name not in Event.__members__:
            raise ValueError(f"unknown event {event_name!r}")
        event = Event(event_name)
        if not has_words(text):  # "..." copied from the answer's shape is no text
            text = ""
        short = None if item.get("id") is None else str(item.get("id"))
        memory_id = self.short_to_id.get(short) if short is not None else None
        importance, repaired = bounded_importance(item.get("importance"))
        decision = self._decision(event, text, short, memory_id, item, importance)
        if decision is not None and repaired:
            logger.warning("importance repaired", extra={"repair": repaired})
            decision.note = repaired
        return decision

    def _decision(
        self,
        event: Event,
        text: str,
        short: str | None,
        memory_id: str | None,
        item: dict[str, Any],
        importance: float | None,
    ) -> Decision | None:
        if event is Event.ADD or (event is Event.UPDATE and memory_id is None):
            if event is Event.UPDATE:
                logger.warning("UPDATE of an unknown id becomes an ADD", extra={"id": short})
            if not text:
                raise ValueError("ADD without text")
            return Decision(event=Event.ADD, text=text, fact_index=self._best_fact(text), importance=importance)
        if memory_id is None:
            logger.warning("decision on an unknown id dropped", extra={"id": short, "event": event.value})
            return None
        if event is Event.UPDATE and not text:
            raise ValueError(f"UPDATE of id {short} without text")
        old = item.get("old_memory")
        return Decision(
            event=event,
            text=text or self.texts[memory_id],
            memory_id=memory_id,
            old_memory=str(old) if old else None,
            fact_index=self._best_fact(text) if event is Event.UPDATE else None,
            importance=importance,
        )

    def _best_fact(self, text: str) -> int | None:
        scores = [(overlap(f.text, text), i) for i, f in enumerate(self.facts)]
        best = max(scores, default=(0.0, None))
        return best[1] if best[0] > 0 else None


class LLMReconciler:
    """`checks` (reconcile/checks.py) validate the model's plan before it is applied; bootstrap
    always passes them; tests of the prompt plumbing may leave them out."""

    def __init__(self, llm: LLM, checks: PlanChecks | None = None) -> None:
        self._llm = llm
        self._checks = checks

    def reconcile(
        self,
        facts: Sequence[CandidateFact],
        existing: Sequence[Fact],
        strategy: ReconcileStrategy,
        conversation: str,
        attachments: Mapping[str, Attachment] | None = None,
    ) -> tuple[list[Decision], Usage]:
        relevance = strategy is ReconcileStrategy.RELEVANCE
        # Attachments are shown only when there are any, so the prompt is otherwise unchanged.
        codes = AttachmentCodes.build(existing, facts)
        shown: list[dict[str, Any]] = [{"id": str(i), "text": fact.text} for i, fact in enumerate(existing)]
        if codes:
            for item, fact in zip(shown, existing, strict=True):
                item["attachments"] = codes.short(fact.attachment_ids)
        by_id = {fact.id: fact for fact in existing}
        interpret = DecisionInterpreter(existing, facts, relevance, codes)
        base_prompt = self._prompt(strategy, shown, facts, conversation, codes, attachments or {})
        system, schema, name = self._call_shape(strategy, bool(codes))
        try:
            decisions, usage = ask_json(self._llm, system, base_prompt, schema, name, interpret)
        except LLMOutputError as err:
            # Asked again at temperature 0, a weak model answers the same: the facts are kept as they
            # are, beside the memories, rather than the task failing until it is dead-lettered.
            logger.warning("reconciliation answer unusable; facts added as they are", extra={"error": str(err)})
            note = f"{UNUSABLE}: {err}"
            kept = cover_missing([], facts)
            for decision in kept:
                decision.note = note
            return kept, err.usage or Usage()

        lost = lost_details(decisions, by_id)
        if lost:
            feedback = "; ".join(f"memory {k} lost {', '.join(sorted(v))}" for k, v in lost.items())
            retry_prompt = (
                f"{base_prompt}\nYour previous UPDATE dropped details that no new fact contradicts "
                f"({feedback}). Keep them in the updated text."
            )
            decisions, more = ask_json(self._llm, system, retry_prompt, schema, name, interpret)
            usage.add(more)
            decisions = self._fall_back_on_loss(decisions, by_id)
        if self._checks is not None:
            decisions = self._checks(decisions, facts, existing)
        return cover_missing(decisions, facts), usage

    @staticmethod
    def _call_shape(strategy: ReconcileStrategy, attachments: bool) -> tuple[str, dict[str, Any], str]:
        if strategy is ReconcileStrategy.RELEVANCE:
            system = reconcile_system_prompt("relevance")
            if attachments:
                system = with_attachments_instructions(system, relevance=True)
            return system, relevance_schema(with_attachments=attachments), "operations"
        system = reconcile_system_prompt("default")
        if attachments:
            system = with_attachments_instructions(system)
        return system, reconcile_schema(with_attachments=attachments), "memory"

    @staticmethod
    def _prompt(
        strategy: ReconcileStrategy,
        shown: list[dict[str, Any]],
        facts: Sequence[CandidateFact],
        conversation: str,
        codes: AttachmentCodes,
        details: Mapping[str, Attachment],
    ) -> str:
        if strategy is ReconcileStrategy.RELEVANCE:
            potential: list[dict[str, Any]] = [{"content": f.text, "importance": f.importance} for f in facts]
            if codes:
                for item, fact in zip(potential, facts, strict=True):
                    item["attachments"] = codes.short(fact.attachment_ids)
            return relevance_user_message(conversation, shown, potential, codes.legend(details) if codes else "")
        if not codes:
            return reconcile_user_message(shown, [f.text for f in facts])
        new = [{"text": f.text, "attachments": codes.short(f.attachment_ids)} for f in facts]
        return reconcile_user_message(shown, new) + "\nAttachments:\n" + codes.legend(details) + "\n"

    def _fall_back_on_loss(self, decisions: list[Decision], by_id: dict[str, Fact]) -> list[Decision]:
        """An UPDATE that still loses details keeps the old memory and adds the new text beside it."""
        lost = lost_details(decisions, by_id)
        if not lost:
            return decisions
        kept: list[Decision] = []
        for d in decisions:
            if d.event is Event.UPDATE and d.memory_id in lost:
                logger.warning("UPDATE rejected: it would lose details", extra={"memory_id": d.memory_id})
                kept.append(beside(d, by_id[d.memory_id].text, lost[d.memory_id]))
            else:
                kept.append(d)
        return kept


def _same_text(a: str, b: str) -> bool:
    return " ".join(a.casefold().split()) == " ".join(b.casefold().split())


def _add_note(decision: Decision, text: str) -> None:
    decision.note = f"{decision.note}; {text}" if decision.note else text


def bounded_importance(value: Any) -> tuple[float | None, str | None]:
    """An LLM's importance within 0-1 (Fact's bounds), and what was repaired, for the task result."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return None, None
    if not math.isfinite(value):
        return None, f"importance {value} dropped"
    bounded = min(MAX_IMPORTANCE, max(MIN_IMPORTANCE, float(value)))
    return bounded, (f"importance {value} clamped to {bounded}" if bounded != value else None)


def _accounts_for(decision: Decision, fact: CandidateFact) -> bool:
    if decision.event is Event.DELETE:
        return (fact.negated or looks_negated(fact.text)) and overlap(fact.text, decision.text) > 0
    return overlap(fact.text, decision.text) >= COVERED


def lost_details(decisions: Sequence[Decision], by_id: Mapping[str, Fact]) -> dict[str, set[str]]:
    """Per updated memory, the details of its old text that the UPDATE's text dropped."""
    lost: dict[str, set[str]] = {}
    for d in decisions:
        if d.event is Event.UPDATE and d.memory_id is not None and d.memory_id in by_id:
            dropped = dropped_details(by_id[d.memory_id].text, d.text)
            if dropped:
                lost[d.memory_id] = dropped
    return lost


def cover_missing(
    decisions: Sequence[Decision], facts: Sequence[CandidateFact], positions: Sequence[int] | None = None
) -> list[Decision]:
    """Every new fact must end up somewhere; one the model forgot is added as it is. `positions`:
    the facts' indexes in the decisions' numbering (default 0..n-1)."""
    out = list(decisions)
    for index, fact in enumerate(facts):
        if any(_accounts_for(d, fact) for d in out):
            continue
        logger.warning("fact missing from the LLM's decisions; added", extra={"fact": fact.text})
        position = positions[index] if positions is not None else index
        out.append(Decision(event=Event.ADD, text=fact.text, fact_index=position, importance=fact.importance))
    return out
