"""Reconciliation by a real model, before and after Engram's plan checks (reconcile/checks.py).

    python -m bench.parts.reconcile_checks            # the bench's model (ENGRAM_QA_MODEL, bench/rig/bench_model.py)
    ENGRAM_OPENAI_BASE_URL=... python -m bench.parts.reconcile_checks   # or the product's (or ENGRAM_LLM=local)
    python -m bench.parts.reconcile_checks --replay   # re-score the stored answers (tuning the checks)

Each labelled case of bench/data/reconcile_cases.jsonl (current memories, new facts, the events each
memory may end with, the words the user's current memories must still hold, how many memories there
may be at most) goes through Engram's default reconcile prompt, once, with the schema-enforced JSON
answer. The model's decisions as parsed ("raw") and the same decisions after the plan checks and
the missing-fact cover that production applies ("checked") are each applied to the memories and
scored:

- right: every memory ends with an allowed event, every word to keep is still there, and there are
  no more memories than allowed (a kept duplicate or a stale memory beside its replacement is wrong);
- lost: a word to keep is gone (information lost).

A third of the cases (every third) is held aside: the checks are tuned on the rest; both are reported.
The model's answers are stored in bench/results/reconcile_answers.json so --replay re-scores without it.
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import re
import statistics
import sys
import threading
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from bench.rig.bench_model import NO_MODEL as BENCH_NO_MODEL
from bench.rig.bench_model import BenchModel
from engram.domain.models import Event, Fact, ReconcileStrategy
from engram.domain.steps import CandidateFact, Decision
from engram.reconcile.checks import PlanChecks
from engram.reconcile.llm import DecisionInterpreter, LLMReconciler, cover_missing
from engram.reconcile.llm_json import parse_json_loosely
from engram.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "data" / "reconcile_cases.jsonl"
ANSWERS = ROOT / "results" / "reconcile_answers.json"
_WORD = re.compile(r"[^\W_]+")


def load_cases(path: Path = CASES) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def case_inputs(case: dict[str, Any]) -> tuple[list[Fact], list[CandidateFact]]:
    existing = [Fact(id=f"m{i}", tenant_id="bench", user_id="bench", text=t) for i, t in enumerate(case["existing"])]
    return existing, [CandidateFact(text=t, by_llm=True) for t in case["facts"]]


def prompt(existing: Sequence[Fact], facts: Sequence[CandidateFact]) -> tuple[str, str, dict[str, Any], str]:
    """The system prompt, user message, schema and schema name of Engram's default reconcile call."""
    system, schema, name = LLMReconciler._call_shape(ReconcileStrategy.DEFAULT, attachments=False)
    shown: list[dict[str, Any]] = [{"id": str(i), "text": f.text} for i, f in enumerate(existing)]
    from engram.reconcile.attachment_codes import AttachmentCodes

    user = LLMReconciler._prompt(ReconcileStrategy.DEFAULT, shown, facts, "", AttachmentCodes(), {})
    return system, user, schema, name


def apply(
    case: dict[str, Any], existing: Sequence[Fact], decisions: Sequence[Decision]
) -> tuple[dict[str, str], list[str]]:
    """The user's current memories after the decisions, and each original memory's event."""
    state = {f.id: f.text for f in existing}
    events = {f.id: Event.NONE for f in existing}
    named: set[str] = set()
    added = 0
    for d in decisions:
        if d.event is Event.ADD:
            state[f"new{added}"] = d.text
            added += 1
            continue
        if d.memory_id not in state or d.memory_id in named:
            continue
        named.add(d.memory_id)
        if d.event is Event.UPDATE:
            if " ".join(d.text.casefold().split()) != " ".join(state[d.memory_id].casefold().split()):
                events[d.memory_id] = Event.UPDATE
            state[d.memory_id] = d.text
        elif d.event is Event.DELETE:
            events[d.memory_id] = Event.DELETE
            del state[d.memory_id]
    return state, [events[f.id].value for f in existing]


