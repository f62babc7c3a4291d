"""Engram's LLM path against a real model: llama.cpp (the xllamacpp wheel) serving SmolLM2-135M through
the real openai client, with schema-enforced JSON (json_schema response formats).

SmolLM2's answers are poor, which is the point: extraction, the one-call plan, reconciliation (default
and relevance strategies) and graph extraction must leave valid stored state whatever it says, lose
nothing the user said, and name what was turned down or repaired. A server that stalls makes the add
fail fast with the reason and go back to the queue, never hold the worker. Generous timeouts; no
timing is asserted (tests/e2e/test_local_real_llm.py runs the stack and the chat proxy on it)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import openai
import pytest

from engram.adapters.openai.llm import OpenAILLM
from engram.domain.models import AddRequest, Event, Fact, Message, ReconcileStrategy, Scope, TaskResult, TaskStatus
from engram.domain.steps import CandidateFact
from engram.graph.llm import LLMGraphExtractor
from engram.graph.service import GraphService
from engram.pipeline.ingest import IngestOutcome, IngestPipeline
from engram.pipeline.llm_extractor import LLMFactExtractor
from engram.pipeline.one_call import OneCall
from engram.reconcile.checks import NOTE, PlanChecks
from engram.reconcile.llm import LLMReconciler
from engram.reconcile.statement_plan import NOTE as STATED
from engram.services.worker import ExtractionWorker
from engram_tools.local.gguf_vocab import line_break_tokens
from tests.fakes import HashEmbedder, MemoryFactStore, MemoryGraphStore, MemoryIndex
from tests.integration.stack import Stack, poll
from tests.support.handlers import load_function
from tests.support.llama import ALIAS, smollm2_path, smollm2_server

SCOPE = Scope(tenant_id="acme", user_id="alice")
SLOW_S = 600.0  # per call: a real model on two busy cores; never asserted
BEFORE = ("User lives in Hamburg and works at Airbus", "User has a cat named Tom")
# Not something the offline rules read whole, so the LLM is asked, and the message is kept as said.
NEWS = "Big news from the Mertens household: we finally moved to Munich last week, boxes everywhere!"


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[openai.OpenAI]:
    with smollm2_server(tmp_path_factory.mktemp("llama")) as server:
        yield openai.OpenAI(base_url=server.base_url, api_key="local", timeout=SLOW_S, max_retries=0)


@pytest.fixture(scope="module")
def llm(client: openai.OpenAI) -> OpenAILLM:
    # As ENGRAM_LLM=local wires its model: the line-break tokens banned (tests/e2e/test_local_real_llm.py
    # points the stack at the same server as at any OpenAI-compatible one, without them).
    return OpenAILLM(client, ALIAS, line_break_tokens(smollm2_path()))


@pytest.fixture(scope="module")
def any_server_llm(client: openai.OpenAI) -> OpenAILLM:
    """The model as any OpenAI-compatible server is called (no tokens banned)."""
    return OpenAILLM(client, ALIAS)


class World:
    """Engram's ingest pipeline on in-memory stores, with the real model in every LLM step."""

    def __init__(self, llm: OpenAILLM, one_call: bool) -> None:
        self.facts, self.graph_store, embedder = MemoryFactStore(), MemoryGraphStore(), HashEmbedder()
        self.checks = PlanChecks(embedder)
        self.graph = GraphService(self.graph_store, MemoryIndex(), embedder, LLMGraphExtractor(llm, self.graph_store))
        self.pipeline = IngestPipeline(
            self.facts,
            MemoryIndex(),
            embedder,
            LLMFactExtractor(llm),
            LLMReconciler(llm, self.checks),
            keep_episodes=True,
            graph=self.graph if one_call else None,
            one_call=OneCall(llm, checks=self.checks) if one_call else None,
        )
        for i, text in enumerate(BEFORE):  # stored as given: no model call
            message = Message(role="user", content=text)
            request = AddRequest(messages=[message], user_id="alice", infer=False, deduplicate=False)
            self.pipeline.run(SCOPE, request, f"seed-{i}")

    def current(self) -> list[Fact]:
        return self.facts.list_current("acme", "alice").items

    def add(self, text: str, **options: object) -> IngestOutcome:
        request = AddRequest(messages=[Message(role="user", content=text)], user_id="alice", **options)  # type: ignore[arg-type]
        return self.pipeline.run(SCOPE, request, f"task-{time.monotonic_ns()}")


