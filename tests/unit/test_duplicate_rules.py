"""The two duplicate rules: cosine alone (>= 0.95), or cosine >= 0.9 and text similarity >= 0.85."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from engram.domain.models import AddRequest, Event, Message, Scope
from engram.domain.steps import CandidateFact
from engram.pipeline.duplicates import DuplicateRule, text_similarity
from engram.pipeline.ingest import IngestPipeline
from engram.pipeline.llm_extractor import LLMFactExtractor
from engram.reconcile.llm import LLMReconciler
from tests.fakes import MemoryFactStore, MemoryIndex, ScriptedLLM, facts_json, memory_json

SCOPE = Scope(tenant_id="acme", user_id="alice")


class AngleEmbedder:
    """Texts at chosen cosines to a base direction: {text: cosine}."""

    model_id = "angles"
    dimensions = 2

    def __init__(self, cosines: dict[str, float]) -> None:
        self.cosines = cosines

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        out = []
        for t in texts:
            c = self.cosines[t]
            out.append([c, float(np.sqrt(1 - c * c))])
        return out


def pipeline(
    rule: DuplicateRule, cosines: dict[str, float], llm: ScriptedLLM
) -> tuple[IngestPipeline, MemoryFactStore]:
    facts = MemoryFactStore()
    p = IngestPipeline(
        facts, MemoryIndex(), AngleEmbedder(cosines), LLMFactExtractor(llm), LLMReconciler(llm), duplicate_rule=rule
    )
    return p, facts


def say(p: IngestPipeline, fact: str, task: str) -> list[tuple[Event, str]]:
    request = AddRequest(messages=[Message(role="user", content=fact)], user_id="alice")
    return [(r.event, r.memory) for r in p.run(SCOPE, request, task).results]


def test_text_similarity_reads_a_changed_word() -> None:
    assert text_similarity("Likes  TEA", "likes tea") == 1.0
    assert text_similarity("Likes tea", "Likes green tea") < 0.85
    assert text_similarity("Lives in Berlin, Germany", "Lives in Berlin Germany") >= 0.85


@pytest.mark.parametrize(
    ("rule", "cosine", "skipped"),
    [
        (DuplicateRule(0.95), 0.96, True),  # cosine alone: close enough in meaning
        (DuplicateRule(0.95), 0.93, False),
        (DuplicateRule(0.9, 0.85), 0.93, False),  # text says they differ
    ],
)
def test_a_new_fact_close_to_a_memory(rule: DuplicateRule, cosine: float, skipped: bool) -> None:
    llm = ScriptedLLM(facts_json("Likes tea"), facts_json("Likes green tea"))
    p, facts = pipeline(rule, {"Likes tea": 1.0, "Likes green tea": cosine}, llm)
    say(p, "Likes tea", "t1")
    if not skipped:
        llm.answers.append(memory_json({"id": "0", "text": "Likes green tea", "event": "UPDATE"}))
    say(p, "Likes green tea", "t2")
    assert len(llm.calls) == (2 if skipped else 3)  # a skipped fact never reaches the decision
    assert facts.texts("acme", "alice") == (["Likes tea"] if skipped else ["Likes green tea"])


def test_with_the_text_rule_a_same_text_fact_close_in_meaning_is_skipped() -> None:
    llm = ScriptedLLM(facts_json("Lives in Berlin, Germany"), facts_json("Lives in Berlin Germany"))
    p, facts = pipeline(
        DuplicateRule(0.9, 0.85), {"Lives in Berlin, Germany": 1.0, "Lives in Berlin Germany": 0.92}, llm
    )
    say(p, "Lives in Berlin, Germany", "t1")
    assert say(p, "Lives in Berlin Germany", "t2") == []
    assert len(llm.calls) == 2 and facts.texts("acme", "alice") == ["Lives in Berlin, Germany"]


def test_a_new_fact_repeating_an_earlier_one_of_the_run_is_a_repeat_by_the_same_rules() -> None:
    vectors = {"Loves pizza": [1.0, 0.0], "Loves sushi": [0.0, 1.0], "I love pizza!": [0.99, 0.05]}
    fact, other = CandidateFact(text="Loves pizza"), CandidateFact(text="Loves sushi")
    episode = CandidateFact(text="I love pizza!", kind="episode")
    rule = DuplicateRule()
    assert rule.repeats(CandidateFact(text="Loves pizza"), [other, fact], vectors)
    assert not rule.repeats(CandidateFact(text="Loves pizza"), [other], vectors)
    assert not rule.repeats(CandidateFact(text="Loves pizza", negated=True), [fact], vectors)  # a retraction
    assert not rule.repeats(CandidateFact(text="Loves pizza"), [fact.model_copy(update={"negated": True})], vectors)
    assert rule.repeats(episode, [fact], vectors)  # an episode repeats anything
    assert not rule.repeats(CandidateFact(text="Loves pizza"), [episode], vectors)  # a fact only a fact
    # With the text rule, close vectors are not enough.
    assert not DuplicateRule(0.9, 0.85).repeats(CandidateFact(text="Loves pizza"), [episode], vectors)