def score(case: dict[str, Any], existing: Sequence[Fact], decisions: Sequence[Decision]) -> dict[str, Any]:
    state, events = apply(case, existing, decisions)
    words = {w.lower() for text in state.values() for w in _WORD.findall(text)}
    missing = [k for k in case["keep"] if not any(w.startswith(k) for w in words)]
    allowed = all(e in ok for e, ok in zip(events, case["allowed"], strict=True))
    right = allowed and not missing and len(state) <= case["max_current"]
    return {"right": right, "lost": missing, "events": events, "memories": sorted(state.values())}


def decide(case: dict[str, Any], content: str | None, checks: PlanChecks) -> tuple[list[Decision], list[Decision]]:
    """The model's decisions as parsed, and after the checks and the missing-fact cover."""
    existing, facts = case_inputs(case)
    raw: list[Decision] = []
    if content is not None:
        try:
            raw = DecisionInterpreter(existing, facts, relevance=False)(parse_json_loosely(content))
        except (ValueError, KeyError, TypeError):
            raw = []  # production asks again (ask_json); here an unusable answer counts as no decision
    checked = cover_missing(checks([d.model_copy() for d in raw], facts, existing), facts)
    return raw, checked


NO_MODEL = f"{BENCH_NO_MODEL}, or run alone with ENGRAM_OPENAI_BASE_URL or ENGRAM_LLM=local"


def model_configured(env: Mapping[str, str] | None = None) -> bool:
    """The bench's model (ENGRAM_QA_*, as `make bench` runs it) or, run alone, the product's own settings."""
    env = os.environ if env is None else env
    return (
        BenchModel.from_env(env) is not None
        or bool(env.get("ENGRAM_OPENAI_BASE_URL"))
        or env.get("ENGRAM_LLM", "").lower() == "local"
    )


def _llm() -> tuple[Any, str]:
    bench_model = BenchModel.from_env()
    if bench_model is not None:
        return bench_model.llm(), bench_model.name
    import openai

    from engram.adapters.openai.llm import OpenAILLM

    base_url = os.environ.get("ENGRAM_OPENAI_BASE_URL")
    if not base_url and os.environ.get("ENGRAM_LLM", "").lower() == "local":
        from engram_tools.local import local_model

        # Installs and assembles on first use (under .engram, as `make run` does); stopped at exit.
        local = local_model.start(Path(os.environ.get("ENGRAM_DATA_DIR", ".engram")).resolve())
        atexit.register(local.stop)
        base_url = local.server.base_url
    if not base_url:
        raise SystemExit(f"reconcile checks: skipped: {NO_MODEL}")
    client = openai.OpenAI(
        base_url=base_url, api_key=os.environ.get("ENGRAM_OPENAI_API_KEY", "local"), timeout=600, max_retries=1
    )
    model = os.environ.get("ENGRAM_LLM_MODEL") or client.models.list().data[0].id
    return OpenAILLM(client, model, Settings().llm_banned_tokens), model  # as the product's wiring sends them


