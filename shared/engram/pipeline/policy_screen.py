"""An add's include/exclude policy (domain/policy.py) applied to what it would store.

Excluded content is stored nowhere. Before anything reads the messages, every clause of every message
(pipeline/clauses.py) that is about an excluded bank or topic is cut out of its message: the extractor
and the LLM never see it, and an episode, a part of a long message or an `infer: false` memory made of
the message cannot hold it. A clause is about a bank or topic when its meaning says so (the local
embedder against the topics' descriptions, pipeline/topic_meaning.py), when it names a topic's words,
or when the offline rules read a fact of that bank or fact_key family in it: any one suffices. Then
each fact is checked on its own (an LLM may read a health fact nothing else saw: defence in depth),
and an episode loses the clauses that are excluded or state a fact which was left out. With `include`,
a clause about no included bank or topic is cut before anything reads it too (so `infer: false` memories,
parts, the kept input and the LLM never hold it), and only facts of an included bank or topic are kept.
A message left with nothing is not stored. Each cut says what and why.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from engram.domain.models import AddRequest, Fact, MemoryBank
from engram.domain.policy import EXCLUDED, MemoryPolicy, Skipped, topic_words
from engram.domain.steps import CandidateFact
from engram.pipeline.clauses import clauses, segments
from engram.pipeline.topic_meaning import Scores, TopicMeaning
from engram.rules.keys import family_of, stem_tokens
from engram.rules.patterns import analyse_message

_BANKS = {bank.value.lower(): bank for bank in MemoryBank}
NOT_INCLUDED = "not included"
INSTRUCTIONS_UNREAD = (
    "the memory policy's instructions were not applied: they need an LLM and none is configured "
    "(include/exclude were applied)"
)
# A clause that opens on a word standing for what came before ("it needs renewing soon" after "I have a spouse
# visa") says what that says, whatever its own words are near.
_CONTINUES = re.compile(r"(?:it|it's|its|that|this|these|those|which)\b", re.I)
Located = tuple[int | None, Skipped]  # the message a skipped text came from, for its task's result


@dataclass(frozen=True)
class _Rule:
    entry: str  # as the operator wrote it (a bank in its canonical spelling)
    bank: MemoryBank | None
    words: re.Pattern[str] | None  # a topic or a word it is known by, as whole words (a plural "s" allowed)
    family: str | None

    @classmethod
    def of(cls, entry: str) -> _Rule:
        bank = _BANKS.get(entry.lower())
        if bank is not None:
            return cls(bank.value, bank, None, None)
        name, known_as = topic_words(entry)
        phrases = "|".join(r"\s+".join(re.escape(w) for w in said.split()) for said in (name, *known_as))
        return cls(entry, None, re.compile(rf"(?<!\w)(?:{phrases})(?:s|es)?(?!\w)", re.I), name.lower())

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


def _states(clause: str, text: str) -> bool:
    """True when a clause states what `text` (a fact) says: at least half its content words."""
    words = {w for w in stem_tokens(text) if len(w) > 2}
    return bool(words) and len(words & stem_tokens(clause)) >= max(1, math.ceil(len(words) / 2))


class PolicyScreen:
    def __init__(self, policy: MemoryPolicy, meaning: TopicMeaning | None = None) -> None:
        self.include = [_Rule.of(e) for e in policy.include]
        self.exclude = [_Rule.of(e) for e in policy.exclude]
        self.meaning = meaning
        topics = [r.entry for r in self.include + self.exclude if r.bank is None]
        self._excluded: list[str] = []  # what screen() left out for an exclusion: facts' and clauses' texts
        examples = {topic.lower(): said for topic, said in policy.examples.items()}
        self._topics = {t: examples.get(t.lower(), []) for t in topics}

    def _scores(self, texts: Sequence[str]) -> list[Scores | None]:
        if self.meaning is None or not texts:
            return [None] * len(texts)
        return list(self.meaning.score(texts, self._topics))

    def _means(self, rule: _Rule, scores: Scores | None, include: bool = False) -> bool:
        if scores is None:
            return False
        if rule.bank is None:
            return scores.about_topic(rule.entry)
        return scores.included_by(rule.bank) if include else scores.excluded_by(rule.bank)

    def _excluded_by(
        self, text: str, bank: MemoryBank | None, fact_key: str | None, scores: Scores | None = None
    ) -> str | None:
        rule = next((r for r in self.exclude if r.matches(text, bank, fact_key) or self._means(r, scores)), None)
        return f"{EXCLUDED}{rule.entry}" if rule is not None else None

    def _included(self, text: str, bank: MemoryBank | None, fact_key: str | None, scores: Scores | None) -> bool:
        return any(r.matches(text, bank, fact_key) or self._means(r, scores, include=True) for r in self.include)

    def _clause_excluded(self, clause: str, scores: Scores | None) -> str | None:
        why = self._excluded_by(clause, None, None, scores)
        if why is not None or not any(r.bank or r.family for r in self.exclude):
            return why
        for fact in _read(clause):
            why = self._excluded_by(fact.text, fact.memory_bank, fact.fact_key)
            if why is not None:
                return why
        return None

    def _clause_included(self, clause: str, kept: Sequence[CandidateFact], scores: Scores | None) -> bool:
        if self._included(clause, None, None, scores) or any(_states(clause, f.text) for f in kept):
            return True
        return any(self._included(f.text, f.memory_bank, f.fact_key, None) for f in _read(clause))

    def _clause_left_out(self, clause: str, scores: Scores | None) -> str | None:
        """Why a clause is cut before anything reads it: excluded, or (with `include`) about no included
        bank or topic by its meaning, words or the offline rules' reading."""
        why = self._clause_excluded(clause, scores)
        if why is None and self.include and not self._clause_included(clause, (), scores):
            return NOT_INCLUDED
        return why

    def redact(self, request: AddRequest) -> tuple[AddRequest, list[Located]]:
        """The request without the clauses it must not store (a message left with nothing is emptied)."""
        if not (self.exclude or self.include):
            return request, []
        said = [m.content if m.role != "system" else "" for m in request.messages]  # system: never stored
        decide = self._reasons(said, self._clause_left_out)
        skipped: list[Located] = []
        messages = []
        for index, message in enumerate(request.messages):
            text, cut = _cut(message.content, decide) if said[index] else (message.content, [])
            skipped += [(index, s) for s in cut]
            # model_copy does not validate: an emptied message stays in place (task sources index messages)
            messages.append(message if not cut else message.model_copy(update={"content": text}))
        return (request.model_copy(update={"messages": messages}) if skipped else request), skipped

    def _reasons(self, texts: Sequence[str], decide: Callable[[str, Scores | None], str | None]) -> Decide:
        """Why each clause of the texts is cut (None: kept), the meaning of all read in one embedder call;
        and whether a clause is vague (about no bank on its own: it goes with the clause it continues)."""
        found = list(dict.fromkeys(c for text in texts for c in clauses(text)))
        scored = dict(zip(found, self._scores(found), strict=True))
        reasons = {c: decide(c, scores) for c, scores in scored.items()}

        def reason(clause: str) -> str | None:
            if clause not in reasons:  # never met (the same split finds each): decide it
                scored[clause] = self._scores([clause])[0]
                reasons[clause] = decide(clause, scored[clause])
            return reasons[clause]

        def vague(clause: str) -> bool:
            scores = scored.get(clause)
            return scores is not None and (scores.vague or _CONTINUES.match(clause) is not None)

        return Decide(reason, vague)

    def trial(self, text: str) -> tuple[str, list[tuple[str, str | None, Scores | None]]]:
        """What the screen would pass on of one user's text, and each of its clauses with why it is cut
        (None: kept) and its scores: exclusion as redact() decides it, then `include` as screen() decides
        an episode's clause (kept only when it is about an included bank or topic)."""

        def decide(clause: str, scores: Scores | None) -> str | None:
            why = self._clause_excluded(clause, scores) if self.exclude else None
            if why is None and self.include and not self._clause_included(clause, [], scores):
                why = NOT_INCLUDED
            return why

        decided = _decided(text, self._reasons([text], decide))
        found = [clause.strip() for _, parts in decided for _, clause, _ in parts if clause.strip()]
        scores = dict(zip(found, self._scores(found), strict=True))
        sentences, verdicts = [], []
        for end, parts in decided:
            kept = ""
            for sep, clause, why in parts:
                if clause.strip():
                    verdicts.append((clause.strip(), why, scores[clause.strip()]))
                if why is None and clause.strip():
                    kept += (sep if kept else "") + clause
            if kept.strip():
                sentences.append(kept.strip() + end)
        return " ".join(sentences), verdicts

    def matches(self, entry: str, clause: str, scores: Scores | None) -> bool:
        """Whether the screen reads the clause as about one of its entries (meaning, words or rules)."""
        rule = _Rule.of(entry)
        excluded = any(r.entry == rule.entry for r in self.exclude)  # read as exclusion reads it, when both
        include = not excluded and any(r.entry == rule.entry for r in self.include)
        if rule.matches(clause, None, None) or self._means(rule, scores, include=include):
            return True
        return any(rule.matches(f.text, f.memory_bank, f.fact_key) for f in _read(clause))

    def excluded_memories(self, memories: Sequence[Fact]) -> list[Fact]:
        """The stored memories (facts, episodes) whose text is about an excluded bank or topic."""
        scores = self._scores([m.text for m in memories])
        return [
            m
            for m, s in zip(memories, scores, strict=True)
            if self._excluded_by(m.text, m.memory_bank, m.fact_key, s) is not None
        ]

    def said_with(self, memories: Sequence[Fact], others: Sequence[Fact]) -> list[Fact]:
        """Of `others`, those made from the same message as one of `memories` whose words an excluded clause of
        it states: "Lives in Hackney", read from "we're buying a flat in Hackney", goes with that message's
        memory when the flat purchase is excluded, and "I live in Leeds" said beside it stays."""
        said: dict[tuple[str, int | None], list[str]] = {}
        for memory in memories:
            if memory.source is not None:
                found = clauses(memory.text)
                cut = [c for c, s in zip(found, self._scores(found), strict=True) if self._clause_excluded(c, s)]
                said.setdefault((memory.source.task_id, memory.source.message_index), []).extend(cut)
        return [
            m
            for m in others
            if m.source is not None
            and any(_states(c, m.text) for c in said.get((m.source.task_id, m.source.message_index), ()))
        ]

    def screen(self, candidates: Sequence[CandidateFact]) -> tuple[list[CandidateFact], list[Located]]:
        """The candidates the policy keeps; facts first, then episodes without what was left out."""
        facts_in = [c for c in candidates if c.kind == "fact"]
        episodes_in = [c for c in candidates if c.kind == "episode"]
        fact_scores = self._scores([f.text for f in facts_in])
        kept: list[CandidateFact] = []
        left_out: list[tuple[CandidateFact, str]] = []
        skipped: list[Located] = []
        for fact, scores in zip(facts_in, fact_scores, strict=True):
            why = self._excluded_by(fact.text, fact.memory_bank, fact.fact_key, scores)
            if why is None and self.include and not self._included(fact.text, fact.memory_bank, fact.fact_key, scores):
                why = NOT_INCLUDED
            if why is None:
                kept.append(fact)
            else:
                left_out.append((fact, why))
                if why.startswith(EXCLUDED):
                    self._excluded.append(fact.text)
                skipped.append((fact.message_index, Skipped.left_out("fact", fact.text, why)))
        facts = list(kept)

        def drop(clause: str, scores: Scores | None) -> str | None:
            why = next((why for fact, why in left_out if _states(clause, fact.text)), None)
            why = why or self._clause_excluded(clause, scores)
            if why is None and self.include and not self._clause_included(clause, facts, scores):
                why = NOT_INCLUDED
            if why is not None and why.startswith(EXCLUDED):
                self._excluded.append(clause)
            return why

        decide = self._reasons([e.text for e in episodes_in], drop)
        for episode in episodes_in:
            text, cut = _cut(episode.text, decide)
            skipped += [(episode.message_index, s) for s in cut]
            if text.strip():
                kept.append(episode if not cut else episode.model_copy(update={"text": text, "span": None}))
        return kept, skipped

    def unsaid(self, request: AddRequest) -> AddRequest | None:
        """The request without the clauses that said what screen() excluded after reading (a fact an LLM
        read as excluded, a clause of an episode), so the add's kept input cannot show them either; None
        when screen() excluded nothing that the messages still say."""
        if not self._excluded:
            return None
        said = set(self._excluded)

        def drop(clause: str) -> str | None:
            return EXCLUDED if clause in said or any(_states(clause, text) for text in said) else None

        messages, changed = [], False
        for message in request.messages:
            text, cut = _cut(message.content, drop) if message.role != "system" else (message.content, [])
            changed = changed or bool(cut)
            messages.append(message if not cut else message.model_copy(update={"content": text}))
        return request.model_copy(update={"messages": messages}) if changed else None


