"""The LongMemEval tables of bench/results/summary.md (bench/parts/longmemeval.py)."""

from __future__ import annotations

from typing import Any

from bench.data.longmemeval_data import TYPES

Results = dict[str, Any]
_KEYS = ["turn_recall@5", "turn_recall@10", "turn_all@10", "session_recall@5", "session_recall@10"]


def _table(header: list[str], rows: list[list[Any]]) -> list[str]:
    from bench.report.report_format import table

    return table(header, rows)


def sections(results: Results) -> list[tuple[str, list[str]]]:
    part = results.get("longmemeval")
    if not part:
        return []
    rows: list[list[Any]] = []
    for mode, by_type in part["results"].items():
        for kind in ("overall", *TYPES):
            s = by_type[kind]
            if s["questions"]:
                rows.append([mode, kind, s["questions"], *(s[k] for k in _KEYS), s["valid_from_on_the_day"]])
    extra: list[list[Any]] = []
    for mode, by_type in part["results"].items():
        ku = by_type["knowledge-update"]["newest_first"]
        ingest = by_type["ingest"]
        extra.append(
            [
                mode,
                by_type["search_p50_ms"],
                f"{ku['share']} of {ku['questions']}",
                ingest["cpu_ms_per_turn"],
                f"{ingest['memories']} from {ingest['turns']} turns",
            ]
        )
    note = (
        f"Run {part.get('started', '?')}, commit {part.get('commit', '?')}, load {part.get('load_at_start', '?')} "
        f"at start. {part['method']['subset']}; "
        f"{part['abstention_not_scored']} abstention questions counted, not scored; "
        f"search `now` passed: {part['method']['search_now']}; {part['wall_s']} s."
    )
    header = ["mode", "type", "questions", *_KEYS, "valid_from on the day"]
    more = ["mode", "search p50 ms", "KU newest first", "ingest CPU ms / turn", "memories"]
    return [("LongMemEval_S retrieval", [*_table(header, rows), "", *_table(more, extra), "", note])]


def update_sections(results: Results) -> list[tuple[str, list[str]]]:
    """The knowledge-update part (bench/parts/knowledge_update.py): per mode and question type."""
    part = results.get("knowledge_update")
    if not part:
        return []
    rows: list[list[Any]] = []
    for mode, by_type in part["results"].items():
        for kind, s in by_type.items():
            if s["questions"]:
                rows.append(
                    [
                        mode,
                        kind,
                        s["questions"],
                        s["latest_first"],
                        s["older_outdated"],
                        s["both"],
                        s["latest_found"],
                        s["latest_rank_median"],
                        s["older_above_latest"],
                    ]
                )
    header = [
        "mode",
        "type",
        "questions",
        "latest first",
        "older outdated",
        "both",
        "latest in top 20",
        "latest's median rank",
        "older above latest",
    ]
    note = (
        f"Run {part.get('started', '?')}, commit {part.get('commit', '?')}, load {part.get('load_at_start', '?')} "
        f"at start, {part['wall_s']} s. {part['method']['questions']}."
    )
    return [("LongMemEval_S knowledge updates (issue 42)", [*_table(header, rows), "", note])]
