"""`make bench` = `python -m bench.run_all`: every part, results in bench/results/.

    python -m bench.run_all                      # everything (tens of minutes on 2 cores)
    python -m bench.run_all --quick              # 2 conversations, smaller collections (minutes)
    python -m bench.run_all --parts recall,cold  # some parts: recall, cold, policy, qa, pii, ...
    python -m bench.run_all --resume             # a stopped run, same commit and mode: the parts it has not saved

The parts that need a real model (qa, reconcile, state's and conflicts' "model" modes) use
the one ENGRAM_QA_MODEL / ENGRAM_QA_BASE_URL name (bench/rig/bench_model.py) and are skipped without it.
A moto server and the stub LLM run in their own processes (recall and ingest start a fresh moto per
conversation or mode: moto copies a whole table on each transactional write). The LoCoMo turns are
embedded once (by the recall part's real ingestion) and their vectors reused by the speed parts.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
from pathlib import Path
from typing import Any

# Each part (`--parts`) and the result file it saves in bench/results/.
PARTS = {
    "recall": "locomo_recall",
    "latency": "search_latency",
    "ingest": "ingest",
    "mem0": "mem0_compare",
    "cold": "cold_start",
    "infer": "locomo_infer",
    "facts": "fact_ranking",
    "extract": "extraction_quality",
    "policy": "policy_screen",
    "state": "memory_state",
    "conflicts": "conflicts",
    "bulk": "bulk",
    "longmemeval": "longmemeval",
    "updates": "knowledge_update",
    "reconcile": "reconcile_checks",
    "qa": "qa",
    "sessions": "session_recall",
    "cost": "cost",
    "pii": "safety_pii",
    "poisoning": "safety_poisoning",
    "requests": "safety_requests",
}


# The stated samples of the answer-accuracy part: a 1.5B answerer and judge on 2 cores take ~35 s a
# question (two contexts, an answer and a verdict each); `python -m bench.parts.qa --all` runs every question.
QA_SAMPLE = ["--locomo", "4", "--lme", "12"]  # 4 a LoCoMo category (1-4), 2 of each LongMemEval type
QA_SAMPLE_QUICK = ["--locomo", "2", "--lme", "6"]
# The conflict set's model mode: the first groups of the held-aside third (each add a model call on 2 cores).
CONFLICTS_MODEL_GROUPS = 24
CONFLICTS_MODEL_GROUPS_QUICK = 6


def _machine() -> str:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return f"{platform.machine()} {os.cpu_count()} cores, Python {platform.python_version()}, load {load:.1f} at start"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.run_all")
    parser.add_argument("--quick", action="store_true", help="2 conversations, 1k/10k memories, fewer runs")
    parser.add_argument("--parts", default=",".join(PARTS), help=f"comma-separated subset of {','.join(PARTS)}")
    parser.add_argument("--resume", action="store_true", help="continue the stopped run in bench/results/run.json")
    args = parser.parse_args(argv)
    parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    unknown = set(parts) - set(PARTS)
    if unknown:
        parser.error(f"unknown parts: {', '.join(sorted(unknown))}")
    os.environ.setdefault("POWERTOOLS_SERVICE_NAME", "engram-bench")
    os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")
    os.environ.setdefault("MEM0_TELEMETRY", "False")

    from bench.data.corpus import Corpus
    from bench.data.locomo_data import load
    from bench.parts import cold_start, ingest_speed, locomo_recall, mem0_compare, search_latency
    from bench.report import report
    from bench.report.report import RESULTS
    from bench.report.run_record import ResumeRefused, RunRecord
    from bench.rig.bench_model import NO_MODEL, BenchModel
    from bench.rig.engram_env import VectorCache
    from bench.rig.procs import ROOT, ModelServer, MotoProcess, git_commit

    model = BenchModel.from_env()  # the real model of qa, reconcile and state (bench/rig/bench_model.py), if any
    same = {
        "commit": git_commit(ROOT),
        "mode": "quick" if args.quick else "full",
        "model": model.describe() if model is not None else None,
    }
    try:
        record = RunRecord.begin(RESULTS, same=same, machine=_machine(), parts=parts, resume=args.resume)
    except ResumeRefused as err:
        parser.error(str(err))
    parts = [p for p in parts if not record.done(PARTS[p])]  # a resumed run's saved parts are kept
    convs = load()
    if args.quick:
        convs = convs[:2]
    cache = VectorCache()

    timed = record.timed

    with MotoProcess() as moto, ModelServer() as llm:
        if "recall" in parts:
            timed("locomo_recall", lambda: locomo_recall.run(convs, cache))
        corpus = Corpus(cache, convs) if {"latency", "mem0"} & set(parts) else None
        if "latency" in parts and corpus is not None:
            sizes = (1_000, 10_000) if args.quick else (1_000, 10_000, 100_000)
            timed(
                "search_latency",
                lambda: search_latency.run(
                    moto.endpoint,
                    corpus,
                    sizes,
                    queries=200 if args.quick else 300,
                    http_max=1_000 if args.quick else 100_000,
                    longmemeval=not args.quick,
                ),
            )
        if "ingest" in parts:
            turns = 30 if args.quick else 60

            def ingest_part() -> dict[str, Any]:
                out: dict[str, Any] = {"turns_per_conversation": turns, "conversations": len(convs)}
                out["in_process"] = ingest_speed.in_process(llm, convs, turns)
                out["local_stack"] = []
                with tempfile.TemporaryDirectory(prefix="engram-bench-") as tmp:
                    for infer in (False, True):
                        try:
                            out["local_stack"].append(ingest_speed.through_stack(Path(tmp), llm, convs[0], 100, infer))
                        except RuntimeError as err:  # the local stack did not start: say so
                            out["local_stack"].append({"mode": f"infer={infer}", "error": str(err)[:300]})
                        print(f"  local stack: {out['local_stack'][-1]}", flush=True)
                return out

            timed("ingest", ingest_part)
        if "mem0" in parts and corpus is not None:
            timed(
                "mem0_compare",
                lambda: mem0_compare.run(
                    moto.endpoint,
                    llm,
                    corpus,
                    convs,
                    sizes=(1_000, 10_000),
                    queries=100 if args.quick else 200,
                    runs=2 if args.quick else 3,
                    ingest_turns=40 if args.quick else 100,
                ),
            )
    if "infer" in parts:
        from bench.parts import locomo_infer

        timed("locomo_infer", lambda: locomo_infer.run(convs, cache))
    if "facts" in parts:
        from bench.parts import fact_ranking

        timed("fact_ranking", lambda: fact_ranking.run(12 if args.quick else 42))
    if "extract" in parts:
        from bench.parts import extraction_quality

        timed("extraction_quality", extraction_quality.run)
    if "policy" in parts:
        from bench.parts import policy_leaks

        timed("policy_screen", lambda: policy_leaks.run(3 if args.quick else 5))
    if "state" in parts:  # memory state after short histories (bench/parts/memory_state.py)
        from bench.parts import memory_state

        def state_part() -> dict[str, Any]:
            out = memory_state.run()  # offline and the stub LLM, both thirds
            if model is None:
                print(f"  model mode skipped: {NO_MODEL}", flush=True)
            else:  # the real model on the held-aside third only: what a 1.5B on 2 cores does in ~15 min
                print(f"  model mode ({model.name}): held-aside third only", flush=True)
                real = memory_state.run(("model",), ("held_aside",), model, limit=3 if args.quick else None)
                out["model"] = real["model"] | {"splits": "held_aside only (the tuning third is not run with a model)"}
                out["model/held_aside"] = real["model/held_aside"]
            return out

        timed("memory_state", state_part)
    if "conflicts" in parts:  # FactConsolidation's shape: facts, then edits (bench/parts/conflicts.py)
        from bench.parts import conflicts

        def conflicts_part() -> dict[str, Any]:
            out = conflicts.run(("offline",), conflicts.SPLITS)  # both thirds, ~1 minute on 2 cores
            if model is None:
                print(f"  model mode skipped: {NO_MODEL}", flush=True)
            else:  # one add a chunk of 6 facts: the first groups of the held-aside third, ~15 min for a 1.5B
                limit = CONFLICTS_MODEL_GROUPS_QUICK if args.quick else CONFLICTS_MODEL_GROUPS
                print(f"  model mode ({model.name}): the first {limit} held-aside groups", flush=True)
                real = conflicts.run(("model",), ("held_aside",), model, limit=limit)
                out["model"] = real["model"]
                out["model/held_aside"] = real["model/held_aside"] | {"limit_groups": limit}
            return out

        timed("conflicts", conflicts_part)
    if "cold" in parts:
        timed("cold_start", lambda: cold_start.run(3 if args.quick else 7))
    if "bulk" in parts:
        from bench.parts import bulk

        with tempfile.TemporaryDirectory(prefix="engram-bulk-") as tmp:
            timed(
                "bulk",
                lambda: bulk.run(Path(tmp), memories=2_000 if args.quick else 10_000, runs=1 if args.quick else 3),
            )
    if "longmemeval" in parts:
        from bench.parts import longmemeval

        timed("longmemeval", lambda: longmemeval.run(quick=args.quick))
    if "updates" in parts:  # issue 42: LongMemEval's changed values, the latest first and the older outdated
        from bench.parts import knowledge_update

        timed("knowledge_update", lambda: knowledge_update.run(quick=args.quick))
    if "reconcile" in parts:  # a real model's reconciliation, before and after the plan checks
        from bench.parts import reconcile_checks

        if reconcile_checks.model_configured():
            timed("reconcile_checks", reconcile_checks.run)
        else:
            print(f"[reconcile_checks] skipped: {reconcile_checks.NO_MODEL}", flush=True)
    if "qa" in parts:  # LLM-judge J, only with a model configured (bench/parts/qa.py)
        from bench.parts import qa

        settings = qa.QASettings.from_env()
        if settings is None:
            print(f"[qa] skipped: {NO_MODEL}", flush=True)
        else:
            timed("qa", lambda: qa.run(settings, qa.parse_args(QA_SAMPLE_QUICK if args.quick else QA_SAMPLE)))
    # The field's session-level recall on the whole sets (bench/parts/session_recall.py): after qa, whose
    # searches fill the embedding cache it reads.
    if "sessions" in parts:
        from bench.parts import session_recall

        timed("session_recall", lambda: session_recall.run(["--locomo-only"] if args.quick else []))
    if "pii" in parts:  # issue 44's safety parts: redaction, stored instructions, requests said in chat
        from bench.parts import safety_pii

        timed("safety_pii", safety_pii.run)
    if "poisoning" in parts:
        from bench.parts import safety_poisoning

        timed("safety_poisoning", safety_poisoning.run)
    if "requests" in parts:
        from bench.parts import safety_requests

        timed("safety_requests", safety_requests.run)
    if "cost" in parts:  # last: prices the ingest figures measured above (bench/parts/cost.py)
        from bench.parts import cost

        timed("cost", cost.run)
    whole = record.end_sitting(PARTS)  # a sitting of some parts leaves the run open for --resume
    pngs = report.charts()
    text = report.summary(pngs=pngs)
    print(text)
    if not args.quick and whole:
        report.update_readme(text)  # only a full run of every part stands as the latest results
    return 0


if __name__ == "__main__":
    sys.exit(main())
