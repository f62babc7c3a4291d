"""Memory state: after a person's short multi-session history, is what Engram holds true to it?

    python -m bench.parts.memory_state                  # both modes, tuning and held-aside thirds
    python -m bench.parts.memory_state --mode offline --split tune --show   # each miss, for tuning
    python -m bench.parts.memory_state --mode offline --data bench/data/memory_state_probe.json --split both
    ENGRAM_QA_MODEL=... ENGRAM_QA_BASE_URL=... python -m bench.parts.memory_state --mode model --split held_aside

The corpus (bench/data/memory_state.json) holds histories written for this purpose, each with the
expected end state: the current value per attribute (`expect`), the values later statements replaced
(`outdated`), the values an ending closed with no new value (`ended`: "cancelled Netflix"), the values a
non-change must leave current (`unchanged`), the values named that are not the person's own now
(`not_current`: someone else's, a hedge, a visit, the past), the text an exclude policy must keep out, and
other things that are true of the person. h01-h67 are about the eight aspects of the catalogue
(home, employer, job, partner, pets, allergy, diet, plans); later histories are mostly about other
attributes (a phone, a gym, a landlord, ...), each with its plain question in `questions`. Every third
history (by id: h03, h06, ...) is held aside: tune on the rest, read the held-aside figures at the end.

`--data` runs another file of histories in the same format, split by the same rule (the number after the id's
letters: p003, p006, ... of bench/data/memory_state_probe.json are its held-aside third). The probe holds 60
histories outside the eight aspects in wording written apart from the reading code, to check that what was
tuned on this corpus carries over; with `--split both` the CLI also prints a row `<mode>/all` of every
history of the file, figures only.

Each session is one add (its messages dated), run through the product's ingest pipeline and
searched through MemoryService in process, both as the container wires them (engram.bootstrap, its
stores in memory: bench/doubles/in_memory.py), without HTTP. Scores:
- state accuracy: for each expected or ended attribute, its question ("where do I live?", "what phone
  do I have?") is searched; the top current memory (not marked outdated, or outdated in part and holding it in a
  current statement) holds the single value, or the
  top 5 hold each of a multi-valued attribute's values; and the top current memory is not one that
  stated an ended value before it ended. Overall, and split inside / outside the eight aspects;
- stale-current rate: replaced or ended values still stated by a current memory not marked outdated,
  said before the change (overall and split the same way);
- wrong supersession rate: values a non-change must leave current (`unchanged`) that a memory stating
  them lost: marked outdated (its statement of the value, or the memory when none of its current statements
  gives the value: a message outdated in part keeps what it still states), or closed with no current version
  of that memory still stating them;
- policy leak rate: excluded phrases found in any current memory;
- statement precision: the statements (Fact.statements) of current memories whose value is one the
  history gave that attribute (or, for an attribute it does not name, anything it gives), and which
  do not assert as the person's own a value that is not (`not_current`); None when no memory carries
  statements;
- fact precision: current memories read as facts whose value (for an aspect's key) is one the
  history gave that aspect, or whose text names something true of the history.
Offline mode: the offline extractor and reconciler. LLM mode: the stub LLM (bench/doubles/stub_llm.py)
extracts each long enough sentence as said and reconciles by text, so supersession by meaning
is what keeps its state current. Model mode: a real model (the bench's model, bench/rig/bench_model.py:
Engram's OpenAI adapter and the openai client). With either LLM the product's LLM wiring applies as
the settings say (the rules first, one call an add, its plan through the plan checks); an add the
model makes fail (an error after the adapter's retries) is counted and its session skipped.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from string import ascii_letters
from typing import Any

from bench.doubles.in_memory import in_memory_product
from bench.rig.bench_model import NO_MODEL, BenchModel, model_llm
from engram.bootstrap import Container
from engram.domain.errors import EngramError
from engram.domain.models import AddRequest, Fact, Message, Page, Scope, SearchQuery
from engram.domain.policy import MemoryPolicy
from engram.domain.ports import LLM, Embedder, FactStore
from engram.domain.statements import USER, Statement
from engram.domain.steps import LLMReply
from engram.services.memory import MemoryService
from engram.state.aspects import BY_NAME, key_aspect

DATA = Path(__file__).resolve().parents[1] / "data" / "memory_state.json"
NEVER = datetime.max.replace(tzinfo=UTC)
HELD_ASIDE_EVERY = 3  # h03, h06, ...: scored only at the end
MULTI_TOP = 5
MODES = ("offline", "llm", "model")
# The eight aspects of the person the bench began with (h01-h67); every other attribute is "outside".
EIGHT = frozenset({"home", "employer", "job", "partner", "pets", "allergy", "diet", "plans"})


def held_aside(history_id: str) -> bool:
    """Every third history by the number after the id's letters (h03, p006, ...)."""
    return int(history_id.lstrip(ascii_letters)) % HELD_ASIDE_EVERY == 0


