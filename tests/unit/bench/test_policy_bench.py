"""How bench/parts/policy_leaks.py chooses the policy screen's thresholds (issue 33): on the pieces the screen
scores, widened toward exclusion by a slack that cross-validation inside the tuning split picks, a leak
weighing more than a false exclusion."""

from __future__ import annotations

from bench.parts.policy_leaks import LEAK_WEIGHT, Clause, choose, choose_slack, decides, model_sample, widened
from engram.domain.models import MemoryBank
from engram.pipeline.topic_meaning import THRESHOLDS, Scores

ENTRIES = [b.value for b in MemoryBank]


def scored(**banks: float) -> Scores:
    """A piece's readings of the banks (pipeline/topic_meaning.py: cosines less the usual nearness)."""
    read = {b: banks.get(b.value, -0.35) for b in MemoryBank}
    return Scores(read, {}, reading=read)


def test_a_clause_is_cut_when_any_piece_the_screen_scores_is_cut() -> None:
    work = scored(Work=0.2, Relationships=-0.2)  # "my wife works nights"
    kids = scored(Relationships=0.2)  # "so I do the school run"
    assert not decides([work], "Relationships", THRESHOLDS)
    assert decides([work, kids], "Relationships", THRESHOLDS)


def test_widening_lowers_every_floor_and_widens_every_margin() -> None:
    wide = widened(THRESHOLDS, 0.02)
    for bank, rule in THRESHOLDS.banks.items():
        assert wide.banks[bank].floor == round(rule.floor - 0.02, 3)
        assert wide.banks[bank].margin == round(rule.margin + 0.02, 3)
        assert wide.banks[bank].sure == rule.sure
    assert wide.topic_floor == round(THRESHOLDS.topic_floor - 0.02, 3)
    assert wide.catalogue_floor == round(THRESHOLDS.catalogue_floor - 0.02, 3)
    assert wide.catalogue_margin == round(THRESHOLDS.catalogue_margin + 0.02, 3)


def test_the_fitted_rules_exclude_every_tuning_clause_about_a_bank() -> None:
    pairs = [
        (Clause(0, "a", frozenset({"Health"})), (scored(Health=0.1),)),
        (Clause(1, "b", frozenset({"Events"})), (scored(Events=-0.09, Work=0.05),)),
        (Clause(3, "c", frozenset({"Work"})), (scored(Work=0.1),)),
        (Clause(4, "d", frozenset({"General"})), (scored(General=0.1),)),
    ]
    chosen, rates = choose(pairs, ENTRIES)
    assert rates["leaked"] == 0
    assert decides(pairs[1][1], "Events", chosen)


def test_the_slack_is_the_one_with_fewest_leaks_on_the_half_not_fitted_weighed_above_false_exclusions() -> None:
    # half 0 (index % 3 == 0): an Events clause 0.10 below its nearest bank, a Work clause 0.14 below;
    # half 1: 0.145 and 0.17. The rule fitted on half 0 (margin 0.13) leaks half 1's Events clause
    pairs = [
        (Clause(0, "a", frozenset({"Events"})), (scored(Events=-0.05, Work=0.05),)),
        (Clause(3, "b", frozenset({"Work"})), (scored(Work=0.05, Events=-0.09),)),
        (Clause(1, "c", frozenset({"Events"})), (scored(Events=-0.095, Work=0.05),)),
        (Clause(4, "d", frozenset({"Work"})), (scored(Work=0.05, Events=-0.12),)),
    ]
    slack, tried = choose_slack(pairs, ENTRIES)
    assert tried["0.0"]["leaked"] > 0
    best = tried[str(slack)]
    assert best["leaked"] < tried["0.0"]["leaked"]
    assert all(
        best["leaked"] * LEAK_WEIGHT + best["falsely_cut"] <= t["leaked"] * LEAK_WEIGHT + t["falsely_cut"]
        for t in tried.values()
    )


def test_the_model_sample_tries_every_entry_with_its_first_clauses_each_once() -> None:
    clauses = [
        Clause(0, "I pray every morning", frozenset({"religion"})),
        Clause(1, "my salary went up", frozenset({"finances"})),
        Clause(2, "we tithe a tenth of our pay", frozenset({"religion", "finances"})),
        Clause(3, "I fast for Ramadan", frozenset({"religion"})),
        Clause(4, "the mortgage is paid off", frozenset({"finances"})),
    ]
    sample = model_sample(clauses, ["religion", "finances", "politics"], per_entry=2)
    assert [c.index for c in sample] == [0, 1, 2]
