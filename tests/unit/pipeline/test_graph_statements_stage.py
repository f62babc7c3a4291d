"""The ingest pipeline's graph stages on what the run's memories state: their statements are relations (added
with the memories, messages stored as said included) that close with the statement a later one outdated."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from engram.domain.graph import Relation, normalise_name
from engram.domain.models import AddRequest, Message, Scope, Usage
from engram.domain.outdated import Outdated
from engram.domain.statements import Statement
from engram.graph.service import GraphService
from engram.pipeline.ingest import IngestOutcome, IngestPipeline, IngestRun, close_ended_relations
from engram.pipeline.reads import RunReads
from engram.reconcile.offline import KeyReconciler
from engram.rules.extractor import OfflineExtractor
from tests.fakes import HashEmbedder, MemoryFactStore, MemoryGraphStore, MemoryIndex

SCOPE = Scope(tenant_id="acme", user_id="alice")
START = datetime(2025, 3, 1, 9, tzinfo=UTC)


class Reader:
    """A StatementReader (domain/ports.py) that knows what some sentences state (the real one: state/)."""

    def __init__(self, said: dict[str, tuple[Statement, ...]]) -> None:
        self.said = said

    def statements(self, texts: Sequence[str]) -> list[tuple[Statement, ...]]:
        return [next((s for phrase, s in self.said.items() if phrase in text), ()) for text in texts]


def world(subject: str, attribute: str, value: str, single: bool = True) -> Statement:
    return Statement(subject=subject, attribute=attribute, value=value, single=single)


READER = Reader(
    {
        "CEO of Norrland Freight is Otieno Kamau": (world("Norrland Freight", "ceo", "Otieno Kamau"),),
        "CEO of Norrland Freight is now Ana Lima": (world("Norrland Freight", "ceo", "Ana Lima"),),
        "Otieno Kamau is a citizen of Kenya": (world("Otieno Kamau", "citizenship", "Kenya", False),),
        "Ana Lima is a citizen of Chile": (world("Ana Lima", "citizenship", "Chile", False),),
        "I live in York and work at Soins Alpins": (
            Statement(attribute="home", value="York", single=True),
            Statement(attribute="employer", value="Soins Alpins", single=True),
        ),
    }
)


def product() -> tuple[IngestPipeline, GraphService]:
    graph = GraphService(MemoryGraphStore(), MemoryIndex(), HashEmbedder())
    facts, index = MemoryFactStore(), MemoryIndex()
    extractor, reconciler = OfflineExtractor(), KeyReconciler()
    # the unit of work reads what each new memory states as it writes it
    pipeline = IngestPipeline(
        facts, index, HashEmbedder(), extractor, reconciler, keep_episodes=True, graph=graph, statements=READER
    )
    return pipeline, graph


def add(pipeline: IngestPipeline, day: int, *texts: str, infer: bool = True) -> None:
    at = START + timedelta(days=day)
    messages = [Message(role="user", content=t, created_at=at + timedelta(minutes=i)) for i, t in enumerate(texts)]
    pipeline.run(SCOPE, AddRequest(user_id="alice", messages=messages, infer=infer), f"task-{day}")


def current(graph: GraphService) -> list[Relation]:
    return [r for r in graph.relations("acme", "alice", 1000, None).relations if r.current]


def walk(graph: GraphService, subject: str, *hops: str) -> set[str]:
    """The ends the current relations reach from the subject's entity, a relation name a hop."""
    relations = current(graph)
    ends = {e.id: e.name for e in graph.entities("acme", "alice", 1000, None).entities}
    at = {i for i, name in ends.items() if normalise_name(name) == normalise_name(subject)}
    for hop in hops:
        at = {r.destination_entity_id for r in relations if r.relation == hop and r.source_entity_id in at}
    return {ends[i] for i in at}


def test_a_two_hop_question_follows_the_latest_statement_through_the_graph() -> None:
    pipeline, graph = product()
    add(pipeline, 0, "The CEO of Norrland Freight is Otieno Kamau.", "Otieno Kamau is a citizen of Kenya.")
    assert walk(graph, "Norrland Freight", "ceo", "nationality") == {"Kenya"}
    add(pipeline, 1, "Ana Lima is a citizen of Chile.", "The CEO of Norrland Freight is now Ana Lima.")
    assert walk(graph, "Norrland Freight", "ceo", "nationality") == {"Chile"}
    assert walk(graph, "Otieno Kamau", "nationality") == {"Kenya"}  # what the change left alone stays


def test_a_message_stored_as_said_has_the_relations_it_states() -> None:
    pipeline, graph = product()
    add(pipeline, 0, "I live in York and work at Soins Alpins.", infer=False)
    (stored,) = pipeline.facts.list_current("acme", "alice", 10, None).items
    assert {(r.relation, r.destination, tuple(r.memory_ids)) for r in current(graph)} == {
        ("lives_in", "York", (stored.id,)),
        ("works_at", "Soins Alpins", (stored.id,)),
    }


def test_the_close_stage_closes_only_the_statement_a_later_one_outdated() -> None:
    pipeline, graph = product()
    add(pipeline, 0, "I live in York and work at Soins Alpins.", infer=False)
    (kept,) = pipeline.facts.list_current("acme", "alice", 10, None).items
    # What the resolution leaves (state/): the home statement outdated by m2, the memory kept current.
    home, work = kept.statements
    marked = [home.model_copy(update={"outdated_by": "m2"}), work]
    assert isinstance(pipeline.facts, MemoryFactStore)
    pipeline.facts.current[("acme", kept.id)] = kept.model_copy(update={"statements": marked, "outdated_by": ["m2"]})
    request = AddRequest(user_id="alice", messages=[Message(role="user", content="I moved to Leeds.")])
    run = IngestRun(SCOPE, request, "t2", RunReads(pipeline.facts, pipeline.index, "acme", "alice"))
    run.outcome = IngestOutcome([], Usage(), {})
    run.outcome.outdated = [Outdated(kept.id, "home", ("York",), "m2", START + timedelta(days=30), False)]
    close_ended_relations(pipeline, run)
    assert [(r.relation, r.destination) for r in run.result.relations.closed] == [("lives_in", "York")]
    assert {(r.relation, r.destination) for r in current(graph)} == {("works_at", "Soins Alpins")}