def load(path: Path = DATA) -> list[dict[str, Any]]:
    """The histories of a data file (a JSON list); each must have an id of letters then a number."""
    histories: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    for history in histories:
        if not re.fullmatch(r"[A-Za-z]+[0-9]+", history.get("id", "")):
            raise ValueError(f"{path}: history id {history.get('id')!r} is not letters then a number")
    return histories


class StubLLM:
    """The bench's stub LLM (bench/doubles/stub_llm.py) in process, behind the LLM port."""

    def ping(self) -> None:
        return None

    def complete_json(self, system: str, user: str, schema: dict[str, Any], schema_name: str) -> LLMReply:
        from bench.doubles.stub_llm import respond

        request = {
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
            "response_format": {"json_schema": {"name": schema_name, "schema": schema}},
        }
        return LLMReply(content=respond(request))


def product(mode: str, embedder: Embedder, llm: LLM | None = None) -> Container:
    """Engram as the container wires it, its stores in memory: offline (no LLM), the stub LLM, or
    `llm`, the real model of mode "model"."""
    if mode == "offline":
        llm = None
    elif mode == "llm":
        llm = StubLLM()
    elif llm is None:
        raise ValueError(f"mode {mode!r} needs a model: {NO_MODEL}")
    return in_memory_product(embedder, llm)


@dataclass
class Score:
    aspects: int = 0
    correct: int = 0
    aspects_outside: int = 0  # of `aspects`, those about an attribute outside the eight
    correct_outside: int = 0
    outdated: int = 0
    stale: int = 0
    outdated_outside: int = 0
    stale_outside: int = 0
    must_stay: int = 0
    wrongly_superseded: int = 0
    excluded: int = 0
    leaked: int = 0
    facts: int = 0
    true_facts: int = 0
    statements: int = 0
    true_statements: int = 0
    failed_adds: int = 0
    misses: list[str] = field(default_factory=list)

    def add(self, other: Score) -> None:
        for name in COUNTS:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.misses += other.misses

    def figures(self) -> dict[str, Any]:
        def ratio(a: int, b: int) -> float | None:
            return round(a / b, 3) if b else None

        return {
            "state_accuracy": ratio(self.correct, self.aspects),
            "state_accuracy_inside": ratio(self.correct - self.correct_outside, self.aspects - self.aspects_outside),
            "state_accuracy_outside": ratio(self.correct_outside, self.aspects_outside),
            "stale_current_rate": ratio(self.stale, self.outdated),
            "stale_current_inside": ratio(self.stale - self.stale_outside, self.outdated - self.outdated_outside),
            "stale_current_outside": ratio(self.stale_outside, self.outdated_outside),
            "wrong_supersession_rate": ratio(self.wrongly_superseded, self.must_stay),
            "policy_leak_rate": ratio(self.leaked, self.excluded),
            "statement_precision": ratio(self.true_statements, self.statements),
            "fact_precision": ratio(self.true_facts, self.facts),
            "aspects": self.aspects,
            "aspects_outside": self.aspects_outside,
            "outdated": self.outdated,
            "outdated_outside": self.outdated_outside,
            "must_stay": self.must_stay,
            "excluded": self.excluded,
            "statements": self.statements,
            "facts": self.facts,
            "failed_adds": self.failed_adds,
        }


COUNTS = tuple(name for name in Score.__dataclass_fields__ if name != "misses")


def _holds(text: str, value: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(value.lower())}", text.lower()) is not None


def _first_said(history: dict[str, Any], current: str | list[str] | None) -> datetime | None:
    """When the history first names the aspect's current value (messages are dated as run_history dates them)."""
    wanted = current if isinstance(current, list) else [current] if current else []
    times = [
        _said_at(session["at"], i)
        for session in history["sessions"]
        for i, text in enumerate(session["messages"])
        if any(_holds(text, v) for v in wanted)
    ]
    return min(times) if times else None


