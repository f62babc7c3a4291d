"""Reconciler without an LLM: decides ADD / UPDATE / DELETE / NONE by fact keys.

- same key and value, or the same text: NONE on that memory;
- a single-valued key (name, location, employer, ...) or a preference with another value: UPDATE;
- a negated candidate ("I don't like pizza anymore"): DELETE the memories it retires, add nothing;
- anything else: ADD.
Memories without a key are read with textkeys.infer_key, so LLM-written memories take part too.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from engram.domain.models import Attachment, Event, Fact, ReconcileStrategy, Usage
from engram.domain.steps import CandidateFact, Decision
from engram.rules.facts import latest
from engram.rules.keys import family_of, is_single_valued, key_object, same_value, signature, stem_tokens
from engram.rules.keys_from_text import Keyed, infer_key, preference_items

# Families where another value for the same key replaces the old one (besides single-valued keys).
_REPLACED = frozenset({"preference", "reminder"})
_PREFERENCE_WORDS = re.compile(
    r"\b(?:loves?|likes?|enjoys?|adores?|eats?|drinks?|plays?|watch(?:es)?|fan\s+of|into|favou?rite|prefers?)\b",
    re.IGNORECASE,
)
_FAMILY_WORDS = {
    "health": re.compile(r"\b(?:allerg\w*|has|suffers|diagnosed|intoleran\w*)\b", re.I),
    "reminder": re.compile(r"\bremind\w*\b", re.I),
    "employer": re.compile(r"\bwork\w*\b", re.I),
    "diet": re.compile(r"\b(?:eats?|drinks?|diet|vegetarian|vegan)\b", re.I),
}


@dataclass(frozen=True)
class _Memory:
    fact: Fact
    keyed: Keyed | None

    @property
    def signature(self) -> str | None:
        return signature(self.keyed.key) if self.keyed else None


def _normal(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s']", " ", text.lower()).split())


def _merged(old: Sequence[str], new: Sequence[str]) -> list[str] | None:
    """Attachments of the memory plus those of the candidate; None when the candidate brings none."""
    return list(dict.fromkeys([*old, *new])) if new else None


class KeyReconciler:
    """Implements the Reconciler port deterministically; usage is always zero."""

    def reconcile(
        self,
        facts: Sequence[CandidateFact],
        existing: Sequence[Fact],
        strategy: ReconcileStrategy,
        conversation: str,
        attachments: Mapping[str, Attachment] | None = None,
    ) -> tuple[list[Decision], Usage]:
        # Attachment details are not needed: keys decide, and the pipeline settles attachments.
        # Both strategies end in the same verbs; relevance scoring needs no model when keys decide.
        memories = [_Memory(f, _keyed(f)) for f in existing if f.is_current]
        decided: set[str] = set()
        decisions: list[Decision] = []
        for index, candidate in latest(facts):
            keyed = _candidate_key(candidate)
            open_memories = [m for m in memories if m.fact.id not in decided]
            if candidate.negated or (keyed is not None and keyed.negated):
                made = _retire(index, candidate, keyed, open_memories)
            else:
                made = _place(index, candidate, keyed, open_memories)
            decided.update(d.memory_id for d in made if d.memory_id)
            decisions.extend(made)
        return decisions, Usage()


def _keyed(fact: Fact) -> Keyed | None:
    if fact.fact_key:
        return Keyed(fact.fact_key, fact.fact_value)
    return infer_key(fact.text)


def _candidate_key(candidate: CandidateFact) -> Keyed | None:
    if candidate.fact_key:
        return Keyed(candidate.fact_key, candidate.fact_value, candidate.negated)
    return infer_key(candidate.text)  # an LLM's candidate: read its text the same way


def _place(index: int, candidate: CandidateFact, keyed: Keyed | None, memories: list[_Memory]) -> list[Decision]:
    text = _normal(candidate.text)
    for memory in memories:
        if _normal(memory.fact.text) == text:
            return [_none(index, candidate, memory)]
    if keyed is None:
        return [_add(index, candidate)]
    sig = signature(keyed.key)
    same = [(m, m.keyed) for m in memories if m.keyed is not None and signature(m.keyed.key) == sig]
    if same:
        target, held = next(((m, k) for m, k in same if same_value(k.value, keyed.value)), same[0])
        if held.negated:  # "No longer has asthma" is contradicted by "I have asthma"
            return [_update(index, candidate, target)]
        if same_value(held.value, keyed.value) or not _replaces(keyed.key):
            return [_none(index, candidate, target)]
        # A single-valued key holds one value: other stale values of it go too.
        stale = [m for m, _ in same if m is not target and is_single_valued(keyed.key)]
        return [_update(index, candidate, target)] + [_delete(index, m) for m in stale]
    refined = next((m for m in memories if m.keyed and _refines(keyed.key, m.keyed)), None)
    if refined is not None:  # "Has a dog" -> "Has a dog named Max"
        return [_update(index, candidate, refined)]
    return [_add(index, candidate)]


def _replaces(key: str) -> bool:
    return is_single_valued(key) or family_of(key) in _REPLACED


def _refines(new_key: str, old: Keyed) -> bool:
    return (
        signature(new_key).startswith(signature(old.key) + ":")
        and family_of(old.key) in ("family", "friend", "colleague", "pet")
        and old.value in (None, "1")
        and not new_key.endswith(":age")
    )


def _retire(index: int, candidate: CandidateFact, keyed: Keyed | None, memories: list[_Memory]) -> list[Decision]:
    if keyed is None:
        return []  # nothing says what it retires; dropping it beats deleting the wrong memory
    decisions: list[Decision] = []
    wanted = stem_tokens(key_object(keyed.key)) if ":" in keyed.key else frozenset()
    for memory in memories:
        if _retires(keyed, wanted, memory):
            decisions.append(_delete(index, memory))
            continue
        shrunk = _without_item(keyed, wanted, memory)
        if shrunk is not None:
            decisions.append(
                # No fact_index: the candidate's key ("preference:pizza") is not what the memory keeps.
                Decision(
                    event=Event.UPDATE,
                    memory_id=memory.fact.id,
                    text=shrunk,
                    old_memory=memory.fact.text,
                    importance=memory.fact.importance,
                )
            )
    return decisions


def _retires(keyed: Keyed, wanted: frozenset[str], memory: _Memory) -> bool:
    family = family_of(keyed.key)
    if memory.keyed is not None:
        if memory.keyed.negated:
            return False  # the memory already says it is over
        if memory.signature == signature(keyed.key):
            # "I quit my job at Google" retires the employer only if the employer is Google.
            return not (is_single_valued(keyed.key) and keyed.value and memory.keyed.value) or same_value(
                keyed.value, memory.keyed.value
            )
        if family_of(memory.keyed.key) != family or not wanted:
            return False
        if not wanted <= stem_tokens(key_object(memory.keyed.key)):
            return False
        # "Cancelled reminder: milk" retires "Reminder: buy milk"; "No longer likes pizza" retires
        # "Likes pizza with pineapple", but "Loves pizza and sushi" only loses an item (_without_item).
        items = None if family == "reminder" else preference_items(memory.fact.text)
        return items is None or len(items[1]) == 1
    words = _FAMILY_WORDS.get(family, _PREFERENCE_WORDS)
    if family in ("preference", "health", "reminder", "diet") and wanted:
        return bool(words.search(memory.fact.text)) and wanted <= stem_tokens(memory.fact.text)
    if family == "employer" and keyed.value:
        return bool(words.search(memory.fact.text)) and stem_tokens(keyed.value) <= stem_tokens(memory.fact.text)
    return False


def _without_item(keyed: Keyed, wanted: frozenset[str], memory: _Memory) -> str | None:
    """'Loves pizza and sushi' after 'I don't like pizza anymore' becomes 'Loves sushi'."""
    if family_of(keyed.key) != "preference" or not wanted:
        return None
    parts = preference_items(memory.fact.text)
    if parts is None or len(parts[1]) < 2:
        return None
    verb, items = parts
    rest = [item for item in items if stem_tokens(item) != wanted]
    if len(rest) == len(items) or not rest:
        return None
    listed = rest[0] if len(rest) == 1 else ", ".join(rest[:-1]) + " and " + rest[-1]
    return f"{verb[:1].upper()}{verb[1:]} {listed}"


def _add(index: int, candidate: CandidateFact) -> Decision:
    return Decision(
        event=Event.ADD,
        text=candidate.text,
        fact_index=index,
        importance=candidate.importance,
        attachment_ids=list(candidate.attachment_ids) or None,
    )


def _none(index: int, candidate: CandidateFact, memory: _Memory) -> Decision:
    return Decision(
        event=Event.NONE,
        memory_id=memory.fact.id,
        text=memory.fact.text,
        fact_index=index,
        importance=max(memory.fact.importance, candidate.importance),
        attachment_ids=_merged(memory.fact.attachment_ids, candidate.attachment_ids),
    )


def _update(index: int, candidate: CandidateFact, memory: _Memory) -> Decision:
    return Decision(
        event=Event.UPDATE,
        memory_id=memory.fact.id,
        text=candidate.text,
        fact_index=index,
        old_memory=memory.fact.text,
        importance=max(memory.fact.importance, candidate.importance),
        attachment_ids=_merged(memory.fact.attachment_ids, candidate.attachment_ids),
    )


def _delete(index: int, memory: _Memory) -> Decision:
    return Decision(event=Event.DELETE, memory_id=memory.fact.id, text=memory.fact.text, fact_index=index)
