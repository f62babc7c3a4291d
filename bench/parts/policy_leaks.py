"""Policy by meaning (issue 33): how often the include/exclude screen leaks an excluded clause, and how
often it cuts a clause it should have kept, on a labelled set of chat clauses
(bench/data/policy_clauses.json: each clause with every bank or free topic it is about).

    python -m bench.parts.policy_leaks          # also part "policy" of `make bench`

1. Thresholds. Every clause is scored once against the seven banks and the set's free topics
   (pipeline/topic_meaning.py with the local MiniLM); the decision rule is then tried over a grid of
   thresholds on the tuning two thirds (index % 3 != 2) only, each bank on its own. Chosen: fewest
   leaks (privacy first), then fewest false exclusions, then the furthest from a leak. The held-aside
   third is scored with the chosen thresholds and with those in use (the same: `in_use_is_chosen`).
2. The screen as it runs. Each clause, and each clause mixed into a message with a clause about other
   things, goes through PolicyScreen.redact (clause splitting, meaning, topic words and the offline
   rules) with each bank and topic excluded in turn. A leak: a clause about the excluded entry keeps
   any of its own words in what would be stored. A false exclusion: a clause about other things loses
   half its own words or more.
3. With a real model (ENGRAM_QA_MODEL set: bench/rig/bench_model.py; skipped with one line otherwise). Each
   clause is said in an add through the whole pipeline with the model as its LLM (in-memory stores),
   once with each entry it is about excluded and once with one entry it is not about (the next in the
   entries' order), when the same clause without a policy stores any of its words; a leak: any of its own
   words in a memory stored; a false exclusion: half of them or more gone, as in 2. Per split.
4. Cost. Screening a message (clauses split and embedded, scores, the cut) in milliseconds per
   message, median of several runs, and a whole offline add's pipeline (in-memory stores, the real
   MiniLM) without a policy, with `exclude: ["Health"]` decided by the rules only (as before issue
   33) and by meaning.

Rates are over (clause, excluded entry) pairs: leak = leaked / pairs whose clause is about the entry,
false exclusion = cut / pairs whose clause is not.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import re
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from bench.rig.bench_model import NO_MODEL, BenchModel
from engram.domain.models import AddRequest, MemoryBank, Message
from engram.domain.policy import MemoryPolicy
from engram.pipeline.clauses import clauses as split
from engram.pipeline.policy_screen import PolicyScreen
from engram.pipeline.topic_meaning import THRESHOLDS, BankRule, Scores, Thresholds, TopicMeaning

DATA = Path(__file__).resolve().parents[1] / "data" / "policy_clauses.json"
BANKS = {b.value: b for b in MemoryBank}
CONNECTIVES = (", and ", ". ", " but ", " - ", ", ")
_WORD = re.compile(r"[a-z0-9']{3,}")
SLACKS = (0.0, 0.01, 0.02, 0.03, 0.05)
LEAK_WEIGHT = 5  # a leak stored counts as much as five clauses cut that should have been kept
TOPIC_FLOORS = tuple(round(-0.10 + 0.02 * i, 2) for i in range(16))  # free topics' contrast scores
# a catalogue topic's reading behind the nearest bank's (on the readings' scale, as the banks' margins)
CATALOGUE_MARGINS = tuple(round(0.02 * i, 2) for i in range(8))


@dataclass(frozen=True)
class Clause:
    index: int
    text: str
    about: frozenset[str]
    tuning: bool = False  # written after the split was fixed (appended): tuning whatever its index

    @property
    def held(self) -> bool:
        return self.index % 3 == 2 and not self.tuning


def load(path: Path = DATA) -> tuple[list[str], dict[str, list[str]], list[Clause]]:
    """The entries (seven banks, then the free topics), each topic's examples, and the clauses."""
    data = json.loads(path.read_text(encoding="utf-8"))
    rows = enumerate(data["clauses"])
    clauses = [Clause(i, c["text"], frozenset(c["about"]), c.get("tuning", False)) for i, c in rows]
    return [b.value for b in MemoryBank] + list(data["topics"]), data["topics"], clauses


Scored = tuple[Clause, tuple[Scores, ...]]  # a labelled clause and the scores of the pieces the screen cuts it in


