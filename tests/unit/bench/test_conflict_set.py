"""The conflict set of issue 42 (bench/data/conflicts.json) is what bench/README.md says: at least 500 facts told
in order, edits that contradict an earlier fact, two-hop chains whose answer the edits change, names in many
scripts, every third group held aside; its answers follow from replaying the stream (the latest value wins);
the file is what its generator writes; and the part's graph walk follows current relations only."""

from __future__ import annotations

import importlib
import unicodedata
from collections import Counter
from types import SimpleNamespace
from typing import Any

from bench.data import conflicts_build
from bench.parts import conflicts
from engram.domain.graph import Entity, Relation
from engram.domain.models import Scope
from engram.graph.service import GraphService
from tests.fakes import MemoryGraphStore


def _data() -> dict[str, Any]:
    return conflicts.load()


def _latest(facts: list[dict[str, Any]]) -> dict[tuple[str, str], list[str]]:
    """Every value each (subject, relation) took, in the order told."""
    values: dict[tuple[str, str], list[str]] = {}
    for f in sorted(facts, key=lambda f: f["order"]):
        values.setdefault((f["subject"], f["relation"]), []).append(f["value"])
    return values


def test_the_set_has_500_facts_edits_and_two_hop_chains_of_varied_relations() -> None:
    data = _data()
    facts = [f for g in data["groups"] for f in g["facts"]]
    questions = Counter(q["kind"] for g in data["groups"] for q in g["questions"])
    assert len(facts) >= 500
    assert sum(f["edit"] for f in facts) >= 150
    assert questions["single_hop"] >= 120 and questions["multi_hop"] >= 90 and questions["unchanged"] >= 90
    assert len({f["relation"] for f in facts}) >= 10
    assert {f.get("wording") for f in facts if f["edit"]} == {"now", "plain"}  # edits not always cued by "now"


def test_every_third_group_is_held_aside_and_its_facts_are_a_stream_of_their_own() -> None:
    data = _data()
    groups = data["groups"]
    assert [g["held_aside"] for g in groups] == [n % 3 == 0 for n in range(1, len(groups) + 1)]
    assert [g["held_aside"] for g in groups] == [conflicts.held_aside(g["id"]) for g in groups]
    for split in conflicts.SPLITS:
        orders = [f["order"] for f in conflicts.stream(conflicts.split_groups(data, split))]
        assert orders == list(range(len(orders)))  # one stream per split, numbered from 0
    held = conflicts.split_groups(data, "held_aside")
    assert len(held) == len(groups) // 3 and all(g["held_aside"] for g in held)


def test_each_edit_contradicts_an_earlier_fact_and_each_answer_is_the_latest_value() -> None:
    for group in _data()["groups"]:
        values = _latest(group["facts"])
        for f in group["facts"]:
            if f["edit"]:
                earlier = [
                    e
                    for e in group["facts"]
                    if (e["subject"], e["relation"]) == (f["subject"], f["relation"]) and e["order"] < f["order"]
                ]
                assert earlier and all(e["value"] != f["value"] for e in earlier), f["text"]
        for q in group["questions"]:
            if q["kind"] == "multi_hop":
                continue
            told = values[(q["subject"], q["hops"][0])]
            assert q["answer"] == told[-1] and q["old"] == told[:-1], q["question"]
            assert q["kind"] == ("single_hop" if q["old"] else "unchanged")


def test_each_two_hop_answer_follows_the_latest_values_and_an_edit_changed_it() -> None:
    chains = 0
    for group in _data()["groups"]:
        values = _latest(group["facts"])
        for q in (q for q in group["questions"] if q["kind"] == "multi_hop"):
            first, second = q["hops"]
            middle = values[(q["subject"], first)][-1]
            assert values[(middle, second)][-1] == q["answer"]
            before = values[(values[(q["subject"], first)][0], second)][0]  # the chain before any edit
            assert q["old"] == [before] and before != q["answer"]
            chains += 1
    assert chains >= 90


