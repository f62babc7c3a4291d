"""The tables of bench/results/summary.md for what Engram keeps of a person: the policy screen
(bench/parts/policy_leaks.py), the memory state after short histories (bench/parts/memory_state.py), the
conflict set in FactConsolidation's shape (bench/parts/conflicts.py) and a real model's reconciliation before
and after the plan checks (bench/parts/reconcile_checks.py)."""

from __future__ import annotations

from typing import Any

from bench.report.report_format import table

Results = dict[str, Any]


def _policy(results: Results) -> list[tuple[str, list[str]]]:
    part = results.get("policy_screen")
    if not part or not part.get("screen"):
        return []
    rows: list[list[Any]] = []
    for split, block in part["screen"].items():
        for how in ("alone", "mixed"):
            r = block.get(how)
            if r:
                rows.append([split, how, r["leak_rate"], r["leaked"], r["false_exclusion_rate"], r["falsely_cut"]])
    per = (part["screen"].get("held_aside") or {}).get("alone", {}).get("per_entry", {})
    by_entry = [[name, e["leak_rate"], e["false_exclusion_rate"]] for name, e in per.items() if isinstance(e, dict)]
    cost = part.get("cost", {})
    note = (
        f"{part.get('clauses')} labelled clauses ({part.get('held_aside')} held aside); goals on the held-aside third: "
        f"leak 0, false exclusions <= 0.05. "
        + (
            f"Screen {cost['screen_ms_per_message']} ms a message."
            if "screen_ms_per_message" in cost
            else "Cost not measured."
        )
    )
    model = part.get("with_model") or {}
    if "skipped" in model:
        note += f" With a real model: skipped ({model['skipped']})."
    elif model:
        note += (
            " With a real model ({}): ".format((model.get("tuning") or {}).get("model", {}).get("model"))
            + ", ".join(
                f"{split} leak {r['leak_rate']}, false exclusions {r['false_exclusion_rate']}"
                for split, r in model.items()
                if isinstance(r, dict)
            )
            + "."
        )
    lines = [*table(["split", "clauses read", "leak rate", "leaked", "false exclusions", "cut"], rows), "", note]
    if by_entry:
        lines += ["", "Held-aside third, clauses alone, per bank or topic:", ""]
        lines += table(["bank / topic", "leak rate", "false exclusions"], by_entry)
    return [("Policy by meaning (labelled clauses)", lines)]


def _state(results: Results) -> list[tuple[str, list[str]]]:
    part = results.get("memory_state")
    if not part:
        return []
    keys = [
        "state_accuracy",
        "state_accuracy_inside",
        "state_accuracy_outside",
        "stale_current_rate",
        "stale_current_outside",
        "wrong_supersession_rate",
        "statement_precision",
        "fact_precision",
        "policy_leak_rate",
    ]
    counts = ["histories", "aspects", "aspects_outside", "outdated", "must_stay", "statements", "facts"]
    runs = [(name, f) for name, f in part.items() if isinstance(f, dict) and "/" in name]
    note = (
        f"{part.get('histories')} histories, {part.get('held_aside')} held aside. Modes: offline (the rules), llm (the "
        "stub LLM), model (a real model, when one is configured). inside / outside: the eight aspects (home, "
        "employer, job, partner, pets, allergy, diet, plans) or any other attribute. Statement precision is "
        "empty where no memory carries statements. Goals (held-aside, offline; issue 42): accuracy >= 0.95 "
        "(>= 0.90 outside the eight), stale <= 0.05, wrong supersessions <= 0.02, statement precision >= 0.95; "
        "model mode: precision >= 0.90, accuracy >= 0.90."
    )
    lines = [
        *table(["mode/split", *keys], [[name, *(f.get(k) for k in keys)] for name, f in runs]),
        "",
        *table(["mode/split", *counts], [[name, *(f.get(k) for k in counts)] for name, f in runs]),
        "",
        note,
    ]
    return [("Memory state after short histories", lines)]


def _conflicts(results: Results) -> list[tuple[str, list[str]]]:
    part = results.get("conflicts")
    if not part:
        return []
    keys = ["single_hop", "multi_hop", "unchanged", "single_hop_latest_first", "single_hop_older_outdated"]
    rows = [[name, f.get("facts"), *(f.get(k) for k in keys)] for name, f in part.items() if "/" in name]
    field = part.get("field_factconsolidation", {})
    rows += [
        [f"field: {name}", "", f.get("single_hop"), f.get("multi_hop"), "", "", ""]
        for name, f in field.items()
        if isinstance(f, dict)
    ]
    note = (
        f"{part.get('facts')} facts in {part.get('groups')} groups, {part.get('held_aside_groups')} groups held aside; "
        f"{part.get('chunk')} facts an add. single-hop: the top current memory states the latest value and no older "
        "one is current; multi-hop: current graph relations lead from the subject through both hops to the latest "
        "answer alone; unchanged: facts nothing contradicted stay first. The field's rows are FactConsolidation "
        "answer accuracy (issue 42), a different protocol: bench/README.md."
    )
    return [("Conflicts in FactConsolidation's shape", [*table(["mode/split", "facts", *keys], rows), "", note])]


def _reconcile(results: Results) -> list[tuple[str, list[str]]]:
    part = results.get("reconcile_checks")
    if not part or not part.get("splits"):
        return []
    keys = ["cases", "right_raw", "right_checked", "lost_raw", "lost_checked"]
    rows = [[split, *(s.get(k) for k in keys)] for split, s in part["splits"].items()]
    note = (
        f"Model: {part.get('model')}; median call {part.get('median_call_s')} s. right: every memory ends as allowed "
        "and nothing kept twice; lost: cases where a word the memories must keep is gone. Goals: right after the "
        "checks >= 0.85, lost after the checks 0."
    )
    title = "Reconciliation by a real model, before and after the plan checks"
    return [(title, [*table(["split", *keys], rows), "", note])]


def sections(results: Results) -> list[tuple[str, list[str]]]:
    return [*_policy(results), *_state(results), *_conflicts(results), *_reconcile(results)]