def decides(parts: Sequence[Scores], entry: str, t: Thresholds) -> bool:
    """Whether the rule cuts a clause: any of its pieces (the screen decides each piece on its own)."""
    bank = BANKS.get(entry)
    return any(s.excluded_by(bank, t) if bank is not None else s.about_topic(entry, t) for s in parts)


def score_pieces(meaning: TopicMeaning, clauses: Sequence[Clause], examples: dict[str, list[str]]) -> list[Scored]:
    """Each clause scored as the screen scores it: piece by piece, as pipeline/clauses.py cuts it. Tuning
    on whole clauses fitted rules to texts the screen never scores ("my wife works nights so I do the
    school run" is read as two pieces, one about work)."""
    pieces = [split(c.text) or [c.text] for c in clauses]
    flat = meaning.score([p for ps in pieces for p in ps], examples)
    out, at = [], 0
    for clause, ps in zip(clauses, pieces, strict=True):
        out.append((clause, tuple(flat[at : at + len(ps)])))
        at += len(ps)
    return out


def rates(pairs: Sequence[Scored], entries: Sequence[str], t: Thresholds) -> dict[str, Any]:
    """Leak and false-exclusion rates of the decision rule alone, overall and per entry."""
    per: dict[str, dict[str, int]] = {}
    for entry in entries:
        row = per.setdefault(entry, {"about": 0, "leaked": 0, "other": 0, "cut": 0})
        for clause, scores in pairs:
            cut = decides(scores, entry, t)
            if entry in clause.about:
                row["about"] += 1
                row["leaked"] += not cut
            else:
                row["other"] += 1
                row["cut"] += cut
    return _totals(per)


def _totals(per: dict[str, dict[str, int]]) -> dict[str, Any]:
    about = sum(r["about"] for r in per.values())
    other = sum(r["other"] for r in per.values())
    leaked = sum(r["leaked"] for r in per.values())
    cut = sum(r["cut"] for r in per.values())
    return {
        "leak_rate": round(leaked / about, 4) if about else 0.0,
        "false_exclusion_rate": round(cut / other, 4) if other else 0.0,
        "leaked": leaked,
        "pairs_about": about,
        "falsely_cut": cut,
        "pairs_other": other,
        "per_entry": {
            e: {
                "leak_rate": round(r["leaked"] / r["about"], 4) if r["about"] else 0.0,
                "false_exclusion_rate": round(r["cut"] / r["other"], 4) if r["other"] else 0.0,
                **r,
            }
            for e, r in per.items()
        },
    }


def _grid() -> list[BankRule]:
    # on the readings' scale (pipeline/topic_meaning.py: a cosine less the usual nearness, about -0.2 to 0.2)
    floors = [round(-0.30 + 0.02 * i, 2) for i in range(21)]
    margins = [round(0.01 * i, 2) for i in range(0, 36)]
    sures = [-0.10, -0.05, 0.0, 0.05, 0.10, 1.0]
    return [BankRule(f, m, s) for f, m, s in itertools.product(floors, margins, sures)]


def choose(pairs: Sequence[Scored], entries: Sequence[str], slack: float = 0.0) -> tuple[Thresholds, dict[str, Any]]:
    """Each bank's rule, then the free topics' floors and catalogue margin, on the tuning pairs: the fewest
    leaks weighed LEAK_WEIGHT times a false exclusion (privacy first, the weighing the slack is chosen by;
    "fewest leaks first" fitted to 600 clauses cut a third of everything to save one leak), then the rule
    furthest from a leak (widest margin, lowest floor); then each widened by `slack` toward exclusion (floor
    lower, margin wider, topic floors lower): the fitted rule sits right at the edge of the clauses it was
    fitted on, and a clause never seen falls a little either side of it."""
    chosen: dict[MemoryBank, BankRule] = {}
    for entry in (e for e in entries if e in BANKS):
        bank = BANKS[entry]

        def key(rule: BankRule, bank: MemoryBank = bank, entry: str = entry) -> tuple[int, float, float]:
            t = Thresholds({**THRESHOLDS.banks, bank: rule}, THRESHOLDS.topic_floor)
            r = rates(pairs, [entry], t)
            return (r["leaked"] * LEAK_WEIGHT + r["falsely_cut"], -rule.margin, rule.floor)

        chosen[bank] = min(_grid(), key=key)
    topics = [e for e in entries if e not in BANKS]

    def topic_key(rule: tuple[float, float, float]) -> tuple[int, float, float, float]:
        floor, catalogue_floor, margin = rule
        t = Thresholds(chosen, floor, catalogue_margin=margin, catalogue_floor=catalogue_floor)
        r = rates(pairs, topics, t)
        # ties: furthest from a leak
        return (r["leaked"] * LEAK_WEIGHT + r["falsely_cut"], floor, catalogue_floor, -margin)

    grid = itertools.product(TOPIC_FLOORS, TOPIC_FLOORS, CATALOGUE_MARGINS)
    floor, catalogue_floor, margin = min(grid, key=topic_key)
    best = widened(Thresholds(chosen, floor, catalogue_margin=margin, catalogue_floor=catalogue_floor), slack)
    return best, rates(pairs, entries, best)


