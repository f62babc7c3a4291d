"""An add's include/exclude policy (domain/policy.py) applied to what it would store.

Excluded content is stored nowhere. Before anything reads the messages, each clause that states an
excluded bank or topic is cut out of its message (the extractor and the LLM never see it, and an
episode or an `infer: false` memory made of the message cannot hold it); a clause's bank and
fact_key family are what the offline rules read in it. Then each fact is checked on its own (an LLM
may read a health fact the rules did not), and an episode loses the clauses that state a fact
which was left out. With `include`, only facts of an included bank or topic are kept, and an
episode only its clauses that state one. `infer: false` adds honour `exclude` only: what the client
asked to store as given is stored, minus its excluded clauses. Each cut says what and why.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

from engram.domain.models import AddRequest, MemoryBank
from engram.domain.policy import MemoryPolicy, Skipped
from engram.domain.steps import CandidateFact
from engram.rules.keys import family_of, stem_tokens
from engram.rules.patterns import analyse_message

_BANKS = {bank.value.lower(): bank for bank in MemoryBank}
_SENTENCES = re.compile(r"[^.!?;\n]*(?:[.!?;]+|\n+|$)")
# A clause starts after a comma or a conjunction when the speaker starts a new statement there.
_CLAUSE_BREAK = re.compile(
    r"(?:\s*,\s*(?:and\s+|but\s+)?|\s+(?:and|but|so|plus|while|whereas|although|though|because)\s+)"
    r"(?=(?:i|i'm|im|i've|i'd|i'll|my|we|we're|we've|our|me)\b)",
    re.I,
)
NOT_INCLUDED = "not included"
Located = tuple[int | None, Skipped]  # the message a skipped text came from, for its task's result


@dataclass(frozen=True)
class _Rule:
    entry: str  # as the operator wrote it (a bank in its canonical spelling)
    bank: MemoryBank | None
    words: re.Pattern[str] | None  # a topic, as whole words (a trailing plural "s" allowed)
    family: str | None

    @classmethod
    def of(cls, entry: str) -> _Rule:
        bank = _BANKS.get(entry.lower())
        if bank is not None:
            return cls(bank.value, bank, None, None)
        phrase = r"\s+".join(re.escape(w) for w in entry.split())
        return cls(entry, None, re.compile(rf"(?<!\w){phrase}(?:s|es)?(?!\w)", re.I), entry.lower())

    def matches(self, text: str, bank: MemoryBank | None, fact_key: str | None) -> bool:
        if self.bank is not None:
            return bank is self.bank
        if fact_key and family_of(fact_key) == self.family:
            return True
        return self.words is not None and self.words.search(text) is not None


@lru_cache(maxsize=512)
def _read(clause: str) -> tuple[CandidateFact, ...]:
    """The facts the offline rules read in one clause (their banks and keys classify it)."""
    return tuple(f for r in analyse_message(clause, budget_s=0.5) for f in r.facts)


def _segments(text: str) -> Iterator[tuple[str, list[tuple[str, str]]]]:
    """Each sentence as its end punctuation and its clauses, each clause with the separator before it."""
    for found in _SENTENCES.finditer(text):
        sentence = found.group().strip()
        if not sentence:
            continue
        body = sentence.rstrip(".!?;")
        end = sentence[len(body) :]
        parts: list[tuple[str, str]] = []
        start, sep = 0, ""
        for brk in _CLAUSE_BREAK.finditer(body):
            parts.append((sep, body[start : brk.start()]))
            start, sep = brk.end(), brk.group()
        parts.append((sep, body[start:]))
        yield end, parts


def _states(clause: str, text: str) -> bool:
    """True when a clause states what `text` (a fact) says: at least half its content words."""
    words = {w for w in stem_tokens(text) if len(w) > 2}
    return bool(words) and len(words & stem_tokens(clause)) >= max(1, math.ceil(len(words) / 2))


class PolicyScreen:
    def __init__(self, policy: MemoryPolicy) -> None:
        self.include = [_Rule.of(e) for e in policy.include]
        self.exclude = [_Rule.of(e) for e in policy.exclude]

    def _excluded_by(self, text: str, bank: MemoryBank | None, fact_key: str | None) -> str | None:
        rule = next((r for r in self.exclude if r.matches(text, bank, fact_key)), None)
        return f"excluded: {rule.entry}" if rule is not None else None

    def _clause_excluded(self, clause: str) -> str | None:
        why = self._excluded_by(clause, None, None)
        if why is not None or not any(r.bank or r.family for r in self.exclude):
            return why
        for fact in _read(clause):
            why = self._excluded_by(fact.text, fact.memory_bank, fact.fact_key)
            if why is not None:
                return why
        return None

    def _clause_included(self, clause: str, kept: Sequence[CandidateFact]) -> bool:
        if any(r.matches(clause, None, None) for r in self.include) or any(_states(clause, f.text) for f in kept):
            return True
        return any(r.matches(f.text, f.memory_bank, f.fact_key) for f in _read(clause) for r in self.include)

    def redact(self, request: AddRequest) -> tuple[AddRequest, list[Located]]:
        """The request without its excluded clauses (a message left with nothing is emptied)."""
        if not self.exclude:
            return request, []
        skipped: list[Located] = []
        messages = []
        for index, message in enumerate(request.messages):
            if message.role == "system":  # instructions to the assistant, never stored
                messages.append(message)
                continue
            text, cut = _cut(message.content, self._clause_excluded)
            skipped += [(index, s) for s in cut]
            # model_copy does not validate: an emptied message stays in place (task sources index messages)
            messages.append(message if not cut else message.model_copy(update={"content": text}))
        return (request.model_copy(update={"messages": messages}) if skipped else request), skipped

    def screen(self, candidates: Sequence[CandidateFact]) -> tuple[list[CandidateFact], list[Located]]:
        """The candidates the policy keeps; facts first, then episodes without what was left out."""
        kept: list[CandidateFact] = []
        left_out: list[tuple[CandidateFact, str]] = []
        skipped: list[Located] = []
        for fact in (c for c in candidates if c.kind == "fact"):
            why = self._excluded_by(fact.text, fact.memory_bank, fact.fact_key)
            if (
                why is None
                and self.include
                and not any(r.matches(fact.text, fact.memory_bank, fact.fact_key) for r in self.include)
            ):
                why = NOT_INCLUDED
            if why is None:
                kept.append(fact)
            else:
                left_out.append((fact, why))
                skipped.append((fact.message_index, Skipped(text=fact.text, reason=why)))
        facts = list(kept)
        for episode in (c for c in candidates if c.kind == "episode"):
            index = episode.message_index

            def drop(clause: str) -> str | None:
                why = next((why for fact, why in left_out if _states(clause, fact.text)), None)
                if why is None and self.include and not self._clause_included(clause, facts):
                    why = NOT_INCLUDED
                return why

            text, cut = _cut(episode.text, drop)
            skipped += [(index, s) for s in cut]
            if text.strip():
                kept.append(episode if not cut else episode.model_copy(update={"text": text, "span": None}))
        return kept, skipped


def _cut(text: str, drop: Callable[[str], str | None]) -> tuple[str, list[Skipped]]:
    """The text without the clauses `drop` gives a reason for; the text itself when none."""
    cut: list[Skipped] = []
    sentences: list[str] = []
    for end, parts in _segments(text):
        kept = ""
        for sep, clause in parts:
            why = drop(clause) if clause.strip() else None
            if why is not None:
                cut.append(Skipped(text=clause.strip(), reason=why))
            elif clause.strip():
                kept += (sep if kept else "") + clause
        if kept.strip():
            sentences.append(kept.strip() + end)
    return (" ".join(sentences) if cut else text), cut