def test_people_are_named_in_at_least_six_scripts_and_no_name_is_inside_another() -> None:
    facts = [f for g in _data()["groups"] for f in g["facts"]]
    people = {f["value"] for f in facts if f["relation"] in {"ceo", "chair", "coach", "author", "mayor", "spouse"}}
    scripts = {unicodedata.name(c).split()[0] for p in people for c in p if c.isalpha()}
    assert len(scripts & {"LATIN", "CYRILLIC", "CJK", "HANGUL", "GREEK", "ARABIC", "HEBREW", "DEVANAGARI", "THAI"}) >= 6
    named = {f["subject"] for f in facts} | {f["value"] for f in facts if f["relation"] != "citizen"}
    inside = [(a, b) for a in named for b in named if a != b and conflicts.holds(b, a)]
    assert inside == []  # a value found in a memory's text is that value, never part of another name


def test_the_file_is_what_the_generator_writes() -> None:
    build = importlib.reload(conflicts_build)  # a fresh seeded generator
    groups = build.build_groups()
    build.place_in_order(groups)
    assert groups == _data()["groups"]


def _relation(source: Entity, name: str, destination: Entity, closed: bool = False) -> Relation:
    return Relation(
        tenant_id="t",
        user_id="u",
        source_entity_id=source.id,
        relation=name,
        destination_entity_id=destination.id,
        source=source.name,
        destination=destination.name,
        valid_to=conflicts.START if closed else None,
    )


def test_the_graph_walk_follows_current_relations_either_way_and_only_the_hop_named() -> None:
    org, ama, tomasz, ghana, poland = (
        Entity(tenant_id="t", user_id="u", name=n)
        for n in ("Norrland Freight", "Ama Boateng", "Tomasz Wiśniewski", "Ghana", "Poland")
    )
    store = MemoryGraphStore()
    store.put_entities([org, ama, tomasz, ghana, poland])
    store.put_relations(
        [
            _relation(ama, "ceo_of", org, closed=True),  # closed when Tomasz took over: not followed
            _relation(org, "has_ceo", tomasz),  # stated the other way round
            _relation(ama, "citizen_of", ghana),
            _relation(tomasz, "citizen_of", poland),
            _relation(tomasz, "lives_in", ghana),  # not the hop asked
        ]
    )
    product = SimpleNamespace(graph=GraphService(store=store, index=None, embedder=None))  # type: ignore[arg-type]
    graph = conflicts.Graph(product, Scope(tenant_id="t", user_id="u"))  # type: ignore[arg-type]
    words = _data()["relations"]
    assert graph.reached("Norrland Freight", [words["ceo"]["words"], words["citizen"]["words"]]) == [{"poland"}]
    assert graph.reached("Norrland Freight", [words["ceo"]["words"], words["spouse"]["words"]]) == []


def test_issue_42_goals_read_the_held_aside_third_in_the_better_mode() -> None:
    from bench.report.report_goals import GOALS

    single = "issue 42: conflict set (held-aside), single-hop >= 0.90"
    multi = "issue 42: conflict set (held-aside), multi-hop >= 0.50"
    checks = dict(GOALS)

    def part(**splits: tuple[float, float]) -> dict[str, Any]:
        return {
            "conflicts": {k.replace("_", "/", 1): {"single_hop": s, "multi_hop": m} for k, (s, m) in splits.items()}
        }

    tuned_only = part(offline_tune=(1.0, 1.0), offline_held_aside=(0.1, 0.05))
    assert checks[single](tuned_only) == ("0.100 (offline)", "**no**")
    assert checks[multi](tuned_only)[1] == "**no**"
    with_model = part(offline_held_aside=(0.5, 0.05), model_held_aside=(0.95, 0.6))
    assert checks[single](with_model) == ("0.500 (offline), 0.950 (model)", "yes")
    assert checks[multi](with_model)[1] == "yes"
    assert checks[single]({}) == ("not run", "n/a")