def widened(t: Thresholds, slack: float) -> Thresholds:
    banks = {b: BankRule(round(r.floor - slack, 3), round(r.margin + slack, 3), r.sure) for b, r in t.banks.items()}
    return dataclasses.replace(
        t,
        banks=banks,
        topic_floor=round(t.topic_floor - slack, 3),
        catalogue_floor=round(t.catalogue_floor - slack, 3),
        catalogue_margin=round(t.catalogue_margin + slack, 3),
    )


def choose_slack(pairs: Sequence[Scored], entries: Sequence[str]) -> tuple[float, dict[str, Any]]:
    """How far to widen the fitted rules, by two-fold cross-validation inside the tuning pairs alone
    (fit on one half, count on the other, and the other way round): the slack with the fewest leaks
    weighed LEAK_WEIGHT times a false exclusion (privacy first), on pairs the rules were not fitted on."""
    halves = ([p for p in pairs if p[0].index % 3 == 0], [p for p in pairs if p[0].index % 3 != 0])  # (tuning pairs)
    tried: dict[str, Any] = {}
    for slack in SLACKS:
        leaked = cut = 0
        for fit, test in (halves, halves[::-1]):
            r = rates(test, entries, choose(fit, entries, slack)[0])
            leaked, cut = leaked + r["leaked"], cut + r["falsely_cut"]
        tried[str(slack)] = {"leaked": leaked, "falsely_cut": cut}
    best = min(SLACKS, key=lambda s: tried[str(s)]["leaked"] * LEAK_WEIGHT + tried[str(s)]["falsely_cut"])
    return best, tried


def choose_vague(
    clauses: Sequence[Clause],
    entries: Sequence[str],
    examples: dict[str, list[str]],
    meaning: TopicMeaning,
    t: Thresholds,
) -> Thresholds:
    """How low a clause's nearest bank must score to go with the clause it continues: tried as the
    screen runs (clause splitting matters here), on the tuning clauses alone and mixed; fewest leaks,
    then fewest false exclusions."""

    def key(level: float) -> tuple[int, int]:
        trial = TopicMeaning(meaning.embedder, dataclasses.replace(t, vague=level))
        r = as_run(clauses, entries, examples, trial)
        return (r["alone"]["leaked"] + r["mixed"]["leaked"], r["alone"]["falsely_cut"] + r["mixed"]["falsely_cut"])

    return dataclasses.replace(t, vague=min((0.0, 0.25, 0.30, 0.35, 0.40), key=key))


def _plain(t: Thresholds) -> dict[str, Any]:
    return {
        "banks": {b.value: asdict(r) for b, r in t.banks.items()},
        "topic_floor": t.topic_floor,
        "catalogue_floor": t.catalogue_floor,
        "catalogue_margin": t.catalogue_margin,
        "vague": t.vague,
    }


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def _screen(entry: str, meaning: TopicMeaning, examples: dict[str, list[str]]) -> PolicyScreen:
    return PolicyScreen(MemoryPolicy(exclude=[entry], examples=examples), meaning)


def _stored(screen: PolicyScreen, text: str) -> str:
    request = AddRequest(messages=[Message(role="user", content=text)], user_id="bench")
    redacted, _ = screen.redact(request)
    return redacted.messages[0].content


