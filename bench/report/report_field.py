"""The tables of bench/results/summary.md for the figures the field reports: session-level recall on
the whole sets (bench/parts/session_recall.py) and LLM-judge J (bench/parts/qa.py)."""

from __future__ import annotations

from typing import Any

from bench.report.report_format import table

Results = dict[str, Any]


def session_sections(results: Results) -> list[tuple[str, list[str]]]:
    part = results.get("session_recall")
    if not part:
        return []
    out: list[tuple[str, list[str]]] = []
    lme = part.get("longmemeval")
    if lme:
        keys = ["turn_recall@10", "recall_any@5", "recall_any@10", "recall_all@5", "recall_all@10", "ndcg@5", "ndcg@10"]
        rows = [
            [name, lme[name]["questions"], *(lme[name][k] for k in keys)] for name in ("overall", "official_subset")
        ]
        rows += [[kind, s["questions"], *(s[k] for k in keys)] for kind, s in lme["by_type"].items() if s["questions"]]
        note = f"{lme['measured']}; goal recall_all@5 >= 0.95; reference: {part['references']['longmemeval']}."
        out.append(("LongMemEval_S session-level retrieval", [*table(["questions", "n", *keys], rows), "", note]))
    locomo = part.get("locomo")
    if locomo:
        keys = ["turn_recall@10", "session_recall@5", "session_recall@10", "session_all@10"]
        rows = [["overall", locomo["overall"]["questions"], *(locomo["overall"][k] for k in keys)]]
        rows += [[c, s["questions"], *(s[k] for k in keys)] for c, s in locomo["by_category"].items()]
        note = f"{locomo['conversations']} conversations; goal 0.96; reference: {part['references']['locomo']}."
        out.append(("LoCoMo distinct-session recall", [*table(["category", "n", *keys], rows), "", note]))
    return out


def qa_sections(results: Results) -> list[tuple[str, list[str]]]:
    part = results.get("qa")
    if not part:
        return []
    rows: list[list[Any]] = []
    for dataset, block in part["summary"].items():
        if not isinstance(block, dict):
            continue
        for kind, s in block.items():
            if isinstance(s, dict):
                rows.append([dataset, kind, s["questions"], s["J"], s["context_tokens_mean"], s["search_p50_ms"]])
        rows.append([dataset, "J engram / J oracle", "", block["engram_vs_oracle"], "", ""])
    m = part["method"]
    note = f"Answer and judge: {m['model']} / {m['judge_model']}; sample: {m['sample']}; top_k {m['top_k']}."
    header = ["set", "context", "questions", "J", "context tokens", "search p50 ms"]
    return [("Answer accuracy (LLM judge)", [*table(header, rows), "", note])]