def _last_said(history: dict[str, Any], value: str) -> datetime | None:
    """When the history last names an ended value, by date: the statement that ended it."""
    times = [
        _said_at(session["at"], i)
        for session in history["sessions"]
        for i, text in enumerate(session["messages"])
        if _holds(text, value)
    ]
    return max(times) if times else None


def _said_at(day: str, index: int) -> datetime:
    return datetime.fromisoformat(day).replace(tzinfo=UTC, hour=12) + timedelta(minutes=index)


def _masked(text: str, phrases: Sequence[str]) -> str:
    for phrase in phrases:
        text = re.sub(re.escape(phrase), " ", text, flags=re.IGNORECASE)
    return text


def _pages(list_page: Callable[..., Page], scope: Scope) -> list[Fact]:
    out: list[Fact] = []
    cursor: str | None = None
    while True:
        page = list_page(scope.tenant_id, scope.user_id, 100, cursor)
        out += page.items
        if not (cursor := page.next_cursor):
            return out


def _current(facts: FactStore, scope: Scope) -> list[Fact]:
    return _pages(facts.list_current, scope)


def _versions(facts: FactStore, scope: Scope) -> list[Fact]:
    """Every stored version, current and closed."""
    return _pages(facts.list_versions, scope)


def question(history: dict[str, Any], attribute: str) -> str:
    """The plain question about an attribute: the history's own, else the catalogue's (the eight aspects)."""
    asked: dict[str, str] = history.get("questions", {})
    return asked.get(attribute) or BY_NAME[attribute].query


def _values(expected: str | list[str] | None) -> list[str]:
    return expected if isinstance(expected, list) else [expected] if expected else []


def values_of(history: dict[str, Any]) -> dict[str, list[str]]:
    """Each attribute's values the history gives as the person's own, now or before."""
    out: dict[str, list[str]] = {}
    for part in ("expect", "outdated", "ended", "unchanged"):
        for attribute, given in history.get(part, {}).items():
            out.setdefault(attribute, []).extend(_values(given))
    return out


def run_history(history: dict[str, Any], mode: str, embedder: Embedder, llm: LLM | None = None) -> Score:
    """`llm`: the real model of mode "model"."""
    engram = product(mode, embedder, llm)
    scope = Scope(tenant_id="bench", user_id=history["id"])
    policy = MemoryPolicy(exclude=history["exclude"]) if history["exclude"] else None
    failed: list[str] = []
    for number, session in enumerate(history["sessions"]):
        messages = [
            Message(role="user", content=text, created_at=_said_at(session["at"], i))
            for i, text in enumerate(session["messages"])
        ]
        request = AddRequest(user_id=scope.user_id, messages=messages)
        try:
            engram.pipeline.run(scope, request, f"{history['id']}-{number}", policy=policy)
        except EngramError as err:  # production retries, then dead-letters the add; here it is counted
            failed.append(f"{history['id']} session {number}: add failed: {err}")
    score = _score(history, engram.memories, engram.facts, scope)
    score.failed_adds = len(failed)
    score.misses += failed
    return score


def _score(history: dict[str, Any], service: MemoryService, facts: FactStore, scope: Scope) -> Score:
    score = Score()
    stored = _current(facts, scope)
    _score_state(history, service, scope, score)
    _score_stale(history, stored, score)
    _score_kept(history, stored, _versions(facts, scope), score)
    _score_leaks(history, stored, score)
    _score_precision(history, stored, score)
    return score


def _score_state(history: dict[str, Any], service: MemoryService, scope: Scope, score: Score) -> None:
    """State accuracy: the question about each expected or ended attribute finds what is true now."""
    hid = history["id"]
    ended: dict[str, list[str]] = history.get("ended", {})
    for attribute in [*history["expect"], *(a for a in ended if a not in history["expect"])]:
        found = service.search(scope.tenant_id, SearchQuery(user_id=scope.user_id, query=question(history, attribute)))
        # A memory outdated in part stays current for what its current statements still give (issue 42).
        current = [f for f, _ in found if not f.outdated_by or _states_now(f)]
        expected = history["expect"].get(attribute)
        top = current[:MULTI_TOP] if isinstance(expected, list) else current[:1]
        missing = [v for v in _values(expected) if not any(_gives(f, v) for f in top)]
        # An ended value may be named by the memory of its ending ("cancelled Netflix"), not by one said before.
        still = [
            v
            for v in ended.get(attribute, [])
            if current[:1] and _holds(current[0].text, v) and current[0].valid_from < (_last_said(history, v) or NEVER)
        ]
        outside = attribute not in EIGHT
        score.aspects += 1
        score.aspects_outside += outside
        if missing or still:
            shown = current[0].text if current else None
            wrong = (f"wanted {missing}" if missing else "") + (f" ended {still} still on top" if still else "")
            score.misses.append(f"{hid} {attribute}: {wrong.strip()}, top current {shown!r}")
        else:
            score.correct += 1
            score.correct_outside += outside


