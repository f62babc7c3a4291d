"""The goals of issues 25 (time), 26 (retrieval that carries over), 33 and 42 (memory state, conflicts) and 34 (a
real model), checked against a run's results.

Kept beside report_tables.TARGETS (issues 5-18) so that each issue's goals read as that issue states them.
"""

from __future__ import annotations

from bench.data.longmemeval_data import TYPES
from bench.report.report_tables import Check, Results, _at_least, _get, _met

_LOCOMO = ("locomo_recall", "results", "engram")
_MODES = ("raw turns", "pipeline")


def _locomo_dated(results: Results) -> tuple[str, str]:
    dated = _get(results, "locomo_recall", "evidence_valid_from")
    if not dated:
        return "not run", "n/a"
    return f"{dated['on_the_day_said']} of {dated['in_top10']}", _met(dated["share"] == 1.0)


def _per_mode(key: str, limit: float) -> Check:
    """A LongMemEval overall figure in both modes (raw turns, pipeline)."""

    def check(results: Results) -> tuple[str, str]:
        values = {m: _get(results, "longmemeval", "results", m, "overall", key) for m in _MODES}
        if any(v is None for v in values.values()):
            return "not run", "n/a"
        text = ", ".join(f"{v:.3f} ({m})" for m, v in values.items())
        return text, _met(all(v >= limit for v in values.values()))

    return check


def _newest_first(results: Results) -> tuple[str, str]:
    rows = {m: _get(results, "longmemeval", "results", m, "knowledge-update", "newest_first") for m in _MODES}
    if any(r is None or r.get("share") is None for r in rows.values()):
        return "not run", "n/a"
    text = ", ".join(f"{round(r['share'] * r['questions'])} of {r['questions']} ({m})" for m, r in rows.items())
    return text, _met(all(r["share"] >= 0.9 for r in rows.values()))


def _latest_first(results: Results) -> tuple[str, str]:
    """Issue 42: the latest evidence of LongMemEval's knowledge updates first, in both modes."""
    rows = {m: _get(results, "knowledge_update", "results", m, "knowledge-update") for m in _MODES}
    if any(r is None or r.get("latest_first") is None for r in rows.values()):
        return "not run", "n/a"
    text = ", ".join(f"{r['latest_first']:.3f} ({m}, {r['questions']} questions)" for m, r in rows.items())
    return text, _met(all(r["latest_first"] >= 0.95 for r in rows.values()))


def _sessions_by_type(results: Results) -> tuple[str, str]:
    """Session recall@10 of every question type, in the weaker of the two modes."""
    worst: list[tuple[float, str]] = []
    for kind in TYPES:
        values = [_get(results, "longmemeval", "results", m, kind, "session_recall@10") for m in _MODES]
        if any(v is None for v in values):
            return "not run", "n/a"
        worst.append((min(values), kind))
    low = min(worst)
    return f"lowest {low[0]:.3f} ({low[1]})", _met(low[0] >= 0.85)


def _policy(key: str, limit: float, at_most: bool) -> Check:
    """A rate of the policy screen as it runs, on the held-aside third (clauses alone and mixed)."""

    def check(results: Results) -> tuple[str, str]:
        held = _get(results, "policy_screen", "screen", "held_aside")
        if not held:
            return "not run", "n/a"
        rows = {how: held[how] for how in ("alone", "mixed")}
        text = ", ".join(f"{r[key]:.3f} ({how})" for how, r in rows.items())
        health = ", ".join(f"{r['per_entry']['Health'][key]:.3f}" for r in rows.values())
        ok = all((r[key] <= limit) if at_most else (r[key] >= limit) for r in rows.values())
        return f"{text}; Health {health}", _met(ok)

    return check


_STATE = ("memory_state", "offline/held_aside")
_STATE_MODEL = ("memory_state", "model/held_aside")


def _state_precision(part: tuple[str, ...], limit: float) -> Check:
    """Statement precision where memories carry statements, else the facts' precision (said which)."""

    def check(results: Results) -> tuple[str, str]:
        statements = _get(results, *part, "statement_precision")
        value = statements if statements is not None else _get(results, *part, "fact_precision")
        if value is None:
            return "not run", "n/a"
        return f"{value:.3f}" + ("" if statements is not None else " (facts: no statements)"), _met(value >= limit)

    return check


def _at_most(path: tuple[str, ...], limit: float) -> Check:
    def check(results: Results) -> tuple[str, str]:
        value = _get(results, *path)
        if value is None:
            return "not run", "n/a"
        return f"{value:.3f}", _met(value <= limit)

    return check


def _reconcile(key: str, limit: float, at_most: bool) -> Check:
    """A real model's reconciliation after the plan checks, every case and the held-aside third."""

    def check(results: Results) -> tuple[str, str]:
        splits = _get(results, "reconcile_checks", "splits")
        if not splits:
            return "not run (no model configured)", "n/a"
        rows = {name: splits[name] for name in ("all", "held") if name in splits}
        text = ", ".join(f"{r[key]} ({name})" for name, r in rows.items())
        ok = all((r[key] <= limit) if at_most else (r[key] >= limit) for r in rows.values())
        return text, _met(ok)

    return check


