"""The summary checks the issues' goals against a run's results (LongMemEval in both modes, the model parts)."""

from typing import Any

from bench.data.longmemeval_data import TYPES
from bench.report.report_goals import GOALS


def _longmemeval(all_at_10: float, newest: float, sessions: float) -> dict[str, Any]:
    def mode() -> dict[str, Any]:
        by_type = {kind: {"session_recall@10": sessions} for kind in TYPES}
        by_type["overall"] = {"turn_all@10": all_at_10, "valid_from_on_the_day": 1.0}
        by_type["knowledge-update"]["newest_first"] = {"share": newest, "questions": 10}
        return by_type

    return {"results": {"raw turns": mode(), "pipeline": mode()}}


def _checked(results: dict[str, Any]) -> dict[str, tuple[str, str]]:
    return {name: check(results) for name, check in GOALS}


def test_goals_met_and_missed_are_told_apart() -> None:
    good = _checked({"longmemeval": _longmemeval(0.9, 0.9, 0.9)})
    bad = _checked({"longmemeval": _longmemeval(0.8, 0.5, 0.84)})
    newest = "issue 25: LongMemEval knowledge updates, newest evidence first >= 0.9"
    assert good[newest] == ("9 of 10 (raw turns), 9 of 10 (pipeline)", "yes")
    assert bad[newest][1] == "**no**"
    every_type = "issue 26: LongMemEval session recall@10 >= 0.85 for every question type"
    assert good[every_type][1] == "yes" and bad[every_type][1] == "**no**"
    all_turns = "issue 26: LongMemEval all evidence turns in the top 10 >= 0.85"
    assert good[all_turns] == ("0.900 (raw turns), 0.900 (pipeline)", "yes")


def test_a_part_not_run_is_not_counted_as_missed() -> None:
    assert all(met == "n/a" for _, met in _checked({}).values())


def test_issue_34_goals_read_the_model_parts_and_the_whole_sets() -> None:
    def results(lost: int, right: float, ratio: float, all_at_5: float) -> dict[str, Any]:
        split = {"lost_checked": lost, "right_checked": right}
        engram = {"engram": {"context_tokens_mean": 300.0}}
        return {
            "reconcile_checks": {"splits": {"all": split, "held": split}},
            "qa": {"summary": {"locomo": engram, "engram_vs_oracle": ratio}},
            "session_recall": {"longmemeval": {"measured": "184 questions", "overall": {"recall_all@5": all_at_5}}},
        }

    good = _checked(results(0, 0.9, 0.95, 0.96))
    bad = _checked(results(1, 0.8, 0.85, 0.94))
    lost = "issue 34: reconciliation, information lost after the checks = 0"
    assert good[lost] == ("0 (all), 0 (held)", "yes") and bad[lost][1] == "**no**"
    right = "issue 34: reconciliation, right after the checks >= 0.85"
    assert good[right][1] == "yes" and bad[right][1] == "**no**"
    qa = "issue 34: QA, J(Engram's context) >= 0.9 x J(evidence turns alone)"
    assert good[qa] == ("0.950 (context tokens a question: locomo 300)", "yes") and bad[qa][1] == "**no**"
    sessions = "issue 34: LongMemEval official-shape recall_all@5 >= 0.95"
    assert good[sessions] == ("0.960 (184 questions)", "yes") and bad[sessions][1] == "**no**"


def test_the_memory_state_goals_read_statement_precision_and_else_the_facts() -> None:
    figures = {"state_accuracy": 0.96, "state_accuracy_outside": 0.85, "wrong_supersession_rate": 0.0}
    with_statements = _checked({"memory_state": {"offline/held_aside": figures | {"statement_precision": 0.9}}})
    facts_only = _checked(
        {"memory_state": {"offline/held_aside": figures | {"statement_precision": None, "fact_precision": 0.97}}}
    )
    precision = "issue 42: memory state (held-aside, offline): statement precision >= 0.95"
    assert with_statements[precision] == ("0.900", "**no**")
    assert facts_only[precision] == ("0.970 (facts: no statements)", "yes")
    assert facts_only["issue 42: memory state (held-aside, offline): accuracy >= 0.95"][1] == "yes"
    outside = "issue 42: memory state (held-aside, offline): accuracy outside the eight aspects >= 0.90"
    assert facts_only[outside] == ("0.850", "**no**")
    assert facts_only["issue 42: memory state (held-aside, offline): wrong supersessions <= 0.02"][1] == "yes"


def test_issue_42_latest_evidence_first_is_met_only_when_both_modes_reach_it() -> None:
    def results(pipeline: float, raw: float) -> dict[str, Any]:
        def mode(share: float) -> dict[str, Any]:
            return {"knowledge-update": {"questions": 28, "latest_first": share}}

        return {"knowledge_update": {"results": {"pipeline": mode(pipeline), "raw turns": mode(raw)}}}

    goal = "issue 42: LongMemEval knowledge updates, latest evidence first >= 0.95"
    assert _checked(results(0.964, 0.95))[goal] == (
        "0.950 (raw turns, 28 questions), 0.964 (pipeline, 28 questions)",
        "yes",
    )
    assert _checked(results(0.964, 0.929))[goal][1] == "**no**"