def _score_stale(history: dict[str, Any], stored: list[Fact], score: Score) -> None:
    """Stale-current: a replaced or ended value still stated, as said before the change, by a current memory."""
    hid = history["id"]
    live = [f for f in stored if not f.outdated_by]
    olds = [(a, v, _first_said(history, history["expect"].get(a))) for a, vs in history["outdated"].items() for v in vs]
    olds += [(a, v, _last_said(history, v)) for a, vs in history.get("ended", {}).items() for v in vs]
    for attribute, value, since in olds:
        outside = attribute not in EIGHT
        score.outdated += 1
        score.outdated_outside += outside
        # An outdated statement is one said before the current value was: a memory naming the
        # old value later ("so Tom and I broke up") states the change, not the old value. Names
        # that merely contain the value ("University of Edinburgh", listed as true) are masked.
        stale = [
            f.text
            for f in live
            if _holds(_masked(f.text, history["true"]), value) and (since is None or f.valid_from < since)
        ]
        if stale:
            score.stale += 1
            score.stale_outside += outside
            score.misses.append(f"{hid} {attribute}: {value!r} still current in {stale}")


def _score_kept(history: dict[str, Any], stored: list[Fact], versions: list[Fact], score: Score) -> None:
    """Wrong supersession: a value that must stay current, whose memory (or its statement of the value) a
    non-change outdated, or closed with no current version still stating it."""
    hid = history["id"]
    for attribute, must in history.get("unchanged", {}).items():
        for value in must:
            score.must_stay += 1
            still = {f.id for f in stored if f.valid_to is None and _holds(f.text, value)}
            # A memory outdated in part keeps what it still states: lost only when no current statement of it
            # gives the value (a memory with no statements is outdated whole).
            lost = [
                f.text
                for f in stored
                if f.valid_to is None and f.outdated_by and _holds(f.text, value) and not _still_states(f, value)
            ]
            lost += [
                f.text
                for f in stored
                if any(s.outdated_by and (_holds(s.value, value) or _holds(value, s.value)) for s in f.statements)
            ]
            lost += [f.text for f in versions if f.valid_to is not None and f.id not in still and _holds(f.text, value)]
            if lost:
                score.wrongly_superseded += 1
                score.misses.append(f"{hid} {attribute}: {value!r} must stay current, lost in {lost}")


def _states_now(memory: Fact) -> bool:
    """Whether a memory outdated in part still states something now (a current asserted statement)."""
    return any(s.outdated_by is None and s.polarity == "asserted" for s in memory.statements)


def _gives(memory: Fact, value: str) -> bool:
    """Whether a current memory gives the value: in its text, or, outdated in part, in a current statement."""
    return _still_states(memory, value) if memory.outdated_by else _holds(memory.text, value)


def _still_states(memory: Fact, value: str) -> bool:
    """Whether a current statement of the memory (asserted, not outdated) gives the value."""
    return any(
        s.outdated_by is None and s.polarity == "asserted" and (_holds(s.value, value) or _holds(value, s.value))
        for s in memory.statements
    )


def _score_leaks(history: dict[str, Any], stored: list[Fact], score: Score) -> None:
    """Policy leaks: an excluded phrase in any current memory."""
    for phrase in history["excluded"]:
        score.excluded += 1
        leaks = [f.text for f in stored if _holds(f.text, phrase)]
        if leaks:
            score.leaked += 1
            score.misses.append(f"{history['id']} leak {phrase!r}: {leaks}")


