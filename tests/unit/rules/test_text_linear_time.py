"""No message can stall a worker: every pattern the offline rules run on user text takes time linear in
its length. A run of two dozen "!" before a last word once took longer than 20 s (nested quantifiers
backtracking), holding the GIL and with it the whole local stack.

The budget is CPU time, generous for a loaded machine: 50 ms per 1,000 characters."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engram.domain.models import AddRequest, ExtractionPrompt, Message, Scope
from engram.pipeline.clauses import clauses
from engram.pipeline.episodes import states_something
from engram.pipeline.ingest import IngestPipeline
from engram.reconcile.offline import KeyReconciler
from engram.rules import people as rules_people
from engram.rules.extractor import OfflineExtractor
from engram.rules.patterns import AGENT_RULES, RULES, analyse_agent_message, analyse_message
from engram.rules.relations import sentence_triples
from engram.rules.third_person import MAX_SENTENCE
from engram.text.clauses import MAX_CLAUSE, Clause, split_clauses, split_sentences, strip_trailing
from engram.text.terms import tokenize
from tests.fakes import HashEmbedder, MemoryFactStore, MemoryIndex

BUDGET_PER_1000 = 0.05
AT = datetime(2023, 5, 8, tzinfo=UTC)

# Runs of what people type: punctuation, emoji, whitespace of every kind, repeated words and phrases.
UNITS = [
    "!",
    ")",
    "(",
    ".",
    ",",
    ":",
    ";",
    "?",
    "-",
    "\u2014",
    "*",
    "~",
    " ",
    "\t",
    "\u2003",
    "\u00a0",
    "\r",
    "\x0b",
    "\U0001f600",
    "\u2764",
    "lol ",
    "now ",
    "and ",
    "I ",
    "very ",
    "haha",
    "ok ",
    "\n",
    "my ",
    "'s ",
    "Tom ",
    "a ",
    "I love ",
    ", ",
    "I'm ",
    "Hi, ",
    "my sister Anna ",
    "and I ",
    "Dr. ",
    "U.S. ",
    "a.b.",
    "with my ",
    "last week ",
    "for a few years ",
    "because ",
    "I live in Berlin ",
    "My Sister Maren Lives In ",
    # the graph's third-person shapes (rules/third_person.py)
    "Tom's sister ",
    "Maren, my sister, ",
    "and works at ",
    "now recently still ",
    "She ",
    "Mr. ",
    "who is ",
    "as a ",
    "lives in Oslo and ",
    "Anna Lee Smith ",
]
TEMPLATES = ["{run}", "I love pizza{run}x", "I live in Berlin {run} now", "Hi{run}", "I'm {run}", "{run}I love pizza"]


def cpu(work: Callable[[], object]) -> float:
    start = time.process_time()
    work()
    return time.process_time() - start


def whole_extractor(text: str) -> None:
    message = Message(role="user", content=text, created_at=AT)
    analyse_message(text, AT)
    analyse_agent_message(text)
    states_something(text)
    sentence_triples([message])
    tokenize(text)
    clauses(text)  # the policy screen's split


def budget(text: str) -> float:
    return max(0.05, BUDGET_PER_1000 * len(text) / 1000)


@pytest.mark.parametrize("unit", UNITS, ids=repr)
def test_a_100000_character_run_is_read_within_the_budget(unit: str) -> None:
    text = (unit * (100_000 // len(unit) + 1))[:100_000]
    for template in ("{run}", "I love pizza {run}x"):
        message = template.format(run=text)[:100_000]
        spent = cpu(lambda message=message: whole_extractor(message))  # type: ignore[misc]
        assert spent <= budget(message), f"{spent:.2f} s CPU for {len(message)} characters of {unit!r}"


def rule_cost(text: str) -> tuple[float, str]:
    """The CPU time of the slowest rule on one clause, and its name."""
    clause = Clause(text, lowercase=False, at=AT)
    rules = (*RULES, *AGENT_RULES, rules_people.mentions)
    costs = [(cpu(lambda rule=rule: rule(clause)), rule.__name__) for rule in rules]  # type: ignore[misc]
    return max(costs)


@pytest.mark.parametrize("unit", UNITS, ids=repr)
def test_each_rule_reads_the_longest_clause_it_takes_of_a_run_within_the_budget(unit: str) -> None:
    for template in TEMPLATES:
        text = template.format(run=unit * MAX_CLAUSE)[:MAX_CLAUSE]
        spent, name = rule_cost(text)
        assert spent <= budget(text), f"{name}: {spent:.3f} s on {text[:40]!r}"
        assert cpu(lambda: strip_trailing(text * 300)) <= budget(text * 300)  # noqa: B023 - called at once


@pytest.mark.parametrize("unit", UNITS, ids=repr)
def test_the_graph_shapes_read_a_message_of_longest_sentences_within_the_budget(unit: str) -> None:
    """Every sentence as long as the third-person shapes read (the worst case for their patterns)."""
    sentence_triples([Message(role="user", content="My sister Maren lives in Oslo.")])  # one-time set-up, not counted
    for template in ("{run}", "My sister Maren {run}", "Tom's wife Anna {run} lives in Oslo", "She {run}"):
        sentence = template.format(run=unit * MAX_SENTENCE)[: MAX_SENTENCE - 1].rstrip() + "."
        message = Message(role="user", content=" ".join([sentence] * (99_000 // MAX_SENTENCE)))
        spent = cpu(lambda message=message: sentence_triples([message]))  # type: ignore[misc]
        assert spent <= budget(message.content), f"{spent:.2f} s CPU on {sentence[:40]!r}"


def test_a_clause_longer_than_the_rules_take_costs_them_nothing() -> None:
    """The rules' patterns only ever see bounded clauses: a longer one is left to the LLM or kept as said."""
    spent, name = rule_cost("I love pizza" + " " * 100_000 + "x")
    assert spent <= 0.05, f"{name}: {spent:.3f} s"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.sampled_from(UNITS), min_size=1, max_size=400),
    st.text(st.characters(codec="utf-8", blacklist_characters="\x00"), max_size=200),  # what a request can carry
)
def test_any_mix_of_runs_and_text_is_read_within_the_budget(units: list[str], noise: str) -> None:
    text = "".join(units) + noise
    spent = cpu(lambda: (whole_extractor(text), [split_clauses(s) for s in split_sentences(text)]))
    assert spent <= budget(text)


def test_a_message_past_its_time_budget_is_kept_whole_and_the_task_says_it_was_cut_short() -> None:
    """Even a message that would take long gets a budget: the rest is kept as said, never lost."""
    facts = MemoryFactStore()
    extractor = OfflineExtractor(budget_s=0.0)  # every message runs out at once
    pipeline = IngestPipeline(facts, MemoryIndex(), HashEmbedder(), extractor, KeyReconciler(), keep_episodes=True)
    text = "I live in Berlin. " + "I really enjoy long walks by the river in the evening. " * 20
    request = AddRequest(messages=[Message(role="user", content=text)], user_id="alice")
    outcome = pipeline.run(Scope(tenant_id="local", user_id="alice"), request, "t1")
    assert outcome.counts["cut_short"] == 1
    kept = [f for f in facts.list_current("local", "alice").items if f.kind == "episode"]
    assert [f.text for f in kept] == [text.strip()]
    assert any("cut short" in (r.note or "") for r in outcome.results)
    assert extractor.cut_short([Message(role="user", content=text)], ExtractionPrompt.USER) == [0]
