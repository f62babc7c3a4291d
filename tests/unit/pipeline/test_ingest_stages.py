"""One add as stages over one run state: the policy screens the messages and the prompt is chosen once, the
single call plans when it can, the facts are read, decided and applied, the graph adds relations, and the
outcome names what the policy left out."""

from __future__ import annotations

from engram.domain.models import AddRequest, Event, ExtractionPrompt, Message, Scope
from engram.domain.policy import MemoryPolicy
from engram.domain.relation_changes import TaskRelations
from engram.pipeline.ingest import (
    STAGES,
    IngestPipeline,
    IngestRun,
    add_relations,
    drop_unsaid,
    keep_instructions,
    plan,
    report_skipped,
    screen_instructions,
    screen_messages,
    store_facts,
)
from engram.pipeline.reads import RunReads
from engram.reconcile.offline import KeyReconciler
from engram.rules.extractor import OfflineExtractor
from tests.fakes import HashEmbedder, MemoryFactStore, MemoryIndex

SCOPE = Scope(tenant_id="acme", user_id="alice")


def pipeline() -> IngestPipeline:
    return IngestPipeline(MemoryFactStore(), MemoryIndex(), HashEmbedder(), OfflineExtractor(), KeyReconciler())


def state(p: IngestPipeline, *messages: tuple[str, str], policy: MemoryPolicy | None = None) -> IngestRun:
    request = AddRequest(messages=[Message(role=r, content=c) for r, c in messages], user_id="alice")
    reads = RunReads(p.facts, p.index, SCOPE.tenant_id, SCOPE.user_id)
    return IngestRun(SCOPE, request, "t1", reads, policy=policy)


def test_the_stages_run_in_this_order() -> None:
    assert STAGES == (
        *(screen_messages, screen_instructions, plan, store_facts, keep_instructions),
        *(drop_unsaid, add_relations, report_skipped),
    )


def test_screening_cuts_excluded_clauses_and_chooses_the_prompt_once() -> None:
    p = pipeline()
    run = state(p, ("user", "I live in Berlin. I'm allergic to peanuts."), policy=MemoryPolicy(exclude=["Health"]))
    screen_messages(p, run)
    assert run.redacted and [s.reason for _, s in run.skipped] == ["excluded: Health"]
    assert "peanuts" not in run.request.messages[0].content
    assert run.prompt is ExtractionPrompt.USER

    only_assistant = state(p, ("assistant", "You booked a table for Friday."))
    screen_messages(p, only_assistant)
    assert not only_assistant.redacted and only_assistant.prompt is ExtractionPrompt.AGENT


def test_without_the_single_call_nothing_is_planned() -> None:
    p = pipeline()
    run = state(p, ("user", "I live in Berlin"))
    screen_messages(p, run)
    plan(p, run)
    assert run.planned is None


def test_the_facts_stage_reads_decides_and_applies() -> None:
    p = pipeline()
    run = state(p, ("user", "I live in Berlin"))
    for stage in (screen_messages, plan, store_facts):
        stage(p, run)
    assert [(r.event, r.memory) for r in run.result.results] == [(Event.ADD, "Lives in Berlin")]
    assert p.facts.texts("acme", "alice") == ["Lives in Berlin"]  # type: ignore[attr-defined]


def test_the_last_stage_names_what_the_policy_left_out_and_the_messages_without_it() -> None:
    p = pipeline()
    run = state(p, ("user", "I live in Berlin. I'm allergic to peanuts."), policy=MemoryPolicy(exclude=["Health"]))
    for stage in STAGES:
        stage(p, run)
    outcome = run.result
    assert outcome.counts["excluded"] == 1 and [s.reason for _, s in outcome.skipped] == ["excluded: Health"]
    assert outcome.messages is not None and "peanuts" not in outcome.messages[0].content


def test_a_run_without_a_graph_adds_no_relations() -> None:
    p = pipeline()
    run = state(p, ("user", "My sister Maren lives in Oslo"))
    for stage in (screen_messages, plan, store_facts):
        stage(p, run)
    counts = dict(run.result.counts)
    add_relations(p, run)
    assert run.result.counts == counts and run.result.relations == TaskRelations()
