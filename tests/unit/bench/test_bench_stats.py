"""The benchmark's arithmetic: percentiles, recall@k and all@k, medians of runs, targets."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from bench.report.report import update_readme
from bench.report.report_tables import TARGETS
from bench.rig.stats import (
    all_at,
    dcg,
    distinct,
    latency_summary,
    median_runs,
    percentile,
    ratio,
    recall_at,
    session_metrics,
    sessions_by_sum,
)


def test_percentiles_interpolate_between_ranks() -> None:
    samples = [float(x) for x in range(1, 101)]  # 1..100
    assert percentile(samples, 50) == pytest.approx(50.5)
    assert percentile(samples, 95) == pytest.approx(95.05)
    assert percentile(samples, 0) == 1.0
    assert percentile(samples, 100) == 100.0
    assert percentile([7.0], 99) == 7.0
    with pytest.raises(ValueError):
        percentile([], 50)


def test_latency_summary() -> None:
    summary = latency_summary([3.0, 1.0, 2.0])
    assert summary == {"n": 3, "p50_ms": 2.0, "p95_ms": 2.9, "p99_ms": 2.98, "mean_ms": 2.0}


def test_recall_and_all_at_k() -> None:
    ranked = ["D1:1", "D1:2", "D3:4", "D2:2"]
    assert recall_at(ranked, ["D1:2", "D2:2"], 2) == 0.5
    assert recall_at(ranked, ["D1:2", "D2:2"], 4) == 1.0
    assert all_at(ranked, ["D1:2", "D2:2"], 2) == 0.0
    assert all_at(ranked, ["D1:2", "D2:2"], 10) == 1.0
    assert recall_at(ranked, ["D1:2", "D1:2"], 2) == 1.0  # evidence is a set
    with pytest.raises(ValueError):
        recall_at(ranked, [], 5)


def test_median_of_runs_and_ratios() -> None:
    runs = [{"p50": 3.0, "p95": 9.0}, {"p50": 1.0, "p95": 5.0, "extra": 1.0}, {"p50": 2.0, "p95": 7.0}]
    assert median_runs(runs) == {"p50": 2.0, "p95": 7.0}
    assert ratio(2.0, 8.0) == 0.25
    assert ratio(1.0, 0.0) is None
    assert ratio(None, 3.0) is None


def test_targets_are_checked_against_results() -> None:
    results = {
        "locomo_recall": {"results": {"engram": {"overall": {"recall@10": 0.781}}}},
        "search_latency": {
            "cases": [{"memories": 10_000, "layout": "one user", "rank+embed": {"p50_ms": 9.0, "p95_ms": 16.0}}]
        },
        "cold_start": {
            "api function": {"import_plus_clients_s": 0.8, "ready_cpu_s": 0.48},
            "baseline with AWS clients": {"import_plus_clients_s": 0.5, "ready_cpu_s": 0.30},
        },
        "fact_ranking": {"results": {"engram (intent re-ranking)": {"top1": 0.89}}},
    }
    verdicts = {name: check(results) for name, check in TARGETS}
    met = {name.split(",")[0].split(" <=")[0].split(" >=")[0]: v[1] for name, v in verdicts.items()}

    assert met["LoCoMo evidence recall@10"] == "yes"
    assert met["search p50"] == "yes"
    assert met["search p95"] == "**no**"
    assert met["API cold start"] == "**no**"  # 1.6x the floor's CPU time
    assert verdicts["API cold start <= 1.5x the floor (boto3 + pydantic + Powertools and their AWS clients)"][
        0
    ].startswith("1.60x CPU")
    assert met["fact ranking top-1"] == "**no**"
    assert all(
        v == ("not run", "n/a") for k, v in verdicts.items() if "mem0" in k or "LLM calls" in k or "make run" in k
    )


def test_a_full_run_replaces_the_readme_results_and_keeps_the_rest(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("# Benchmarks\n\nHow to run.\n\n## Latest results\n\nold table\n")
    summary = "# Engram benchmark results\n\nRun x.\n\n## Targets\n\n| a | b |\n\n![recall.png](recall.png)\n"
    update_readme(summary, readme, tmp_path / "results")
    assert readme.read_text() == (
        "# Benchmarks\n\nHow to run.\n\n## Latest results\n\n"
        "Run x.\n\n### Targets\n\n| a | b |\n\n![recall.png](results/recall.png)\n"
    )


def test_distinct_keeps_each_item_where_it_first_ranks() -> None:
    assert distinct(["s2", "s1", "s2", "s3", "s1"]) == ["s2", "s1", "s3"]


def test_dcg_is_longmemevals_rel1_plus_rel_i_over_log2_i() -> None:
    assert dcg([1, 1, 1], 3) == pytest.approx(1 + 1 / math.log2(2) + 1 / math.log2(3))
    assert dcg([0, 1], 10) == pytest.approx(1.0)  # rank 2 counts in full, as upstream
    assert dcg([], 5) == 0.0


def test_session_metrics_over_distinct_sessions_a_session_ranking_at_its_best_turn() -> None:
    # Turns' sessions, best first: s9 twice, then s1, s9 again, s4, s7, s5, s2, s3 ...
    ranked = ["s9", "s9", "s1", "s9", "s4", "s7", "s5", "s2", "s3"]
    m = session_metrics(ranked, {"s1", "s2"}, ks=(5, 10))
    # distinct: s9 s1 s4 s7 s5 | s2 s3 -> s1 in the first 5, s2 only in the first 10
    assert (m["recall_any@5"], m["recall_all@5"]) == (1.0, 0.0)
    assert (m["recall_any@10"], m["recall_all@10"]) == (1.0, 1.0)
    ideal = 1 + 1 / math.log2(2)
    assert m["ndcg@5"] == pytest.approx((1 / math.log2(2)) / ideal)
    assert m["ndcg@10"] == pytest.approx((1 / math.log2(2) + 1 / math.log2(6)) / ideal)


def test_session_metrics_perfect_missing_and_no_evidence() -> None:
    assert session_metrics(["a", "a", "b"], {"a"}) == {
        "recall_any@5": 1.0,
        "recall_all@5": 1.0,
        "ndcg@5": 1.0,
        "recall_any@10": 1.0,
        "recall_all@10": 1.0,
        "ndcg@10": 1.0,
    }
    missed = session_metrics(["b", "c"], {"a"})
    assert set(missed.values()) == {0.0}
    with pytest.raises(ValueError, match="no evidence"):
        session_metrics(["a"], [])


def test_sessions_by_sum_lets_a_session_several_turns_point_to_rise_ties_by_first_retrieved() -> None:
    hits = [("a", 0.9), ("b", 0.5), ("b", 0.5), ("c", 0.3), ("d", 0.3)]
    assert sessions_by_sum(hits) == ["b", "a", "c", "d"]
    assert sessions_by_sum([]) == []