@dataclass(frozen=True)
class Decide:
    reason: Callable[[str], str | None]  # why a clause is cut, None when it is kept
    vague: Callable[[str], bool] = lambda clause: False  # says nothing on its own


def _decided(text: str, decide: Decide) -> list[tuple[str, list[tuple[str, str, str | None]]]]:
    """Each sentence of the text (its end) with its clauses (separator, clause, why it is cut or None). A
    vague clause next to an excluded one in its sentence ("cast for six weeks" after "broke my wrist") is
    excluded with it: what it continues is what it says."""
    out = []
    for end, parts in segments(text):
        whys = [decide.reason(c.strip()) if c.strip() else None for _, c in parts]
        for i, (_, clause) in enumerate(parts):
            if whys[i] is None and clause.strip() and decide.vague(clause.strip()):
                near = [whys[j] for j in (i - 1, i + 1) if 0 <= j < len(whys) and (whys[j] or "").startswith(EXCLUDED)]
                whys[i] = near[0] if near else None
        out.append((end, [(sep, clause, why) for (sep, clause), why in zip(parts, whys, strict=True)]))
    return out


def _cut(text: str, drop: Decide | Callable[[str], str | None]) -> tuple[str, list[Skipped]]:
    """The text without the clauses `drop` gives a reason for; the text itself when none."""
    decide = drop if isinstance(drop, Decide) else Decide(drop)
    cut: list[Skipped] = []
    sentences: list[str] = []
    for end, parts in _decided(text, decide):
        kept = ""
        for sep, clause, why in parts:
            if why is not None:
                cut.append(Skipped.left_out("clause", clause.strip(), why))
            elif clause.strip():
                kept += (sep if kept else "") + clause
        if kept.strip():
            sentences.append(kept.strip() + end)
    return (" ".join(sentences) if cut else text), cut
