"""Tables of the quality parts: infer=true LoCoMo recall, fact ranking, offline extraction P/R."""

from __future__ import annotations

from typing import Any

Results = dict[str, Any]
_KEYS = ["recall@5", "recall@10", "recall@20"]


def _table(header: list[str], rows: list[list[Any]]) -> list[str]:
    from bench.report.report_format import table

    return table(header, rows)


def _infer(results: Results) -> list[tuple[str, list[str]]]:
    part = results.get("locomo_infer")
    if not part:
        return []
    rows: list[list[Any]] = []
    raw = (results.get("locomo_recall") or {}).get("results", {}).get("engram")
    if raw:
        rows.append(["infer=false (raw turns, locomo_recall part)", "", *(raw["overall"][k] for k in _KEYS)])
    for mode, scores in part["results"].items():
        kept = part["kept"][mode]
        memories = f"{sum(r['fact'] for r in kept)} facts + {sum(r['episode'] for r in kept)} episodes"
        rows.append([f"infer=true, {mode}", memories, *(scores["overall"][k] for k in _KEYS)])
    cats = [
        [category, *(part["results"][mode][category]["recall@10"] for mode in part["results"])]
        for category in part["results"][next(iter(part["results"]))]
        if category != "overall"
    ]
    note = f"{part['conversations']} conversations; memories kept summed over them."
    return [
        ("LoCoMo evidence recall, infer=true", [*_table(["path", "memories kept", *_KEYS], rows), "", note]),
        ("LoCoMo infer=true recall@10 by category", _table(["category", *part["results"]], cats)),
    ]


def _facts(results: Results) -> list[tuple[str, list[str]]]:
    part = results.get("fact_ranking")
    if not part:
        return []
    rows = [[name, v["top1"], v["recall@3"]] for name, v in part["results"].items()]
    note = (
        f"{part['users']} users, {part['statements']} statements ({part['memories']} memories), "
        f"{part['questions']} questions."
    )
    return [("Fact ranking (fact-retrieval set)", [*_table(["search", "top-1", "R@3"], rows), "", note])]


def _extract(results: Results) -> list[tuple[str, list[str]]]:
    part = results.get("extraction_quality")
    if not part:
        return []
    rows = [
        [split, v["statements"], v["expected"], v["predicted"], v["precision"], v["recall"]]
        for split, v in part["splits"].items()
    ]
    header = ["split", "statements", "facts expected", "facts returned", "precision", "recall"]
    return [("Offline extraction (corpus)", _table(header, rows))]


def sections(results: Results) -> list[tuple[str, list[str]]]:
    return [*_infer(results), *_facts(results), *_extract(results)]
