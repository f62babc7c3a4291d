"""The rule registry and the analysis of one message into clauses, facts and what was understood.

Rules are tried in order and the first that matches a whole clause wins; family members and pets
named anywhere in a clause ("I went hiking with my sister Anna") are picked up besides.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from datetime import datetime

from engram.domain.models import MemoryBank
from engram.domain.steps import CandidateFact
from engram.rules import (
    health as rules_health,
)
from engram.rules import (
    identity as rules_identity,
)
from engram.rules import (
    life as rules_life,
)
from engram.rules import (
    people as rules_people,
)
from engram.rules import (
    preferences as rules_preferences,
)
from engram.rules import (
    reminders as rules_reminders,
)
from engram.rules import (
    work as rules_work,
)
from engram.rules.facts import NAME, Match, Rule, make, one, regex_rule
from engram.rules.identity import person_name
from engram.rules.shorthand import expand
from engram.text.clauses import (
    MAX_CLAUSE,
    Clause,
    is_hypothetical,
    is_question,
    is_small_talk,
    split_clauses,
    split_sentences,
)
from engram.text.letters import LETTER

# Order matters where phrasings overlap: "I'm allergic to" before "I'm a <job>", "I'm a big fan of"
# before "I'm a <job>", "I moved from Berlin to Munich" (a home) before "I went from X to Y" (a job).
RULES: tuple[Rule, ...] = (
    *rules_reminders.RULES,
    *rules_health.RULES,
    *rules_preferences.RULES,
    *rules_people.RULES,
    *rules_identity.RULES,
    *rules_life.EARLY,
    *rules_work.RULES,
    *rules_life.RULES,
)
# Requests are the only statements a question can carry: "Can you remind me to call mom?"
REQUEST_RULES: tuple[Rule, ...] = rules_reminders.RULES


@dataclass(frozen=True)
class ClauseResult:
    text: str
    facts: tuple[CandidateFact, ...]
    understood: bool  # every part of the clause was matched by a rule, or it was small talk
    cut_short: bool = False  # the message's time budget ran out here: the rest was not read


def analyse_clause(clause: Clause, rules: tuple[Rule, ...] = RULES) -> ClauseResult:
    if is_small_talk(clause.text):
        return ClauseResult(clause.text, (), True)
    if len(clause.text) > MAX_CLAUSE:
        return ClauseResult(clause.text, (), False)
    found: Match | None = next((m for m in (rule(clause) for rule in rules) if m is not None), None)
    facts = list(found.facts) if found else []
    complete = found.complete if found else False
    if rules is RULES:
        named = rules_people.mentions(clause)
        if named is not None:
            keys = {f.fact_key for f in facts}
            facts.extend(f for f in named.facts if f.fact_key not in keys)
            complete = complete if found else named.complete
    return ClauseResult(clause.text, tuple(facts), bool(facts) and complete)


def analyse_message(text: str, at: datetime | None = None, budget_s: float | None = None) -> list[ClauseResult]:
    """What the user says about themselves, clause by clause; questions and hypotheticals carry no facts.
    `at` is when it was said (relative dates resolve against it). Past `budget_s` of CPU time the rest
    is left unread and the last result says so (`cut_short`): no message can hold a user's queue."""
    deadline = None if budget_s is None else time.process_time() + budget_s
    lowercase = not any(ch.isupper() for ch in text)
    results: list[ClauseResult] = []
    for sentence in split_sentences(expand(text)):  # "my gf is called ana": shorthand read as said in full
        if deadline is not None and time.process_time() >= deadline:
            results.append(ClauseResult("", (), False, cut_short=True))
            break
        question, hypothetical = is_question(sentence), is_hypothetical(sentence)
        for piece in split_clauses(sentence):
            clause = Clause(piece, lowercase, at)
            if is_small_talk(piece):
                results.append(ClauseResult(piece, (), True))
            elif question:
                request = analyse_clause(clause, REQUEST_RULES)
                results.append(request if request.facts else ClauseResult(piece, (), False))
            elif hypothetical:
                results.append(ClauseResult(piece, (), False))
            else:
                results.append(analyse_clause(clause))
    return results


def _agent_name(found: re.Match[str], clause: Clause) -> Match | None:
    name = person_name(found.group("n"), clause, need_capital=True)
    return one(make(f"Name is {name}", "name", name, MemoryBank.PERSONAL, NAME)) if name else None


_IM = r"(?:i'?m|i\s+am)"
_KIND = r"(?:an?\s+)?(?:(?:ai|virtual|digital|personal|helpful|friendly)\s+)*(?:assistant|model|chatbot|bot|agent)"

# With the agent prompt, assistant messages are mined for the assistant's own identity only.
AGENT_RULES: tuple[Rule, ...] = (
    regex_rule(rf"{_IM}\s+{_KIND}\s+(?:named|called)\s+(?P<n>.+)", _agent_name),
    regex_rule(r"my\s+name(?:'s|\s+is)\s+(?P<n>.+)", _agent_name),
    regex_rule(rf"{_IM}\s+(?:called\s+)?(?P<n>{LETTER}+)(?:,\s+(?:your|an?)\s+.*)?", _agent_name),
    regex_rule(r"(?:you\s+can\s+)?call\s+me\s+(?P<n>.+)", _agent_name),
)


def analyse_agent_message(text: str) -> list[ClauseResult]:
    results: list[ClauseResult] = []
    for sentence in split_sentences(text):
        if is_question(sentence):
            continue
        for piece in split_clauses(sentence):
            results.append(analyse_clause(Clause(piece), AGENT_RULES))
    return results