def round_robin(cases: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """One case of each kind in turn, so that a run cut short still covers every kind."""
    kinds: dict[str, list[dict[str, Any]]] = {}
    for case in cases:
        kinds.setdefault(case["kind"], []).append(case)
    queues = list(kinds.values())
    out: list[dict[str, Any]] = []
    while any(queues):
        out += [q.pop(0) for q in queues if q]
    return out


def ask(cases: Sequence[dict[str, Any]], stored: dict[str, Any], parallel: int) -> dict[str, Any]:
    """The model's answer to each case not answered yet (stored as they come: a run cut short keeps
    what it got); `parallel` requests at once, for a server with as many slots."""
    llm, model = _llm()
    stored.setdefault("model", model)
    answers = stored.setdefault("answers", {})
    lock = threading.Lock()
    todo = []
    for case in round_robin(cases):
        existing, facts = case_inputs(case)
        system, user, schema, name = prompt(existing, facts)
        if case["id"] not in answers or answers[case["id"]].get("user") != user:
            todo.append((case, system, user, schema, name))

    def one(item: tuple[dict[str, Any], str, str, dict[str, Any], str]) -> None:
        case, system, user, schema, name = item
        start = time.perf_counter()
        reply = llm.complete_json(system, user, schema, name)
        answer = {
            "user": user,
            "content": reply.content,
            "seconds": round(time.perf_counter() - start, 2),
            "prompt_tokens": reply.usage.prompt_tokens,
            "completion_tokens": reply.usage.completion_tokens,
        }
        with lock:
            answers[case["id"]] = answer
            ANSWERS.write_text(json.dumps(stored, indent=1, ensure_ascii=False), encoding="utf-8")
            print(f"  {len(answers)}/{len(cases)} {case['id']} {answer['seconds']} s", flush=True)

    with ThreadPoolExecutor(max_workers=parallel) as pool:
        list(pool.map(one, todo))
    return stored


def report(cases: Sequence[dict[str, Any]], stored: dict[str, Any], checks: PlanChecks) -> dict[str, Any]:
    per_case = []
    downgrades: Counter[str] = Counter()
    for case in cases:
        answer = stored["answers"].get(case["id"])
        existing, _ = case_inputs(case)
        raw, checked = decide(case, answer["content"] if answer else None, checks)
        for d in checked:
            if d.note and "plan check" in d.note:
                downgrades[d.note.split("plan check: ", 1)[1].split(" ", 1)[0]] += 1
        per_case.append(
            {
                "id": case["id"],
                "kind": case["kind"],
                "split": case["split"],
                "raw": score(case, existing, raw),
                "checked": score(case, existing, checked),
                "seconds": answer["seconds"] if answer else None,
            }
        )
    out: dict[str, Any] = {"model": stored.get("model"), "cases": len(per_case), "splits": {}}
    for split in ("tune", "held", "all"):
        rows = [r for r in per_case if split in ("all", r["split"])]
        out["splits"][split] = {
            "cases": len(rows),
            "right_raw": round(sum(r["raw"]["right"] for r in rows) / len(rows), 3),
            "right_checked": round(sum(r["checked"]["right"] for r in rows) / len(rows), 3),
            "lost_raw": sum(bool(r["raw"]["lost"]) for r in rows),
            "lost_checked": sum(bool(r["checked"]["lost"]) for r in rows),
        }
    kinds = sorted({r["kind"] for r in per_case})
    out["by_kind"] = {
        k: {
            "cases": sum(r["kind"] == k for r in per_case),
            "right_raw": sum(r["raw"]["right"] for r in per_case if r["kind"] == k),
            "right_checked": sum(r["checked"]["right"] for r in per_case if r["kind"] == k),
        }
        for k in kinds
    }
    out["downgrades"] = dict(downgrades)
    seconds = [r["seconds"] for r in per_case if r["seconds"] is not None]
    out["median_call_s"] = round(statistics.median(seconds), 1) if seconds else None
    out["per_case"] = per_case
    return out


def run(replay: bool = False, parallel: int = 1) -> dict[str, Any]:
    from engram.adapters.onnx.embedder import OnnxEmbedder
    from engram.state.aspects import AspectReader

    cases = load_cases()
    stored: dict[str, Any] = json.loads(ANSWERS.read_text(encoding="utf-8")) if ANSWERS.exists() else {}
    if not replay:
        stored = ask(cases, stored, parallel)
    embedder = OnnxEmbedder()
    # as bootstrap.plan_checks builds them
    return report(cases, stored, PlanChecks(embedder, aspects=AspectReader(embedder).single_values))


def main(argv: list[str] | None = None) -> int:
    if not model_configured() and "--replay" not in (argv if argv is not None else sys.argv[1:]):
        print(f"reconcile checks: skipped: {NO_MODEL}")
        return 0
    parser = argparse.ArgumentParser(prog="python -m bench.parts.reconcile_checks")
    parser.add_argument("--replay", action="store_true", help="score the stored answers again, no model calls")
    parser.add_argument("--parallel", type=int, default=1, help="requests at once (a server with that many slots)")
    args = parser.parse_args(argv)
    result = run(args.replay, args.parallel)
    from bench.report import report as bench_report

    bench_report.save("reconcile_checks", result)
    summary = {k: v for k, v in result.items() if k != "per_case"}
    print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