def assert_sound(world: World, before: list[Fact], outcome: IngestOutcome, said: str) -> None:
    """What Engram guarantees whatever the model answered."""
    after = world.current()
    assert after and all(f.text.strip() for f in after)
    assert all(0.0 <= f.importance <= 1.0 for f in after)
    # nothing disappears silently: a memory no longer current was updated or closed by a result naming it
    gone = {f.id for f in before} - {f.id for f in after}
    named = {r.id for r in outcome.results if r.event in (Event.UPDATE, Event.DELETE)}
    assert gone <= named, (gone, outcome.results)
    # what the user said stays retrievable: the message itself is kept (an episode) whatever facts came out
    assert any(said in f.text for f in after), [f.text for f in after]
    for result in outcome.results:
        assert_named(result)


def assert_named(result: TaskResult) -> None:
    """A decision a check turned down keeps its memory and says why in the task result."""
    if result.event is Event.NONE:
        assert result.note, result
    if result.note and NOTE in result.note:
        assert result.event in (Event.NONE, Event.ADD), result


def test_separate_calls_extract_and_reconcile_into_sound_state(llm: OpenAILLM) -> None:
    world = World(llm, one_call=False)
    before = world.current()
    outcome = world.add(NEWS)

    assert outcome.usage.llm_calls >= 1  # the model was asked
    assert_sound(world, before, outcome, NEWS)


def test_the_one_call_plan_and_its_graph_leave_sound_state(llm: OpenAILLM) -> None:
    world = World(llm, one_call=True)
    before = world.current()
    outcome = world.add(NEWS)

    assert outcome.usage.llm_calls >= 1
    assert_sound(world, before, outcome, NEWS)
    for relation in world.graph.relations("acme", "alice", 100, None).relations:
        assert relation.source.strip() and relation.relation.strip() and relation.destination.strip()


def test_the_relevance_strategy_leaves_sound_state(llm: OpenAILLM) -> None:
    world = World(llm, one_call=False)
    before = world.current()
    outcome = world.add(NEWS, strategy=ReconcileStrategy.RELEVANCE)

    assert_sound(world, before, outcome, NEWS)


@pytest.mark.parametrize("strategy", [ReconcileStrategy.DEFAULT, ReconcileStrategy.RELEVANCE])
def test_a_real_models_reconciliation_plan_passes_the_checks(llm: OpenAILLM, strategy: ReconcileStrategy) -> None:
    existing = [Fact(id=f"m{i}", tenant_id="acme", user_id="alice", text=t) for i, t in enumerate(BEFORE)]
    facts = [
        CandidateFact(text="User moved to Munich", by_llm=True),
        CandidateFact(text="User likes jazz", by_llm=True),
    ]
    checks = PlanChecks(HashEmbedder())
    decisions, usage = LLMReconciler(llm, checks).reconcile(
        facts, existing, strategy, "I moved to Munich. I like jazz."
    )

    assert usage.llm_calls >= 1
    # the checks accept what they let through: applying them again changes no event
    again = checks([d.model_copy() for d in decisions], facts, existing)
    assert [(d.event, d.memory_id) for d in again] == [(d.event, d.memory_id) for d in decisions]
    for d in decisions:
        if d.event is Event.NONE and d.memory_id and d.note:
            assert d.note.startswith(NOTE) or NOTE in d.note
    # every new fact ends up somewhere
    held = " ".join(d.text for d in decisions if d.event in (Event.ADD, Event.UPDATE, Event.NONE)).lower()
    assert "munich" in held and "jazz" in held


def test_graph_extraction_by_a_real_model_stores_well_formed_relations(llm: OpenAILLM) -> None:
    store = MemoryGraphStore()
    graph = GraphService(store, MemoryIndex(), HashEmbedder(), LLMGraphExtractor(llm, store))
    message = Message(role="user", content="My sister Ines works at Siemens in Munich.")
    _, usage = graph.ingest(SCOPE, [message], [], "task-graph")

    assert usage.llm_calls >= 1
    for relation in graph.relations("acme", "alice", 100, None).relations:
        assert relation.source.strip() and relation.relation.strip() and relation.destination.strip()
        assert relation.task_id == "task-graph"


class _Stalls(BaseHTTPRequestHandler):
    """An OpenAI-compatible server that accepted the request and never answers in time."""

    def do_POST(self) -> None:
        time.sleep(30)

    do_GET = do_POST

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def stalling_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Stalls)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()