def _mixes(clauses: Sequence[Clause]) -> list[tuple[Clause, Clause, str]]:
    """Each clause with the next one about none of the same things, joined as one message."""
    out = []
    for i, first in enumerate(clauses):
        second = next((c for c in clauses[i + 1 :] + clauses[:i] if not (c.about & first.about)), None)
        if second is not None:
            out.append((first, second, first.text + CONNECTIVES[i % len(CONNECTIVES)] + second.text))
    return out


def as_run(
    clauses: Sequence[Clause], entries: Sequence[str], examples: dict[str, list[str]], meaning: TopicMeaning
) -> dict[str, Any]:
    """Leak and false exclusion of the screen as it runs, for clauses alone and mixed in messages."""
    per: dict[str, dict[str, int]] = {}
    mixed: dict[str, dict[str, int]] = {}
    leaks: list[dict[str, str]] = []
    for entry in entries:
        screen = _screen(entry, meaning, examples)
        row = per.setdefault(entry, {"about": 0, "leaked": 0, "other": 0, "cut": 0})
        for clause in clauses:
            kept = _words(_stored(screen, clause.text))
            _count(row, entry, clause, kept, leaks, clause.text)
        row = mixed.setdefault(entry, {"about": 0, "leaked": 0, "other": 0, "cut": 0})
        for first, second, message in _mixes(clauses):
            stored = _stored(screen, message)
            shared = _words(first.text) & _words(second.text)
            for clause in (first, second):
                _count(row, entry, clause, _words(stored) - shared, leaks, message, shared)
    return {"alone": _totals(per), "mixed": _totals(mixed), "leaks": leaks[:40]}


def _count(
    row: dict[str, int],
    entry: str,
    clause: Clause,
    kept: set[str],
    leaks: list[dict[str, str]],
    message: str,
    shared: set[str] = frozenset(),  # type: ignore[assignment]
) -> None:
    own = _words(clause.text) - shared
    if not own:
        return
    left = own & kept
    if entry in clause.about:
        row["about"] += 1
        if left:
            row["leaked"] += 1
            leaks.append({"excluded": entry, "clause": clause.text, "message": message})
    else:
        row["other"] += 1
        row["cut"] += len(left) * 2 <= len(own)


def with_model(
    clauses: Sequence[Clause], entries: Sequence[str], examples: dict[str, list[str]], model: BenchModel
) -> dict[str, Any]:
    """Leak and false exclusion through the whole pipeline with the model as its LLM (part 3 above)."""
    from bench.doubles.in_memory import in_memory_product
    from engram.adapters.onnx.embedder import OnnxEmbedder
    from engram.adapters.recent_embeddings import RecentEmbeddings
    from engram.domain.models import Scope
    from engram.pipeline.reads import every_current
    from engram.settings import Settings

    embedder = RecentEmbeddings(OnnxEmbedder())
    meaning = TopicMeaning(embedder)
    product = in_memory_product(embedder, model.llm(), Settings(keep_episodes=True), policy_meaning=meaning)
    runs = 0

    def stored(text: str, exclude: list[str]) -> set[str]:
        nonlocal runs
        runs += 1
        scope = Scope(tenant_id="bench", user_id=f"u{runs}")
        request = AddRequest(messages=[Message(role="user", content=text)], user_id=scope.user_id)
        policy = MemoryPolicy(exclude=exclude, examples=examples)
        product.pipeline.run(scope, request, f"t{runs}", policy=policy if exclude else None)
        return _words(" ".join(f.text for f in every_current(product.facts, scope.tenant_id, scope.user_id)))

    per: dict[str, dict[str, int]] = {}
    leaks: list[dict[str, str]] = []
    for clause in clauses:
        own = _words(clause.text)
        if not own & stored(clause.text, []):
            continue  # stored nothing of it even without a policy: it tells neither way
        start = entries.index(sorted(clause.about)[0])
        other = next(e for e in [*entries[start:], *entries[:start]] if e not in clause.about)
        for entry in [*sorted(clause.about), other]:
            row = per.setdefault(entry, {"about": 0, "leaked": 0, "other": 0, "cut": 0})
            _count(row, entry, clause, own & stored(clause.text, [entry]), leaks, clause.text)
    return {**_totals(per), "model": model.describe(), "leaks": leaks[:40]}