def _statement_true(
    statement: Statement, history: dict[str, Any], given: dict[str, list[str]], anything: list[str]
) -> bool:
    def named(values: list[str]) -> bool:
        return any(_holds(statement.value, v) or _holds(v, statement.value) for v in values)

    own = [v for vs in given.values() for v in vs]
    if named(history.get("not_current", [])) and not named(own):  # the sister's phone, a maybe, the past
        return statement.polarity != "asserted" or statement.subject != USER
    if statement.attribute in given:
        return named(given[statement.attribute] + history["true"])
    return named(anything)


def _score_precision(history: dict[str, Any], stored: list[Fact], score: Score) -> None:
    """Statement precision (each statement a current memory carries) and fact precision (each fact)."""
    hid = history["id"]
    given = values_of(history)
    anything = [v for vs in given.values() for v in vs] + history["true"] + history["excluded"]
    for memory in stored:
        for statement in memory.statements:
            score.statements += 1
            if _statement_true(statement, history, given, anything):
                score.true_statements += 1
            else:
                shown = f"{statement.subject} {statement.attribute}={statement.value} ({statement.polarity})"
                score.misses.append(f"{hid} untrue statement: {shown} in {memory.text!r}")
    for fact in (f for f in stored if f.kind == "fact"):
        score.facts += 1
        aspect = key_aspect(fact.fact_key)
        if aspect is not None and fact.fact_value:
            values = given.get(aspect, []) + history["true"]  # the aspect's values, or something else true
            true = any(_holds(fact.fact_value, v) or _holds(v, fact.fact_value) for v in values)
        else:
            true = any(_holds(fact.text, v) for v in anything)
        if true:
            score.true_facts += 1
        else:
            score.misses.append(f"{hid} untrue fact: {fact.text!r} ({fact.fact_key}={fact.fact_value})")


def run(
    modes: Sequence[str] = ("offline", "llm"),
    splits: Sequence[str] = ("tune", "held_aside"),
    model: BenchModel | None = None,
    limit: int | None = None,
    data: Path = DATA,
    overall: bool = False,
) -> dict[str, Any]:
    """`model`: the real model of mode "model"; `limit`: the first histories of each split only; `data`: the file
    of histories; `overall`: also a row `<mode>/all` over every split run, its figures only (no misses)."""
    from engram.adapters.onnx.embedder import OnnxEmbedder

    histories = load(data)
    embedder = OnnxEmbedder()
    out: dict[str, Any] = {"histories": len(histories), "held_aside": sum(held_aside(h["id"]) for h in histories)}
    llm = model_llm(modes, model, out)
    for mode in modes:
        every = Score()
        for split in splits:
            chosen = [h for h in histories if held_aside(h["id"]) == (split == "held_aside")][:limit]
            total = Score()
            began = time.perf_counter()
            for history in chosen:
                total.add(run_history(history, mode, embedder, llm))
            seconds = round(time.perf_counter() - began, 1)
            figures = total.figures() | {"histories": len(chosen), "seconds": seconds}
            out[f"{mode}/{split}"] = figures | {"misses": total.misses}
            every.add(total)
        if overall:
            out[f"{mode}/all"] = every.figures() | {"histories": sum(out[f"{mode}/{s}"]["histories"] for s in splits)}
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.parts.memory_state")
    parser.add_argument(
        "--mode", choices=(*MODES, "both"), default="both", help="both = offline and llm (the stub); model = real"
    )
    parser.add_argument("--split", choices=("tune", "held_aside", "both"), default="both")
    parser.add_argument("--limit", type=int, help="the first N histories of each split only")
    parser.add_argument("--show", action="store_true", help="print each miss")
    parser.add_argument(
        "--data", type=Path, default=DATA, help="a file of histories (default bench/data/memory_state.json)"
    )
    args = parser.parse_args(argv)
    modes = ("offline", "llm") if args.mode == "both" else (args.mode,)
    splits = ("tune", "held_aside") if args.split == "both" else (args.split,)
    model = BenchModel.from_env()
    if "model" in modes and model is None:
        parser.error(f"--mode model: {NO_MODEL}")
    if not args.data.is_file():
        parser.error(f"--data: no file {args.data}")
    result = run(modes, splits, model, args.limit, args.data, overall=args.split == "both")
    for name, figures in result.items():
        if not isinstance(figures, dict):
            continue
        misses = figures.pop("misses", [])
        print(name, json.dumps(figures))
        if args.show:
            print("  " + "\n  ".join(misses))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
