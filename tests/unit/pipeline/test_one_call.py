"""One LLM call per live add: facts, their reconciliation and the graph's relations in one answer."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from engram.domain.graph import Relation
from engram.domain.models import AddRequest, Event, Message, Scope
from engram.graph.llm import LLMGraphExtractor
from engram.graph.resolve import user_entity_id
from engram.graph.service import GraphService
from engram.pipeline.ingest import IngestOutcome, IngestPipeline
from engram.pipeline.llm_extractor import LLMFactExtractor
from engram.pipeline.one_call import SCHEMA_NAME, OneCall
from engram.reconcile.llm import LLMReconciler
from tests.fakes import (
    HashEmbedder,
    MemoryFactStore,
    MemoryGraphStore,
    MemoryIndex,
    ScriptedLLM,
    facts_json,
    memory_json,
)

SCOPE = Scope(tenant_id="acme", user_id="alice")


def one_json(
    facts: list[str],
    memory: list[dict[str, Any]] | None,
    relations: list[tuple[str, str, str]] | None = None,
    delete: list[int] | None = None,
) -> str:
    answer: dict[str, Any] = {"facts": [{"text": t, "memory_bank": "General", "importance": 0.5} for t in facts]}
    if memory is not None:
        answer["memory"] = [{"old_memory": None, **m} for m in memory]
    if relations is not None:
        answer["relations"] = [
            {"source": s, "source_type": "person", "relation": r, "destination": d, "destination_type": "place"}
            for s, r, d in relations
        ]
        answer["delete"] = delete or []
    return json.dumps(answer)


class World:
    def __init__(self, *answers: str) -> None:
        self.llm = ScriptedLLM(*answers)
        self.facts, self.graph_store = MemoryFactStore(), MemoryGraphStore()
        self.graph = GraphService(
            self.graph_store, MemoryIndex(), HashEmbedder(), LLMGraphExtractor(self.llm, self.graph_store)
        )
        self.pipeline = IngestPipeline(
            self.facts,
            MemoryIndex(),
            HashEmbedder(),
            LLMFactExtractor(self.llm),
            LLMReconciler(self.llm),
            graph=self.graph,
            one_call=OneCall(self.llm),
        )

    def add(self, text: str, task_id: str) -> IngestOutcome:
        request = AddRequest(messages=[Message(role="user", content=text)], user_id="alice")
        return self.pipeline.run(SCOPE, request, task_id)

    def memories(self) -> list[str]:
        return self.facts.texts("acme", "alice")

    def relations(self) -> set[tuple[str, str, str]]:
        page = self.graph.relations("acme", "alice", 100, None)
        return {(r.source, r.relation, r.destination) for r in page.relations}


def lives_in_berlin() -> World:
    world = World(
        one_json(
            ["Lives in Berlin"],
            [{"id": "0", "text": "Lives in Berlin", "event": "ADD"}],
            [("user", "lives_in", "Berlin")],
        )
    )
    world.add("I live in Berlin", "t1")
    world.llm.calls.clear()
    return world


def test_a_contradiction_is_an_update_in_one_call_and_the_graph_follows() -> None:
    world = lives_in_berlin()
    (berlin,) = world.facts.list_current("acme", "alice").items
    world.llm.answers.append(
        one_json(
            ["Moved to Munich"],
            [{"id": "0", "text": "Lives in Munich", "event": "UPDATE", "old_memory": "Lives in Berlin"}],
            [("user", "lives_in", "Munich")],
            delete=[0],
        )
    )
    outcome = world.add("I moved to Munich", "t2")
    assert [(r.event, r.memory, r.previous_memory) for r in outcome.results] == [
        (Event.UPDATE, "Lives in Munich", "Lives in Berlin")
    ]
    assert outcome.usage.llm_calls == 1 and len(world.llm.calls) == 1
    (call,) = world.llm.calls
    assert call["name"] == SCHEMA_NAME
    assert '"text": "Lives in Berlin"' in call["user"]  # the memory to reconcile with was shown, as id 0
    assert "0: alice — lives_in — Berlin" in call["user"]  # and the relation the move replaces
    (munich,) = world.facts.list_current("acme", "alice").items
    assert munich.id == berlin.id and munich.text == "Lives in Munich"
    assert world.relations() == {("alice", "lives_in", "Munich")}


def test_an_unrelated_message_is_an_add_in_one_call() -> None:
    world = lives_in_berlin()
    world.llm.answers.append(
        one_json(
            ["Has a dog named Max"],
            [
                {"id": "0", "text": "Lives in Berlin", "event": "NONE"},
                {"id": "1", "text": "Has a dog named Max", "event": "ADD"},
            ],
            [("user", "has_pet", "Max")],
        )
    )
    outcome = world.add("I have a dog named Max", "t2")
    assert [(r.event, r.memory) for r in outcome.results] == [(Event.ADD, "Has a dog named Max")]
    assert outcome.usage.llm_calls == 1
    assert world.memories() == ["Has a dog named Max", "Lives in Berlin"]
    assert world.relations() == {("alice", "lives_in", "Berlin"), ("alice", "has_pet", "Max")}


def test_a_malformed_reply_is_asked_again_and_a_wrapped_one_repaired() -> None:
    world = World(
        "Sure! Here are the facts: none, sorry",
        "```json\n"
        + one_json(
            ["Lives in Berlin"],
            [{"id": "0", "text": "Lives in Berlin", "event": "ADD"}],
            [("user", "lives_in", "Berlin")],
        )
        + "\n```",
    )
    outcome = world.add("I live in Berlin", "t1")
    assert outcome.usage.llm_calls == 2
    assert "could not be used" in world.llm.calls[1]["user"]
    assert world.memories() == ["Lives in Berlin"]
    assert world.relations() == {("alice", "lives_in", "Berlin")}


def test_a_fact_the_decisions_forget_is_still_added() -> None:
    world = lives_in_berlin()
    world.llm.answers.append(
        one_json(["Has a dog named Max"], [{"id": "0", "text": "Lives in Berlin", "event": "NONE"}], [])
    )
    world.add("I have a dog named Max", "t2")
    assert world.memories() == ["Has a dog named Max", "Lives in Berlin"]


def test_a_reply_without_decisions_or_relations_falls_back_to_the_separate_calls() -> None:
    world = lives_in_berlin()
    world.llm.answers += [
        one_json(["Moved to Munich"], None),
        memory_json({"id": "0", "text": "Lives in Munich", "event": "UPDATE", "old_memory": "Lives in Berlin"}),
        json.dumps(
            {
                "relations": [
                    {
                        "source": "user",
                        "source_type": "person",
                        "relation": "lives_in",
                        "destination": "Munich",
                        "destination_type": "place",
                    }
                ],
                "delete": [0],
            }
        ),
    ]
    outcome = world.add("I moved to Munich", "t2")
    assert [c["name"] for c in world.llm.calls] == [SCHEMA_NAME, "memory", "graph_relations"]
    assert outcome.usage.llm_calls == 3
    assert world.memories() == ["Lives in Munich"]
    assert world.relations() == {("alice", "lives_in", "Munich")}


def test_an_update_that_loses_details_is_decided_again_by_the_reconciler() -> None:
    world = World(
        one_json(
            ["Lives in Berlin with his wife Anna"],
            [{"id": "0", "text": "Lives in Berlin with his wife Anna", "event": "ADD"}],
            [],
        )
    )
    world.add("I live in Berlin with my wife Anna", "t1")
    world.llm.answers += [
        one_json(["Moved to Munich"], [{"id": "0", "text": "Lives in Munich", "event": "UPDATE"}], []),
        memory_json({"id": "0", "text": "Lives in Munich with his wife Anna", "event": "UPDATE"}),
    ]
    outcome = world.add("We moved to Munich", "t2")
    assert outcome.usage.llm_calls == 2
    assert world.memories() == ["Lives in Munich with his wife Anna"]


def test_off_keeps_the_separate_calls() -> None:
    world = World(facts_json("Lives in Berlin"), json.dumps({"relations": [], "delete": []}))
    world.pipeline.one_call = None
    world.add("I live in Berlin", "t1")
    assert [c["name"] for c in world.llm.calls] == ["facts", "graph_relations"]


def test_a_close_memory_the_call_was_not_shown_is_reconciled_separately() -> None:
    world = World()
    world.pipeline.similar_per_fact = 1  # the message shows only its single nearest memory
    for text in ("Lives in Berlin", "Works at Siemens"):
        request = AddRequest(messages=[Message(role="user", content=text)], user_id="alice", infer=False)
        world.pipeline.run(SCOPE, request.model_copy(update={"deduplicate": False}), f"seed-{text}")
    world.llm.answers += [
        one_json(
            ["Works at Siemens in Munich"],
            [
                {"id": "0", "text": "Lives in Berlin", "event": "NONE"},
                {"id": "1", "text": "Works at Siemens in Munich", "event": "ADD"},
            ],
            [],
        ),
        memory_json(
            {"id": "0", "text": "Works at Siemens in Munich", "event": "UPDATE", "old_memory": "Works at Siemens"}
        ),
    ]
    outcome = world.add("Lives in Berlin", "t1")
    assert '"text": "Works at Siemens"' not in world.llm.calls[0]["user"]
    assert world.llm.calls[1]["name"] == "memory" and '"text": "Works at Siemens"' in world.llm.calls[1]["user"]
    assert outcome.usage.llm_calls == 2 and outcome.counts["one_call_rechecked"] == 1
    assert world.memories() == ["Lives in Berlin", "Works at Siemens in Munich"]


def test_a_lone_statement_among_greetings_and_questions_is_searched_alone() -> None:
    from engram.pipeline.one_call import queries

    message = Message(
        role="user", content="Hey, Caroline! Nice to hear from you! Love the necklace, any meaning to it?"
    )
    assert queries([message]) == ["Nice to hear from you!"]
    assert queries([Message(role="user", content="Hi there!")]) == ["Hi there!"]  # no statement: the message


def test_a_memory_near_the_recheck_similarity_is_shown_past_the_nearest_few() -> None:
    world = World()
    world.pipeline.similar_per_fact = 1  # the nearest memory, and any other about as close
    for text in ("Works at Siemens in Munich", "Works as an engineer"):
        request = AddRequest(messages=[Message(role="user", content=text)], user_id="alice", infer=False)
        world.pipeline.run(SCOPE, request.model_copy(update={"deduplicate": False}), f"seed-{text}")
    world.llm.answers.append(
        one_json(
            ["Works at Siemens in Munich as an engineer"],
            [
                {"id": "0", "text": "Works at Siemens in Munich", "event": "NONE"},
                {
                    "id": "1",
                    "text": "Works at Siemens in Munich as an engineer",
                    "event": "UPDATE",
                    "old_memory": "Works as an engineer",
                },
            ],
            [],
        )
    )
    outcome = world.add("I work at Siemens in Munich as an engineer", "t1")
    shown = world.llm.calls[0]["user"]
    assert '"text": "Works at Siemens in Munich"' in shown and '"text": "Works as an engineer"' in shown
    assert outcome.usage.llm_calls == 1 and outcome.counts["one_call_rechecked"] == 0
    assert world.memories() == ["Works at Siemens in Munich", "Works at Siemens in Munich as an engineer"]


def test_the_single_call_refines_a_relation_and_the_outcome_lists_it() -> None:
    world = lives_in_berlin()
    answer = json.loads(one_json(["Moved to Munich"], [{"id": "0", "text": "Lives in Munich", "event": "UPDATE"}], []))
    munich = {"source": "user", "source_type": "person", "relation": "lives_in", "destination": "Munich"}
    answer["refine"] = [{"id": 0, "destination_type": "place", **munich}]
    world.llm.answers.append(json.dumps(answer))
    outcome = world.add("I moved to Munich", "t2")
    assert outcome.usage.llm_calls == 1 and '"refine"' in world.llm.calls[0]["system"]
    [refined] = outcome.relations.refined
    assert (refined.destination, refined.refined_from.destination) == ("Munich", "Berlin")
    assert world.relations() == {("alice", "lives_in", "Munich")} and outcome.counts["relations_refined"] == 1


def test_the_relations_the_prompt_listed_are_not_read_again_to_apply_the_answer() -> None:
    world = lives_in_berlin()
    read: list[str] = []
    relations_of = world.graph_store.relations_of

    def counted(tenant_id: str, entity_ids: Sequence[str], include_closed: bool = False) -> list[Relation]:
        read.extend(entity_ids)
        return relations_of(tenant_id, entity_ids, include_closed)

    world.graph_store.relations_of = counted  # type: ignore[method-assign]
    world.llm.answers.append(
        one_json(
            ["Moved to Munich"],
            [{"id": "0", "text": "Lives in Munich", "event": "ADD"}],
            [("user", "lives_in", "Munich")],
            delete=[0],
        )
    )
    world.add("I moved to Munich", "t2")
    assert read.count(user_entity_id("alice")) == 1  # read for the prompt's listing, then applied from it
    assert world.relations() == {("alice", "lives_in", "Munich")}  # the listed relation it replaced was closed