def _median_ms(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return round(statistics.median(times), 2)


def cost(clauses: Sequence[Clause], runs: int = 5) -> dict[str, Any]:
    """Milliseconds per message: the screen alone (fresh embedder cache each run: every clause embedded),
    and an offline add's pipeline (as the container wires it, over in-memory stores) with and without
    `exclude: ["Health"]`, and with the screen by meaning or the rules alone."""
    from engram.adapters.onnx.embedder import OnnxEmbedder
    from engram.adapters.recent_embeddings import RecentEmbeddings
    from engram.settings import Settings

    model = OnnxEmbedder()
    model.warm_up()
    messages = [m for _, _, m in _mixes(clauses)]
    policy = MemoryPolicy(exclude=["Health"])

    def screen_all() -> None:
        meaning = TopicMeaning(RecentEmbeddings(model))
        meaning.score(["warm"])  # the descriptions, embedded once per process: not per message
        start = time.perf_counter()
        for text in messages:
            _stored(PolicyScreen(policy, meaning), text)
        timings.append((time.perf_counter() - start) * 1000 / len(messages))

    timings: list[float] = []
    for _ in range(runs):
        screen_all()
    out: dict[str, Any] = {"messages": len(messages), "screen_ms_per_message": round(statistics.median(timings), 2)}
    try:
        from bench.doubles.in_memory import in_memory_product  # the product over in-memory stores: its own CPU
        from tests.fakes import MemoryIndex
    except ImportError:
        return out
    from engram.domain.models import Scope

    scope = Scope(tenant_id="bench", user_id="u")
    modes = (
        ("add_ms_per_message_without_policy", False, False),
        ("add_ms_per_message_exclude_by_rules_only", True, False),  # main's screen before issue 33
        ("add_ms_per_message_exclude_by_meaning", True, True),
    )
    per_mode: dict[str, list[float]] = {name: [] for name, _, _ in modes}
    for _ in range(runs):  # the modes in turn within each run: the machine's load falls on all alike
        for name, with_policy, by_meaning in modes:
            embedder = RecentEmbeddings(model)
            meaning = TopicMeaning(embedder) if by_meaning else None
            if meaning is not None:
                meaning.score(["warm"])
            settings = Settings(keep_episodes=True)
            product = in_memory_product(embedder, None, settings, index=MemoryIndex(), policy_meaning=meaning)
            pipeline = product.pipeline
            start = time.perf_counter()
            for i, text in enumerate(messages):
                request = AddRequest(messages=[Message(role="user", content=text)], user_id="u")
                pipeline.run(scope, request, f"t{i}", policy=policy if with_policy else None)
            per_mode[name].append((time.perf_counter() - start) * 1000 / len(messages))
    out.update({name: round(statistics.median(values), 2) for name, values in per_mode.items()})
    return out


def model_sample(clauses: Sequence[Clause], entries: Sequence[str], per_entry: int) -> list[Clause]:
    """The first `per_entry` clauses about each entry (in the set's order), each once: every bank and topic
    is tried with the model, at a cost a 1.5B on two cores pays in minutes, not hours (each clause is one to
    three adds, each a model call of ~10 s)."""
    chosen: dict[int, Clause] = {}
    for entry in entries:
        about = [c for c in clauses if entry in c.about]
        for clause in about[:per_entry]:
            chosen.setdefault(clause.index, clause)
    return sorted(chosen.values(), key=lambda c: c.index)


# With a model, what `make bench` runs: the first clauses of the held-aside third about each bank and topic.
MODEL_PER_ENTRY = 2


def run(cost_runs: int = 5, tuning_only: bool = False, model_per_entry: int = MODEL_PER_ENTRY) -> dict[str, Any]:
    """`model_per_entry`: with a model, the held-aside third's first clauses about each entry only
    (model_sample); 0: every clause of both thirds."""
    from engram.adapters.onnx.embedder import OnnxEmbedder
    from engram.adapters.recent_embeddings import RecentEmbeddings

    entries, examples, clauses = load()
    meaning = TopicMeaning(RecentEmbeddings(OnnxEmbedder(), size=4_096))
    scored = score_pieces(meaning, clauses, examples)
    tune = [p for p in scored if not p[0].held]
    held = [p for p in scored if p[0].held]
    slack, slack_tried = choose_slack(tune, entries)
    chosen, on_tune = choose(tune, entries, slack)
    tune_clauses = [c for c in clauses if not c.held]
    held_clauses = [c for c in clauses if c.held]
    chosen = choose_vague(tune_clauses, entries, examples, meaning, chosen)
    if tuning_only:
        return {
            "chosen": _plain(chosen),
            "slack": slack,
            "slack_cross_validated": slack_tried,
            "decision_rule": {"tuning_chosen": on_tune},
            "screen": {"tuning": as_run(tune_clauses, entries, examples, meaning)},
        }
    model = BenchModel.from_env()
    if model is None:
        print(f"policy with a real model: skipped, {NO_MODEL}")
        by_model: dict[str, Any] = {"skipped": NO_MODEL}
    else:
        if not model_per_entry:
            by_model = {
                "tuning": with_model(tune_clauses, entries, examples, model),
                "held_aside": with_model(held_clauses, entries, examples, model),
            }
        else:
            sample = model_sample(held_clauses, entries, model_per_entry)
            print(
                f"  policy with {model.name}: {len(sample)} held-aside clauses ({model_per_entry} an entry)", flush=True
            )
            by_model = {
                "held_aside": with_model(sample, entries, examples, model)
                | {"sample": f"the first {model_per_entry} held-aside clauses about each entry: {len(sample)}"}
            }
    return {
        "clauses": len(clauses),
        "tuning": len(tune),
        "held_aside": len(held),
        "entries": entries,
        "chosen": _plain(chosen),
        "in_use": _plain(THRESHOLDS),
        "in_use_is_chosen": chosen == THRESHOLDS,
        "slack": slack,
        "slack_cross_validated": slack_tried,
        "decision_rule": {
            "tuning_chosen": on_tune,
            "held_aside_chosen": rates(held, entries, chosen),
            "held_aside_in_use": rates(held, entries, THRESHOLDS),
        },
        "screen": {
            "tuning": as_run(tune_clauses, entries, examples, meaning),
            "held_aside": as_run(held_clauses, entries, examples, meaning),
        },
        "with_model": by_model,
        "cost": cost(clauses, cost_runs) if cost_runs else {"skipped": "--cost-runs 0"},
    }


def main() -> None:
    import argparse

    from bench.report import report

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--tuning-only",
        action="store_true",
        help="while tuning: choose and measure on the tuning two thirds only (the held-aside third is not "
        "scored, no cost runs, nothing saved)",
    )
    parser.add_argument(
        "--cost-runs", type=int, default=5, help="runs of the cost measurement (0: not measured; a loaded machine)"
    )
    parser.add_argument(
        "--model-per-entry",
        type=int,
        default=MODEL_PER_ENTRY,
        help="with a model (ENGRAM_QA_MODEL): the held-aside third's first N clauses about each entry; 0: every "
        "clause of both thirds (hours for a 1.5B on two cores)",
    )
    args = parser.parse_args()
    data = run(cost_runs=args.cost_runs, tuning_only=args.tuning_only, model_per_entry=args.model_per_entry)
    if not args.tuning_only:
        report.save("policy_screen", data)
    screen = data["screen"]
    shown = ("chosen", "in_use_is_chosen", "slack", "slack_cross_validated")
    print(json.dumps({k: data[k] for k in shown if k in data}))
    for part in screen:
        for how in ("alone", "mixed"):
            r = screen[part][how]
            print(
                f"{part:10s} {how:6s} leak {r['leak_rate']:.3f} ({r['leaked']}/{r['pairs_about']})"
                f"  false exclusion {r['false_exclusion_rate']:.3f} ({r['falsely_cut']}/{r['pairs_other']})"
            )
            for entry, row in r["per_entry"].items():
                print(f"    {entry:14s} leak {row['leaked']}/{row['about']}  false {row['cut']}/{row['other']}")
    if "cost" in data:
        print(json.dumps(data["cost"]))
    else:  # tuning: the leaks themselves, to read
        for leak in screen["tuning"]["leaks"]:
            print("LEAK", json.dumps(leak))


if __name__ == "__main__":
    main()