def _qa_ratio(results: Results) -> tuple[str, str]:
    summary = _get(results, "qa", "summary")
    if not summary or summary.get("engram_vs_oracle") is None:
        return "not run (no model configured)", "n/a"
    tokens = ", ".join(
        f"{name} {block['engram']['context_tokens_mean']:.0f}"
        for name, block in summary.items()
        if isinstance(block, dict) and "engram" in block
    )
    ratio = summary["engram_vs_oracle"]
    return f"{ratio:.3f} (context tokens a question: {tokens})", _met(ratio >= 0.9)


def _sessions(dataset: str, path: tuple[str, ...], limit: float) -> Check:
    def check(results: Results) -> tuple[str, str]:
        part = _get(results, "session_recall", dataset)
        value = _get(results, "session_recall", dataset, *path)
        if value is None:
            return "not run", "n/a"
        measured = part.get("measured") or f"{part.get('conversations')} conversations"
        return f"{value:.3f} ({measured})", _met(value >= limit)

    return check


def _conflicts(key: str, limit: float) -> Check:
    """The conflict set's held-aside third, offline or with a model: the better of the two, named."""

    def check(results: Results) -> tuple[str, str]:
        values = {m: _get(results, "conflicts", f"{m}/held_aside", key) for m in ("offline", "model")}
        values = {m: v for m, v in values.items() if v is not None}
        if not values:
            return "not run", "n/a"
        text = ", ".join(f"{v:.3f} ({m})" for m, v in values.items())
        return text, _met(max(values.values()) >= limit)

    return check


GOALS: list[tuple[str, Check]] = [
    (
        "issue 25: LoCoMo temporal recall@10 >= 0.82 (no date in the text)",
        _at_least((*_LOCOMO, "2 temporal", "recall@10"), 0.82),
    ),
    ("issue 25: LoCoMo evidence memories valid from the day said = 1.00", _locomo_dated),
    ("issue 25: LongMemEval evidence memories valid from the day said = 1.00", _per_mode("valid_from_on_the_day", 1.0)),
    ("issue 25: LongMemEval knowledge updates, newest evidence first >= 0.9", _newest_first),
    ("issue 26: LoCoMo recall@10 >= 0.85", _at_least((*_LOCOMO, "overall", "recall@10"), 0.85)),
    ("issue 26: LoCoMo multi-hop recall@10 >= 0.65", _at_least((*_LOCOMO, "1 multi-hop", "recall@10"), 0.65)),
    ("issue 26: LoCoMo open-domain recall@10 >= 0.65", _at_least((*_LOCOMO, "3 open-domain", "recall@10"), 0.65)),
    ("issue 26: LongMemEval all evidence turns in the top 10 >= 0.85", _per_mode("turn_all@10", 0.85)),
    ("issue 26: LongMemEval session recall@10 >= 0.85 for every question type", _sessions_by_type),
    ("issue 44: policy leak rate = 0 (held-aside third, banks and topics)", _policy("leak_rate", 0.0, True)),
    ("issue 44: policy false exclusions <= 0.05 (held-aside third)", _policy("false_exclusion_rate", 0.05, True)),
    ("issue 42: LongMemEval knowledge updates, latest evidence first >= 0.95", _latest_first),
    ("issue 33: memory state (held-aside, offline): accuracy >= 0.90", _at_least((*_STATE, "state_accuracy"), 0.9)),
    ("issue 33: memory state (held-aside, offline): stale <= 0.05", _at_most((*_STATE, "stale_current_rate"), 0.05)),
    ("issue 33: memory state (held-aside, offline): precision >= 0.95", _at_least((*_STATE, "fact_precision"), 0.95)),
    ("issue 42: memory state (held-aside, offline): accuracy >= 0.95", _at_least((*_STATE, "state_accuracy"), 0.95)),
    (
        "issue 42: memory state (held-aside, offline): accuracy outside the eight aspects >= 0.90",
        _at_least((*_STATE, "state_accuracy_outside"), 0.9),
    ),
    ("issue 42: memory state (held-aside, offline): stale <= 0.05", _at_most((*_STATE, "stale_current_rate"), 0.05)),
    (
        "issue 42: memory state (held-aside, offline): wrong supersessions <= 0.02",
        _at_most((*_STATE, "wrong_supersession_rate"), 0.02),
    ),
    ("issue 42: memory state (held-aside, offline): statement precision >= 0.95", _state_precision(_STATE, 0.95)),
    ("issue 42: memory state (held-aside, model): precision >= 0.90", _state_precision(_STATE_MODEL, 0.9)),
    ("issue 42: memory state (held-aside, model): accuracy >= 0.90", _at_least((*_STATE_MODEL, "state_accuracy"), 0.9)),
    ("issue 34: reconciliation, information lost after the checks = 0", _reconcile("lost_checked", 0, True)),
    ("issue 34: reconciliation, right after the checks >= 0.85", _reconcile("right_checked", 0.85, False)),
    ("issue 34: QA, J(Engram's context) >= 0.9 x J(evidence turns alone)", _qa_ratio),
    (
        "issue 34: LongMemEval official-shape recall_all@5 >= 0.95",
        _sessions("longmemeval", ("overall", "recall_all@5"), 0.95),
    ),
    (
        "issue 34: LoCoMo distinct-session recall@10 >= 0.96",
        _sessions("locomo", ("overall", "session_recall@10"), 0.96),
    ),
    ("issue 42: conflict set (held-aside), single-hop >= 0.90", _conflicts("single_hop", 0.90)),
    ("issue 42: conflict set (held-aside), multi-hop >= 0.50", _conflicts("multi_hop", 0.50)),
]
