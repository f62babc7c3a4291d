"""Everyday statements the offline extractor reads: paraphrases of home, job changes that supersede,
idioms of taste, trips and plans with their dates made absolute, routines, possessions, education."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from engram.domain.models import AddRequest, ExtractionPrompt, Message, Scope
from engram.pipeline.ingest import IngestPipeline
from engram.reconcile.offline import KeyReconciler
from engram.rules.extractor import OfflineExtractor
from tests.fakes import HashEmbedder, MemoryFactStore, MemoryIndex

MONDAY = datetime(2026, 11, 23, 10, 0, tzinfo=UTC)
SCOPE = Scope(tenant_id="t", user_id="u")


def facts_of(text: str) -> set[tuple[str, str | None]]:
    found, _ = OfflineExtractor(clock=lambda: MONDAY).extract(
        [Message(role="user", content=text)], ExtractionPrompt.USER, SCOPE
    )
    return {(f.text, f.fact_key) for f in found}


@pytest.mark.parametrize(
    ("said", "fact"),
    [
        ("Right now I'm based out of Vienna", ("Lives in Vienna", "location")),
        ("nothing beats a plate of dumplings for me", ("Loves a plate of dumplings", "preference:plate of dumplings")),
        (
            "I'm heading to Madrid next month for a wedding",
            ("Is travelling to Madrid for a wedding in December 2026", "trip:madrid"),
        ),
        (
            "I have a dentist appointment on Friday",
            ("Has a dentist appointment on 27 November 2026", "event:dentist appointment"),
        ),
        ("I'm flying to Oslo tomorrow", ("Is travelling to Oslo on 24 November 2026", "trip:oslo")),
        ("I got promoted to senior editor", ("Works as a senior editor", "job_title")),
        ("I go swimming every morning", ("Goes swimming every morning", "routine:go swimming")),
        ("I own a vintage Vespa", ("Owns a vintage Vespa", "possession:vintage vespa")),
        ("I have a degree in chemistry", ("Has a degree in chemistry", "degree:chemistry")),
        ("Karaoke is not my thing", ("Dislikes Karaoke", "preference:karaoke")),
    ],
)
def test_everyday_statements_become_facts(said: str, fact: tuple[str, str]) -> None:
    assert fact in facts_of(said)


def test_a_job_change_supersedes_the_old_employer_and_title() -> None:
    facts = MemoryFactStore()
    pipeline = IngestPipeline(facts, MemoryIndex(), HashEmbedder(), OfflineExtractor(), KeyReconciler())
    for n, said in enumerate(
        ["I work at the bank as an analyst", "I left the bank and joined a design studio called Fernweh as a UX lead"]
    ):
        pipeline.run(SCOPE, AddRequest(user_id="u", messages=[Message(role="user", content=said)]), f"t{n}")
    current = {f.fact_key: f.fact_value for f in facts.list_current("t", "u").items}
    assert current["employer"] == "Fernweh"
    assert current["job_title"] == "UX lead"


def test_questions_and_small_talk_still_give_nothing() -> None:
    assert facts_of("Are you heading to Madrid next month?") == set()
    assert facts_of("Thanks, that's great!") == set()