def test_a_stalled_server_fails_the_add_fast_and_keeps_it_queued(stack: Stack, stalling_url: str) -> None:
    client = openai.OpenAI(base_url=stalling_url, api_key="local", timeout=1.0, max_retries=0)
    stalled = OpenAILLM(client, ALIAS)
    c = stack.container
    c.pipeline.extractor = LLMFactExtractor(stalled)
    c.pipeline.reconciler = LLMReconciler(stalled, PlanChecks(HashEmbedder()))
    c.worker = ExtractionWorker(c.tasks, c.pipeline, c.blobs, c.task_events)
    task_id = c.memories.submit("acme", AddRequest(messages=[Message(role="user", content=NEWS)], user_id="u1")).task_id

    assert poll(stack, load_function("extraction").lambda_handler, stack.queue_url) == 1  # returned, not held

    (task,) = c.tasks.get_many("acme", [task_id])
    assert task.status is TaskStatus.QUEUED  # to be retried, not lost
    assert "cannot reach" in (task.error or "") and "timed out" in (task.error or "").lower()
    assert len(stack.queued()) == 1  # the message is back on the queue


def test_a_real_models_statements_are_stored_and_the_resolver_applies_them(any_server_llm: OpenAILLM) -> None:
    """A move told in two adds: each fact the model wrote carries the statements it gave in its one call,
    dated when their message was said, and the plan's change of state is resolved from them
    (reconcile/statement_plan.py). SmolLM2 names attributes poorly ("i", "text"), so what is asserted is what
    holds whatever it names: the resolver ran on its statements, and a memory it outdated named the old
    value in its text (one it could not cut apart stays current, with the reason): nothing is lost.
    Held to one line, SmolLM2 copies its answer's shape ("...") for the second add three times over, which is
    refused, so the resolver has nothing of its to run on: this runs it unbanned, where it states something."""
    llm = any_server_llm
    world = World(llm, one_call=False)
    world.pipeline.one_call = OneCall(llm, checks=world.checks)  # the one call without the graph's part, as
    world.facts.current.clear()  # the real-model stack runs it; no memories stored as given: a fresh user
    lived, moved = datetime(2026, 1, 5, tzinfo=UTC), datetime(2026, 6, 5, tzinfo=UTC)
    outcomes = []
    for said, when in (("I live in Leeds.", lived), ("I moved to York.", moved)):
        message = Message(role="user", content=said, created_at=when)
        request = AddRequest(messages=[message], user_id="alice")
        outcomes.append(world.pipeline.run(SCOPE, request, f"task-{time.monotonic_ns()}"))

    every = list(world.facts.current.values())
    stated = [f for f in every if f.kind == "fact" and f.statements]
    assert stated, [(f.text, f.kind) for f in every]  # the model's statements are stored with its facts
    for fact in stated:
        assert all(s.attribute.strip() and s.value.strip() for s in fact.statements)
        assert {s.event_time for s in fact.statements} <= {lived, moved, fact.valid_from}
    resolved = [r for r in outcomes[1].results if r.note and STATED in r.note]
    assert resolved, outcomes[1].results  # the second add's change of state went through the statements
    for result in resolved:
        memory = world.facts.current[("acme", result.id)]
        if result.event is Event.DELETE:  # closed when the move was said, and only where its text named the old value
            assert memory.valid_to == moved and "outdated by" in (result.note or "")
        else:
            assert result.event in (Event.NONE, Event.ADD, Event.UPDATE) and memory.text.strip()
    assert any("Leeds" in f.text for f in every)  # what the user said stays


FACTS = {
    "type": "object",
    "properties": {"facts": {"type": "array", "items": {"type": "object", "properties": {"text": {"type": "string"}}}}},
    "required": ["facts"],
    "additionalProperties": False,
}
INDENT = "Write the facts about the user as JSON, pretty-printed: one key a line, indented by two spaces."
SAID = "I live in Leeds and I work as a nurse. My cat is called Tom."


def test_the_local_models_json_comes_on_one_line(client: openai.OpenAI, llm: OpenAILLM) -> None:
    """Without its line-break tokens the grammar leaves the model spaces only: asked to indent, it writes
    the same JSON on one line (indented answers were twice as long, and the ones that ran on)."""
    unbanned = client.chat.completions.create(
        model=ALIAS,
        messages=[{"role": "system", "content": INDENT}, {"role": "user", "content": SAID}],
        response_format={"type": "json_schema", "json_schema": {"name": "facts", "schema": FACTS, "strict": True}},
        temperature=0,
        max_tokens=12,
    )
    assert "\n" in (unbanned.choices[0].message.content or "")  # left to itself, the model indents as asked

    reply = llm.complete_json(INDENT, SAID, FACTS, "facts")

    assert "\n" not in reply.content and "\r" not in reply.content
    assert isinstance(json.loads(reply.content)["facts"], list)
