"""Graph relations are statements (graph/statements.py): a memory's statement whose value is an entity is a
relation from its subject, linked to that memory, and closes when the statement is outdated (graph/outdated.py)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime

import pytest

from engram.domain.graph import Relation
from engram.domain.models import Fact, Message, Scope
from engram.domain.outdated import Outdated
from engram.domain.statements import Statement
from engram.graph.service import GraphService
from engram.rules.extractor import OfflineExtractor
from tests.fakes import HashEmbedder, MemoryGraphStore, MemoryIndex

SCOPE = Scope(tenant_id="t1", user_id="u1")
MAY, JUNE = datetime(2025, 5, 1, tzinfo=UTC), datetime(2025, 6, 1, tzinfo=UTC)


def service() -> GraphService:
    return GraphService(MemoryGraphStore(), MemoryIndex(), HashEmbedder())


def stated(
    graph: GraphService, memory_id: str, text: str, *statements: Statement, at: datetime = MAY, task: str = "t"
) -> None:
    """One run storing one memory with these statements, through the offline rules as an add does."""
    messages = [Message(role="user", content=text, created_at=at)]
    facts, _ = OfflineExtractor().extract(messages, "user", SCOPE)  # type: ignore[arg-type]
    graph.ingest(SCOPE, messages, facts, task, memories=[(memory_id, text)], stated={memory_id: statements})


def current(graph: GraphService) -> list[Relation]:
    return [r for r in graph.relations("t1", "u1", 1000, None).relations if r.current]


def triples(graph: GraphService) -> set[tuple[str, str, str]]:
    return {(r.source, r.relation, r.destination) for r in current(graph)}


def world(subject: str, attribute: str, value: str, single: bool = True) -> Statement:
    return Statement(subject=subject, attribute=attribute, value=value, single=single)


def test_a_statement_of_the_user_is_a_relation_of_the_users_entity_linked_to_its_memory() -> None:
    graph = service()
    stated(graph, "m1", "I switched my gym to Riverside Gym.", Statement(attribute="gym", value="Riverside Gym"))
    (relation,) = [r for r in current(graph) if r.relation == "gym"]
    assert (relation.source_entity_id, relation.destination, relation.memory_ids) == (
        "user-u1",
        "Riverside Gym",
        ["m1"],
    )


def test_statements_about_the_world_chain_through_one_entity_per_name() -> None:
    graph = service()
    stated(
        graph, "m1", "The CEO of Norrland Freight is Otieno Kamau.", world("Norrland Freight", "ceo", "Otieno Kamau")
    )
    stated(graph, "m2", "Otieno Kamau is a citizen of Kenya.", world("Otieno Kamau", "citizenship", "Kenya", False))
    assert triples(graph) == {("Norrland Freight", "ceo", "Otieno Kamau"), ("Otieno Kamau", "nationality", "Kenya")}
    ceo, citizen = sorted(current(graph), key=lambda r: r.relation)
    assert ceo.destination_entity_id == citizen.source_entity_id  # the two hops meet
    assert (ceo.memory_ids, citizen.memory_ids) == (["m1"], ["m2"])


def test_amounts_free_text_and_what_is_not_asserted_make_no_relation() -> None:
    graph = service()
    stated(
        graph,
        "m1",
        "Rent is 1200 a month, I eat no meat, I might join Pure Gym and as a kid I went to Elm School.",
        Statement(attribute="rent", value="£1,200"),
        Statement(attribute="diet", value="vegetarian"),
        Statement(attribute="job", value="school nurse"),
        Statement(attribute="gym", value="Pure Gym", polarity="hedged"),
        Statement(attribute="school", value="Elm School", polarity="past"),
    )
    assert not {r for r in current(graph) if r.relation in ("rent", "diet", "works_as", "gym", "studies_at")}


@pytest.mark.parametrize(
    ("value", "named"),
    [
        *[(v, True) for v in ("Soins Alpins", "iPhone 15", "3M", "12 Rue Cler", "東京", "Дарья", "St Mary's School")],
        *[(v, False) for v in ("£1,200", "3 kids", "vegetarian", "school nurse", "dinner with Tom", "10am")],
    ],
)
def test_a_value_is_an_entity_when_it_is_a_name(value: str, named: bool) -> None:
    graph = service()
    stated(graph, "m1", f"My thing is {value}.", Statement(attribute="thing", value=value))
    assert [r.destination for r in current(graph) if r.relation == "thing"] == ([value] if named else [])


def test_a_relation_the_rules_make_is_not_made_twice_and_rests_on_the_statements_memory() -> None:
    graph = service()
    stated(
        graph,
        "m1",
        "I live in York and I work at Brightwave.",
        Statement(attribute="home", value="York", single=True),
        Statement(attribute="employer", value="Brightwave", single=True),
    )
    assert triples(graph) == {("u1", "lives_in", "York"), ("u1", "works_at", "Brightwave")}
    assert all(r.memory_ids == ["m1"] for r in current(graph))


def test_a_newer_value_of_a_one_at_a_time_attribute_replaces_the_relation() -> None:
    graph = service()
    stated(
        graph, "m1", "The CEO of Norrland Freight is Otieno Kamau.", world("Norrland Freight", "ceo", "Otieno Kamau")
    )
    stated(
        graph,
        "m2",
        "The CEO of Norrland Freight is now Ana Lima.",
        world("Norrland Freight", "ceo", "Ana Lima"),
        at=JUNE,
    )
    assert triples(graph) == {("Norrland Freight", "ceo", "Ana Lima")}
    old = next(r for r in graph.relations("t1", "u1", 100, None, include_closed=True).relations if not r.current)
    assert (old.destination, old.valid_to) == ("Otieno Kamau", JUNE)


def test_many_valued_attributes_gather_and_an_ending_closes_its_value() -> None:
    graph = service()
    stated(graph, "m1", "I play for Leeds Rhinos.", Statement(attribute="team", value="Leeds Rhinos"))
    stated(graph, "m2", "I also play for York Knights.", Statement(attribute="team", value="York Knights"), at=JUNE)
    assert {r.destination for r in current(graph) if r.relation == "team"} == {"Leeds Rhinos", "York Knights"}
    ended = Statement(attribute="team", value="Leeds Rhinos", polarity="ended")
    stated(graph, "m3", "I quit Leeds Rhinos.", ended, at=JUNE)
    assert {r.destination for r in current(graph) if r.relation == "team"} == {"York Knights"}


def test_a_subject_named_with_its_role_is_that_person_of_the_user() -> None:
    graph = service()
    stated(
        graph,
        "m1",
        "My daughter Ines's school is St Mary's School.",
        Statement(subject="my daughter Ines", attribute="school", value="St Mary's School"),
    )
    assert ("Ines", "studies_at", "St Mary's School") in triples(graph)
    assert ("u1", "daughter", "Ines") in triples(graph)


# --- closing with the statement ------------------------------------------------------------------------------


def memory(memory_id: str, text: str, *statements: Statement, outdated_by: Sequence[str] = ()) -> Fact:
    return Fact(
        id=memory_id,
        tenant_id="t1",
        user_id="u1",
        text=text,
        statements=list(statements),
        outdated_by=list(outdated_by),
    )


def reader(*memories: Fact) -> Callable[[Sequence[str]], list[Fact]]:
    by_id: Mapping[str, Fact] = {m.id: m for m in memories}

    def read(ids: Sequence[str]) -> list[Fact]:
        return [by_id[i] for i in ids if i in by_id]

    return read


def test_a_kept_message_outdated_in_its_home_keeps_its_work_relation() -> None:
    graph = service()
    text = "I live in York and work at Soins Alpins."
    home = Statement(attribute="home", value="York", single=True)
    work = Statement(attribute="employer", value="Soins Alpins", single=True)
    stated(graph, "m1", text, home, work)
    assert {r.relation for r in current(graph)} == {"lives_in", "works_at"}
    now = memory("m1", text, home.model_copy(update={"outdated_by": "m2"}), work, outdated_by=["m2"])
    ended = [Outdated("m1", "home", ("York",), "m2", JUNE, False)]
    closed = graph.close_outdated(SCOPE, ended, "t2", reader(now))
    assert [(r.relation, r.destination, r.valid_to) for r in closed.closed] == [("lives_in", "York", JUNE)]
    assert triples(graph) == {("u1", "works_at", "Soins Alpins")}


def test_a_world_relation_closes_when_its_statement_is_outdated_and_the_rest_of_the_memory_stays() -> None:
    graph = service()
    text = "The CEO of Norrland Freight is Otieno Kamau. Otieno Kamau is a citizen of Kenya."
    ceo, citizen = world("Norrland Freight", "ceo", "Otieno Kamau"), world("Otieno Kamau", "nationality", "Kenya")
    stated(graph, "m1", text, ceo, citizen)
    now = memory("m1", text, ceo.model_copy(update={"outdated_by": "m2"}), citizen, outdated_by=["m2"])
    ended = [Outdated("m1", "ceo", ("Otieno Kamau",), "m2", JUNE, False)]
    graph.close_outdated(SCOPE, ended, "t2", reader(now))
    assert triples(graph) == {("Otieno Kamau", "nationality", "Kenya")}


def test_a_relation_another_memory_still_states_stays() -> None:
    graph = service()
    gym = Statement(attribute="gym", value="Riverside Gym")
    stated(graph, "m1", "I go to Riverside Gym.", gym)
    stated(graph, "m3", "Riverside Gym is my gym.", gym, at=JUNE)
    (relation,) = current(graph)
    assert relation.memory_ids == ["m1", "m3"]  # stated again: linked to both
    old = memory("m1", "I go to Riverside Gym.", gym.model_copy(update={"outdated_by": "m2"}), outdated_by=["m2"])
    again = memory("m3", "Riverside Gym is my gym.", gym)
    ended = [Outdated("m1", "gym", ("Riverside Gym",), "m2", JUNE, False)]
    assert graph.close_outdated(SCOPE, ended, "t2", reader(old, again)).closed == []
    assert graph.close_outdated(SCOPE, ended, "t2", reader(old)).closed != []


def test_a_corrected_memory_has_the_relations_its_new_statements_make() -> None:
    graph = service()
    stated(graph, "m1", "My gym is Riverside Gym.", Statement(attribute="gym", value="Riverside Gym", single=True))
    corrected = Statement(attribute="gym", value="Pure Gym", single=True)
    graph.restate(SCOPE, "m1", "My gym is Pure Gym.", None, None, [corrected])
    assert [(r.destination, r.memory_ids) for r in current(graph) if r.relation == "gym"] == [("Pure Gym", ["m1"])]


class CloseNames(HashEmbedder):
    """Embeds some names alike, as MiniLM does (Sigurður Jónsdóttir / Sigurður Ólafsdóttir 0.94, NYC / New York
    City 0.91): whether two such mentions are one entity is then left to their words."""

    ALIKE = {"Sigurður Ólafsdóttir": "Sigurður Jónsdóttir", "NYC": "New York City"}

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return super().embed([self.ALIKE.get(t, t) for t in texts])


def test_two_names_that_share_a_word_and_differ_in_another_are_two_entities() -> None:
    graph = GraphService(MemoryGraphStore(), MemoryIndex(), CloseNames())
    stated(
        graph,
        "m1",
        "The CEO of Norrland Freight is Sigurður Jónsdóttir.",
        world("Norrland Freight", "ceo", "Sigurður Jónsdóttir"),
    )
    stated(
        graph,
        "m2",
        "The CEO of Norrland Freight is Sigurður Ólafsdóttir.",
        world("Norrland Freight", "ceo", "Sigurður Ólafsdóttir"),
        at=JUNE,
    )
    assert triples(graph) == {("Norrland Freight", "ceo", "Sigurður Ólafsdóttir")}
    stated(graph, "m3", "The NYC office is in New York City.", world("the office", "city", "New York City"), at=JUNE)
    stated(graph, "m4", "The office is in NYC.", world("the office", "city", "NYC"), at=JUNE)
    assert ("the office", "city", "New York City") in triples(graph)  # no word shared: the embedding decides
