"""The duplicate rule: a new fact at a cosine >= the threshold (0.95) of a memory, or of a fact said earlier in
the run, is skipped before any decision."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from engram.domain.models import AddRequest, Event, Message, Scope
from engram.domain.steps import CandidateFact
from engram.pipeline.duplicates import DuplicateRule
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


def pipeline(threshold: float, cosines: dict[str, float], llm: ScriptedLLM) -> tuple[IngestPipeline, MemoryFactStore]:
    facts = MemoryFactStore()
    embedder = AngleEmbedder(cosines)
    p = IngestPipeline(
        facts, MemoryIndex(), embedder, LLMFactExtractor(llm), LLMReconciler(llm), duplicate_threshold=threshold
    )
    return p, facts


def say(p: IngestPipeline, fact: str, task: str) -> list[tuple[Event, str]]:
    request = AddRequest(messages=[Message(role="user", content=fact)], user_id="alice")
    return [(r.event, r.memory) for r in p.run(SCOPE, request, task).results]


@pytest.mark.parametrize(
    ("cosine", "skipped"),
    [
        (0.96, True),  # close enough in meaning
        (0.93, False),
    ],
)
def test_a_new_fact_close_to_a_memory(cosine: float, skipped: bool) -> None:
    llm = ScriptedLLM(facts_json("Likes tea"), facts_json("Likes green tea"))
    p, facts = pipeline(0.95, {"Likes tea": 1.0, "Likes green tea": cosine}, llm)
    say(p, "Likes tea", "t1")
    if not skipped:
        llm.answers.append(memory_json({"id": "0", "text": "Likes green tea", "event": "UPDATE"}))
    say(p, "Likes green tea", "t2")
    assert len(llm.calls) == (2 if skipped else 3)  # a skipped fact never reaches the decision
    assert facts.texts("acme", "alice") == (["Likes tea"] if skipped else ["Likes green tea"])


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
