"""The memory policy: what an operator tells Engram to keep (include), never to keep (exclude), and what
to tell the LLM (instructions, custom prompts), per tenant or per add, through the worker and pipeline."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

from engram.domain.models import AddRequest, Fact, Message, Task, TaskStatus
from engram.domain.policy import MAX_ENTRIES, REQUIRED_EXACT, REQUIRED_WORDS, MemoryPolicy, Prompts, TenantConfig
from engram.graph.llm import SYSTEM as GRAPH_SYSTEM
from engram.graph.llm import LLMGraphExtractor
from engram.graph.service import GraphService
from engram.pipeline.ingest import IngestPipeline
from engram.pipeline.llm_extractor import LLMFactExtractor
from engram.pipeline.one_call import OneCall
from engram.reconcile.llm import LLMReconciler
from engram.reconcile.offline import KeyReconciler
from engram.reconcile.prompts import load_prompt
from engram.rules.extractor import OfflineExtractor
from engram.services.tenant_config import TenantConfigs
from engram.services.worker import ExtractionWorker
from tests.fakes import (
    HashEmbedder,
    MemoryConfigStore,
    MemoryFactStore,
    MemoryGraphStore,
    MemoryIndex,
    MemoryTaskStore,
    ScriptedLLM,
    memory_json,
)

PEANUTS = "I'm allergic to peanuts and I live in Berlin"


class World:
    """A worker over in-memory stores, offline (rules) or with a scripted LLM, as bootstrap wires it."""

    def __init__(self, llm: ScriptedLLM | None = None, one_call: bool = False) -> None:
        self.facts, self.tasks, self.store = MemoryFactStore(), MemoryTaskStore(), MemoryConfigStore()
        self.configs = TenantConfigs(self.store)
        extractor: Any = LLMFactExtractor(llm) if llm is not None else OfflineExtractor()
        reconciler: Any = LLMReconciler(llm) if llm is not None else KeyReconciler()
        graph = None
        if llm is not None and one_call:
            store = MemoryGraphStore()
            graph = GraphService(store, MemoryIndex(), HashEmbedder(), LLMGraphExtractor(llm, store))
        self.pipeline = IngestPipeline(
            self.facts,
            MemoryIndex(),
            HashEmbedder(),
            extractor,
            reconciler,
            keep_episodes=True,
            graph=graph,
            one_call=OneCall(llm) if llm is not None and one_call else None,
        )
        self.worker = ExtractionWorker(self.tasks, self.pipeline, configs=self.configs)

    def add(self, text: str, tenant: str = "acme", **fields: Any) -> Task:
        request = AddRequest(messages=[Message(role="user", content=text)], user_id="alice", **fields)
        task = Task(tenant_id=tenant, user_id="alice", request=request)
        self.tasks.create(task)
        return self.worker.process(tenant, task.task_id)

    def memories(self, tenant: str = "acme") -> list[Fact]:
        return self.facts.list_current(tenant, "alice", limit=100).items


def facts_answer(*facts: tuple[str, str, str | None]) -> str:
    return json.dumps({"facts": [{"text": t, "memory_bank": b, "fact_key": k, "importance": 0.5} for t, b, k in facts]})


# --- offline rules ----------------------------------------------------------------------------------
def test_an_excluded_bank_is_stored_nowhere_and_the_rest_is_kept() -> None:
    world = World()
    world.configs.put("acme", TenantConfig(exclude=["Health"]))
    task = world.add(PEANUTS)
    memories = world.memories()
    assert [(m.fact_key, m.fact_value) for m in memories] == [("location", "Berlin")]
    assert not any("peanut" in m.text.lower() for m in memories)  # no fact, no episode
    # the task names what it cut by size only: excluded words are kept nowhere, its result included
    assert [(s.text, s.reason) for s in task.skipped] == [("a clause of 23 characters", "excluded: Health")]
    assert task.counts["excluded"] == 1 and task.status is TaskStatus.COMPLETED
    # the task's kept input (shown by ?include=source) lost the clause too
    stored = world.tasks.get("acme", task.task_id).request
    assert stored is not None and stored.messages[0].content == "I live in Berlin"


def test_an_excluded_clause_is_cut_out_of_the_episode_kept_as_said() -> None:
    world = World()
    world.configs.put("acme", TenantConfig(exclude=["Health"]))
    task = world.add("Caroline finally finished the mural last weekend. I'm allergic to peanuts.")
    assert [(m.kind, m.text) for m in world.memories()] == [
        ("episode", "Caroline finally finished the mural last weekend.")
    ]
    assert [s.reason for s in task.skipped] == ["excluded: Health"]


def test_an_excluded_topic_matches_words_in_any_case_and_plural() -> None:
    world = World()
    world.configs.put("acme", TenantConfig(exclude=["Peanut"]))
    task = world.add("I love peanut butter. My sister is Anna. I'm allergic to PEANUTS.")
    texts = [m.text for m in world.memories()]
    assert texts and not any("peanut" in t.lower() for t in texts)
    assert {s.reason for s in task.skipped} == {"excluded: Peanut"} and len(task.skipped) == 2


def test_a_fact_key_family_is_a_topic() -> None:
    world = World()
    world.configs.put("acme", TenantConfig(exclude=["location"]))
    world.add(PEANUTS)
    assert [m.fact_key for m in world.memories()] == ["health:peanut allergy"]


def test_with_include_only_facts_of_included_banks_are_kept() -> None:
    world = World()
    world.configs.put("acme", TenantConfig(include=["Events"]))
    task = world.add("I'm flying to Tokyo next month and I live in Berlin")
    assert [m.text for m in world.memories()] == [
        "Is travelling to Tokyo in " + f"{world.memories()[0].text.rsplit(' in ', 1)[1]}"
    ]
    assert [m.memory_bank.value for m in world.memories()] == ["Events"]
    # cut before extraction, so no step (nor an LLM) reads it: the task names the clause as said
    assert [(s.text, s.reason) for s in task.skipped] == [("I live in Berlin", "not included")]


def test_everything_excluded_leaves_no_memory_and_says_why() -> None:
    world = World()
    world.configs.put("acme", TenantConfig(exclude=["Health"]))
    task = world.add("I'm allergic to peanuts")
    assert world.memories() == [] and task.results == []
    assert task.note is not None and "memory policy" in task.note
    stored = world.tasks.get("acme", task.task_id).request
    assert stored is not None and "peanut" not in stored.messages[0].content


def test_infer_false_stores_the_message_minus_its_excluded_clauses() -> None:
    world = World()
    world.configs.put("acme", TenantConfig(exclude=["Health"]))
    task = world.add(PEANUTS, infer=False)
    assert [m.text for m in world.memories()] == ["I live in Berlin"]
    assert [s.reason for s in task.skipped] == ["excluded: Health"]


def test_infer_false_keeps_only_the_clauses_include_names() -> None:
    # issue 44: a kept message is a store like any other; what include leaves out is stored nowhere
    world = World()
    world.configs.put("acme", TenantConfig(exclude=["Health"], include=["Work"]))
    task = world.add(PEANUTS + ", and I work at Siemens as an engineer", infer=False)
    assert [m.text for m in world.memories()] == ["I work at Siemens as an engineer"]
    assert [s.reason for s in task.skipped] == ["excluded: Health", "not included"]


# --- per add, and between tenants ---------------------------------------------------------------------
def test_an_adds_own_fields_override_the_tenants() -> None:
    world = World()
    world.configs.put("acme", TenantConfig(exclude=["Health"]))
    task = world.add(PEANUTS, exclude=[])
    assert {m.fact_key for m in world.memories()} == {"location", "health:peanut allergy"}
    assert task.skipped == []
    world.add("I work at Google and I have two cats", exclude=["Work"])
    assert not any("google" in m.text.lower() for m in world.memories())


def test_a_tenants_policy_never_reaches_another_tenant() -> None:
    world = World()
    world.configs.put("acme", TenantConfig(exclude=["Health"], instructions="only acme"))
    task = world.add(PEANUTS, tenant="globex")
    assert {m.fact_key for m in world.memories("globex")} == {"location", "health:peanut allergy"}
    assert task.skipped == [] and world.configs.get("globex") == TenantConfig()


# --- the LLM path -------------------------------------------------------------------------------------
def test_an_llm_fact_in_an_excluded_bank_is_dropped_and_its_clause_cut_from_the_episode() -> None:
    llm = ScriptedLLM(
        facts_answer(("Allergic to peanuts", "Health", "health:allergy"), ("Lives in Berlin", "Personal", "location"))
    )
    world = World(llm)
    world.configs.put("acme", TenantConfig(exclude=["Health"], instructions="Never store medical details."))
    # the rules do not read the first clause as health: the LLM does, and the screen drops its fact
    task = world.add("Peanuts make my throat swell up, and I live in Berlin")
    texts = [m.text for m in world.memories()]
    assert "Lives in Berlin" in texts and not any("peanut" in t.lower() for t in texts)
    assert ("a fact of 19 characters", "excluded: Health") in [(s.text, s.reason) for s in task.skipped]
    assert "peanut" not in json.dumps(task.model_dump(mode="json")).lower()
    system = llm.calls[0]["system"]
    assert "Never store medical details." in system and "Health" in system.split("Operator instructions")[1]
    assert system.rstrip().splitlines()[-1].startswith("Answer with JSON")  # the answer line still closes it


def test_a_clause_the_rules_read_as_excluded_is_never_sent_to_the_llm() -> None:
    llm = ScriptedLLM(facts_answer(("Lives in Berlin", "Personal", "location")))
    world = World(llm)
    world.configs.put("acme", TenantConfig(exclude=["Health"]))
    world.add("I'm allergic to peanuts and I live in Berlin, which is lovely in spring")
    assert "peanut" not in llm.calls[0]["user"].lower()


def test_instructions_reach_the_extraction_and_reconcile_prompts() -> None:
    llm = ScriptedLLM(
        facts_answer(("Lives in Berlin", "Personal", "location")),
        facts_answer(("Moved to Munich", "Personal", "location")),
        memory_json({"id": "0", "text": "Lives in Munich", "event": "UPDATE"}),
    )
    world = World(llm)
    world.configs.put("acme", TenantConfig(instructions="Remember dietary preferences and travel plans."))
    world.add("Berlin has been home for years now")
    world.add("Munich is where home is since last month")
    assert len(llm.calls) == 3 and llm.calls[2]["name"] == "memory"
    assert all("Remember dietary preferences and travel plans." in c["system"] for c in llm.calls)


def test_the_single_call_and_graph_prompts_carry_the_adds_instructions() -> None:
    answer = json.dumps(
        {
            "facts": [{"text": "Lives in Berlin", "memory_bank": "Personal", "importance": 0.5}],
            "memory": [{"id": "0", "text": "Lives in Berlin", "event": "ADD", "old_memory": None}],
            "relations": [],
            "delete": [],
        }
    )
    llm = ScriptedLLM(answer)
    world = World(llm, one_call=True)
    world.configs.put("acme", TenantConfig(instructions="tenant words"))
    world.add("Berlin has been home for years now", instructions="this add's words")
    (call,) = llm.calls
    assert "this add's words" in call["system"] and "tenant words" not in call["system"]
    assert "knowledge graph" in call["system"]


def test_custom_prompts_replace_the_built_in_ones() -> None:
    llm = ScriptedLLM(
        facts_answer(("Lives in Berlin", "Personal", "location")),
        facts_answer(("Moved to Munich", "Personal", "location")),
        memory_json({"id": "0", "text": "Lives in Munich", "event": "UPDATE"}),
    )
    world = World(llm, one_call=True)  # custom prompts turn the single call off: each step uses its own
    extraction = 'CUSTOM EXTRACTION. Answer with JSON only: {"facts": [...]}'
    reconcile = 'CUSTOM RECONCILE: ADD, UPDATE, DELETE or NONE each memory. Answer with JSON: {"memory": []}'
    world.configs.put("acme", TenantConfig(prompts=Prompts(extraction=extraction, reconcile=reconcile)))
    world.pipeline.graph = None
    world.add("Berlin has been home for years now")
    world.add("Munich is where home is since last month")
    assert [c["system"].split(".")[0].split(":")[0] for c in llm.calls] == [
        "CUSTOM EXTRACTION",
        "CUSTOM EXTRACTION",
        "CUSTOM RECONCILE",
    ]


# --- validation and the cache ---------------------------------------------------------------------------
def test_the_built_in_prompts_have_every_required_marker() -> None:
    built_in = {
        "extraction": load_prompt("extract_user"),
        "reconcile": load_prompt("reconcile_default"),
        "graph": GRAPH_SYSTEM,
    }
    for name, text in built_in.items():
        Prompts.model_validate({name: text})  # the markers are what the built-in prompts already say
    assert set(REQUIRED_WORDS) == set(built_in) and set(REQUIRED_EXACT) <= set(built_in)


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({"prompts": {"extraction": "Extract facts."}}, "prompts.extraction", '"JSON"'),
        ({"prompts": {"reconcile": "Answer JSON memory with ADD, UPDATE, DELETE"}}, "prompts.reconcile", '"NONE"'),
        ({"prompts": {"graph": "Give JSON."}}, "prompts.graph", '"relations"'),
        ({"instructions": "x" * 4001}, "instructions", "4000"),
        ({"include": ["x"] * (MAX_ENTRIES + 1)}, "include", "50"),
        ({"exclude": ["x" * 101]}, "exclude.0", "100"),
        ({"prompts": {"extraction": "x" * 20001}}, "prompts.extraction", "20000"),
        ({"instruction": "typo"}, "instruction", "Extra"),
    ],
)
def test_a_config_past_a_limit_or_missing_a_marker_names_the_field(
    body: dict[str, Any], field: str, words: str
) -> None:
    with pytest.raises(ValidationError) as caught:
        TenantConfig.model_validate(body)
    (error,) = caught.value.errors()
    assert ".".join(str(p) for p in error["loc"]) == field and words in error["msg"]


def test_the_config_is_read_once_per_ttl_and_a_put_is_seen_at_once() -> None:
    now = [0.0]
    store = MemoryConfigStore()
    store.put("acme", TenantConfig(exclude=["Health"]))
    configs = TenantConfigs(store, ttl_s=30, clock=lambda: now[0])
    request = AddRequest(messages=[Message(role="user", content="hi")], user_id="alice")
    for _ in range(5):
        assert configs.policy("acme", request) == MemoryPolicy(exclude=["Health"])
    assert store.reads == 2  # the tenant's and the user's own (what they asked not to be remembered), once each
    store.put("acme", TenantConfig())  # another container's PUT: seen after the ttl
    assert configs.get("acme").exclude == ["Health"]
    now[0] = 31.0
    assert configs.get("acme").exclude == [] and store.reads == 3
    configs.put("acme", TenantConfig(include=["Work"]))  # this container's PUT: at once
    assert configs.get("acme").include == ["Work"] and store.reads == 3


def test_in_a_merged_run_each_task_reports_and_keeps_only_its_own_cut() -> None:
    world = World()
    world.configs.put("acme", TenantConfig(exclude=["Health"]))
    tasks = []
    for text in ("I'm allergic to peanuts and I have a dog named Max", "I live in Berlin"):
        request = AddRequest(messages=[Message(role="user", content=text)], user_id="alice")
        tasks.append(Task(tenant_id="acme", user_id="alice", request=request))
        world.tasks.create(tasks[-1])
    first, second = world.worker.process_many("acme", [t.task_id for t in tasks])
    assert first.processed_with == [tasks[0].task_id, tasks[1].task_id]  # one run for both
    assert [s.reason for s in first.skipped] == ["excluded: Health"] and second.skipped == []
    assert (first.counts["excluded"], second.counts.get("excluded", 0)) == (1, 0)
    kept = [world.tasks.get("acme", t.task_id).request for t in tasks]
    assert [r.messages[0].content for r in kept if r is not None] == ["I have a dog named Max", "I live in Berlin"]
    assert sorted(m.fact_key or "" for m in world.memories()) == ["location", "pet:dog:Max"]


def test_a_single_calls_decisions_and_relations_for_an_excluded_fact_are_not_used() -> None:
    answer = json.dumps(
        {
            "facts": [
                {"text": "Allergic to peanuts", "memory_bank": "Health", "importance": 0.9},
                {"text": "Lives in Berlin", "memory_bank": "Personal", "importance": 0.5},
            ],
            "memory": [
                {"id": "0", "text": "Allergic to peanuts", "event": "ADD", "old_memory": None},
                {"id": "1", "text": "Lives in Berlin", "event": "ADD", "old_memory": None},
            ],
            "relations": [
                {
                    "source": "user",
                    "source_type": "person",
                    "relation": "allergic_to",
                    "destination": "peanuts",
                    "destination_type": "thing",
                },
            ],
            "delete": [],
        }
    )
    graph_answer = json.dumps({"relations": [], "delete": []})
    llm = ScriptedLLM(answer, graph_answer)
    world = World(llm, one_call=True)
    world.configs.put("acme", TenantConfig(exclude=["Health"]))
    world.pipeline.keep_episodes = False
    task = world.add("Peanuts make my throat swell up, and Berlin is home")
    assert [m.text for m in world.memories()] == ["Lives in Berlin"]
    assert [s.reason for s in task.skipped] == ["excluded: Health"]
    assert llm.calls[1]["name"] == "graph_relations"  # the graph step asked again, with the policy in its prompt
    assert "Never keep anything about these memory banks or topics: Health." in llm.calls[1]["system"]
    assert world.pipeline.graph is not None
    assert world.pipeline.graph.relations("acme", "alice", 100, None).relations == []
