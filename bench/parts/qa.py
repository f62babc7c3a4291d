"""Answer accuracy as the field reports it: LLM-judge J on LoCoMo (categories 1-4) and LongMemEval_S.

    ENGRAM_QA_MODEL=gpt-4o-mini OPENAI_API_KEY=... python -m bench.parts.qa --all --full   # the anchors' setting
    ENGRAM_QA_BASE_URL=http://127.0.0.1:8765/v1 ENGRAM_QA_MODEL=local python -m bench.parts.qa   # the fixed sample

For each question, a context, then an answer from the model, then the field's judge (bench/parts/qa_prompts.py:
Mem0's LoCoMo judge and answer prompts, LongMemEval's own judge per question type and answer template):

- engram: the question searched by MemoryService.search (the product's search, as `make run` searches,
  over the conversation's raw turns: bench/rig/lab_service.py), its top memories formatted by the chat
  proxy's own `memory_block` (what POST /v1/chat/completions injects: best first, each with the day it
  was said, within the proxy's budget);
- oracle: the question's evidence turns alone, same format, in the order said;
- full (--full): every turn of the conversation / haystack, same format (needs a long-context model).

The same model answers and judges for every context (ENGRAM_QA_JUDGE_MODEL picks another judge).
Settings (the bench's model, bench/rig/bench_model.py, which the other model parts use too): ENGRAM_QA_MODEL
(without it `make bench` skips this part), ENGRAM_QA_BASE_URL (default
OpenAI), ENGRAM_QA_API_KEY or OPENAI_API_KEY, ENGRAM_QA_MAX_TOKENS (answer cap, default 512),
ENGRAM_QA_TIMEOUT (s, default 600). Rows go to bench/results/qa_rows.jsonl as they come (--resume skips
the ones there), the summary to bench/results/qa.json.

Sample (default): 10 LoCoMo questions per category 1-4 drawn with a fixed seed (--seed, default 34)
and 20 LongMemEval_S questions of the bench's third, stratified by type (longmemeval_data.stratified:
by a hash of the id), abstention questions left out (they have no evidence turns for an oracle).
--all: every LoCoMo question of categories 1-4 with evidence (1,536) and every non-abstention
LongMemEval question of the third.

Memories are stored as the recall labs store them: one per turn (LoCoMo "Speaker: text [shares a photo:
caption]", no date in the text; LongMemEval each message, long ones cut as the raw-turns mode cuts them),
valid from when it was said (the session's date + 1 s per turn), so the day shown is the day said.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from bench.data.locomo_data import CATEGORIES, Conversation
from bench.data.longmemeval_data import Question as LmeQuestion
from bench.parts import qa_prompts
from bench.rig.bench_model import NO_MODEL, BenchModel
from engram.domain.models import Fact, MemorySource, SearchQuery
from engram.services.chat_proxy import CHARS_PER_TOKEN, MEMORY_TOKENS, TOP_K, memory_block, memory_line

if TYPE_CHECKING:
    from openai import OpenAI

RESULTS = Path(__file__).resolve().parents[1] / "results"
TENANT = "lab"
RECORDED = datetime(2026, 1, 1, tzinfo=UTC)  # LoCoMo turns are recorded a second apart from here
CONTEXTS = ("engram", "oracle", "full")
UNLIMITED = 10**9


@dataclass(frozen=True)
class Reply:
    text: str
    prompt_tokens: int | None = None


class Model(Protocol):
    name: str

    def complete(self, prompt: str, *, role: str, max_tokens: int, json_object: bool = False) -> Reply: ...


@dataclass
class OpenAIModel:
    """Any OpenAI-compatible chat completions endpoint, through the official client."""

    name: str
    client: OpenAI

    def complete(self, prompt: str, *, role: str, max_tokens: int, json_object: bool = False) -> Reply:
        extra: dict[str, Any] = {"response_format": {"type": "json_object"}} if json_object else {}
        done = self.client.chat.completions.create(
            model=self.name,
            messages=[{"role": role, "content": prompt}],  # type: ignore[misc,list-item]
            temperature=0.0,
            max_tokens=max_tokens,
            **extra,
        )
        usage = done.usage.prompt_tokens if done.usage else None
        return Reply(done.choices[0].message.content or "", usage)


@dataclass(frozen=True)
class QASettings:
    endpoint: BenchModel  # the bench's model (bench/rig/bench_model.py): it answers, and judges unless told otherwise
    judge_model: str
    max_tokens: int = 512

    @property
    def model(self) -> str:
        return self.endpoint.name

    @property
    def base_url(self) -> str | None:
        return self.endpoint.base_url

    @property
    def api_key(self) -> str | None:
        return self.endpoint.api_key

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> QASettings | None:
        """None when no model is configured (ENGRAM_QA_MODEL unset)."""
        env = os.environ if env is None else env
        endpoint = BenchModel.from_env(env)
        if endpoint is None:
            return None
        return cls(
            endpoint=endpoint,
            judge_model=env.get("ENGRAM_QA_JUDGE_MODEL", "").strip() or endpoint.name,
            max_tokens=int(env.get("ENGRAM_QA_MAX_TOKENS", "512")),
        )


@dataclass(frozen=True)
class Item:
    """One question, its answer key and what each context is built from."""

    dataset: str  # "locomo" | "longmemeval"
    qid: str
    category: str  # LoCoMo "1 multi-hop" ...; LongMemEval the question type
    question: str
    answer: str
    asked_at: datetime | None  # LongMemEval's question date (search `now`, and the answer prompt's date)
    memories: tuple[Fact, ...] = field(repr=False)  # every turn, in the order said
    evidence: frozenset[str] = field(repr=False)  # ids of the evidence memories
    group: str = ""  # memories shared by items of one group (a LoCoMo conversation): one index for them


# -- building the items ----------------------------------------------------------------------------


def locomo_memories(conv: Conversation) -> list[Fact]:
    out: list[Fact] = []
    for i, turn in enumerate(conv.turns):
        recorded = RECORDED + timedelta(seconds=i)
        said = turn.said_at + timedelta(seconds=int(turn.dia_id.rsplit(":", 1)[1]) - 1) if turn.said_at else recorded
        out.append(
            Fact(
                id=f"{conv.sample_id}/{turn.dia_id}",
                tenant_id=TENANT,
                user_id=conv.user_id,
                text=turn.memory_text(dated=False),
                metadata=turn.metadata(),
                # who said it, as an add's message `name` gives it (the search's speaker step reads it)
                source=MemorySource(task_id=f"{conv.sample_id}/{turn.dia_id}", name=turn.speaker),
                valid_from=said,
                created_at=recorded,
                updated_at=recorded,
            )
        )
    return out


def locomo_items(convs: Sequence[Conversation], per_category: int | None, seed: int) -> list[Item]:
    """per_category questions of each category 1-4 drawn with `seed` (None: all), in conversation order."""
    pool = [(c, n, q) for c in convs for n, q in enumerate(c.questions) if q.evidence and q.category in CATEGORIES]
    chosen: set[tuple[str, int]] = set()
    rng = random.Random(seed)
    for category in CATEGORIES:
        of = [(c.sample_id, n) for c, n, q in pool if q.category == category]
        chosen.update(of if per_category is None else rng.sample(of, min(per_category, len(of))))
    facts = {c.sample_id: tuple(locomo_memories(c)) for c in convs}
    return [
        Item(
            dataset="locomo",
            qid=f"{c.sample_id}#{n}",
            category=f"{q.category} {CATEGORIES[q.category]}",
            question=q.question,
            answer=q.answer,
            asked_at=None,
            memories=facts[c.sample_id],
            evidence=frozenset(f"{c.sample_id}/{e}" for e in q.evidence),
            group=c.sample_id,
        )
        for c, n, q in pool
        if (c.sample_id, n) in chosen
    ]


def longmemeval_items(questions: Sequence[LmeQuestion], n: int | None) -> list[Item]:
    """n questions with evidence, stratified by type (None: all); abstention questions left out."""
    from bench.data.longmemeval_data import stratified
    from bench.data.longmemeval_turns import memories

    pool = [q for q in questions if not q.abstention and q.evidence()]
    chosen = pool if n is None else stratified(pool, n)
    items: list[Item] = []
    for q in chosen:
        facts = memories(q)
        wanted = q.evidence()
        evidence = frozenset(
            f.id
            for f in facts
            if f.source is not None
            and f"{f.metadata['session_id']}#{f.source.message_index}" in wanted  # bench.data.longmemeval_data.turn_ref
        )
        items.append(
            Item(
                dataset="longmemeval",
                qid=q.question_id,
                category=q.question_type,
                question=q.question,
                answer=q.answer,
                asked_at=q.question_date,
                memories=tuple(facts),
                evidence=evidence,
                group=q.question_id,
            )
        )
    return items


# -- contexts ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Context:
    text: str
    memories: int
    search_ms: float | None = None


@dataclass(frozen=True)
class Found:
    memories: list[Fact]
    ms: float  # MemoryService.search alone (not building the lab's index)


Search = Callable[[Item], Found]


def context(item: Item, kind: str, search: Search, budget_chars: int) -> Context:
    """The memory block the answerer sees, in the chat proxy's format."""
    if kind == "engram":
        found = search(item)
        block = memory_block(found.memories, budget_chars)
        shown = sum(memory_line(f) in block for f in found.memories)  # those that fit the budget
        return Context(block, shown, round(found.ms, 2))
    chosen = [f for f in item.memories if kind == "full" or f.id in item.evidence]
    block = memory_block(chosen, UNLIMITED)
    return Context(block, len(chosen))


class EngramSearch:
    """MemoryService.search over each group's memories: one service per group, the last one kept
    (items come grouped). Vectors from `embed` (a cache of the product's embedder)."""

    def __init__(self, embedder: Any, top_k: int) -> None:
        self.embedder = embedder
        self.top_k = top_k
        self._group = ""
        self._service: Any = None

    def __call__(self, item: Item) -> Found:
        from bench.rig.lab_service import lab_service

        if item.group != self._group:
            facts = list(item.memories)
            self._service = lab_service(facts, self.embedder.embed([f.text for f in facts]), self.embedder)
            self._group = item.group
        user_id = item.memories[0].user_id
        query = SearchQuery(user_id=user_id, query=item.question, top_k=self.top_k, now=item.asked_at)
        began = time.perf_counter()
        found = [fact for fact, _ in self._service.search(TENANT, query)]
        return Found(found, (time.perf_counter() - began) * 1000)


# -- asking and judging -----------------------------------------------------------------------------


def answer_prompt(item: Item, memories: str) -> str:
    if item.dataset == "locomo":
        return qa_prompts.locomo_answer(memories, item.question)
    assert item.asked_at is not None
    return qa_prompts.longmemeval_answer(memories, item.asked_at, item.question)


def judge(item: Item, generated: str, model: Model) -> tuple[bool, str]:
    """(correct, how the verdict was read), the field's way for the item's dataset."""
    if item.dataset == "locomo":
        prompt = qa_prompts.locomo_judge(item.question, item.answer, generated)
        reply = model.complete(prompt, role="user", max_tokens=128, json_object=True)
        return qa_prompts.locomo_label(reply.text)
    prompt = qa_prompts.longmemeval_judge(item.category, item.question, item.answer, generated, abstention=False)
    reply = model.complete(prompt, role="user", max_tokens=10)
    return qa_prompts.longmemeval_label(reply.text), "yes/no"


def ask(item: Item, kind: str, ctx: Context, answerer: Model, judge_model: Model, max_tokens: int) -> dict[str, Any]:
    """One row: the answer with this context and the judge's verdict. A request the endpoint refuses
    (the full context beyond the model's window) is a row with `error` and no verdict."""
    from openai import BadRequestError

    # Mem0 sends its answer prompt as the system message; LongMemEval as the user message.
    role = "system" if item.dataset == "locomo" else "user"
    row: dict[str, Any] = {
        "dataset": item.dataset,
        "qid": item.qid,
        "category": item.category,
        "context": kind,
        "context_memories": ctx.memories,
        "context_tokens": round(len(ctx.text) / CHARS_PER_TOKEN),
        "search_ms": ctx.search_ms,
    }
    try:
        reply = answerer.complete(answer_prompt(item, ctx.text), role=role, max_tokens=max_tokens)
    except BadRequestError as err:
        return {**row, "error": str(err)[:300]}
    correct, read = judge(item, reply.text, judge_model)
    return {**row, "prompt_tokens": reply.prompt_tokens, "generated": reply.text, "correct": correct, "read": read}


def run_rows(
    items: Iterable[Item],
    kinds: Sequence[str],
    search: Search,
    answerer: Model,
    judge_model: Model,
    *,
    budget_chars: int,
    max_tokens: int,
    done: Collection[tuple[str, str]] = (),
) -> Iterator[dict[str, Any]]:
    """A row per item and context (skipping (qid, context) pairs in `done`), contexts side by side."""
    for item in items:
        for kind in kinds:
            if (item.qid, kind) in done:
                continue
            yield ask(item, kind, context(item, kind, search, budget_chars), answerer, judge_model, max_tokens)


# -- summary ----------------------------------------------------------------------------------------


def _j(rows: list[dict[str, Any]]) -> float | None:
    scored = [r["correct"] for r in rows if "correct" in r]
    return round(sum(scored) / len(scored), 4) if scored else None


def summarise(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """J (share judged correct) per dataset, context and category; context tokens (the memory block,
    chars / 4, the chat proxy's estimate) and prompt tokens (as the endpoint counted them), means;
    search p50; errors; and J(engram) / J(oracle) per dataset and over both."""
    out: dict[str, Any] = {}
    for dataset in sorted({r["dataset"] for r in rows}):
        of = [r for r in rows if r["dataset"] == dataset]
        block: dict[str, Any] = {}
        for kind in [k for k in CONTEXTS if any(r["context"] == k for r in of)]:
            mine = [r for r in of if r["context"] == kind]
            scored = [r for r in mine if "correct" in r]
            ms = [r["search_ms"] for r in mine if r.get("search_ms") is not None]
            block[kind] = {
                "questions": len(scored),
                "J": _j(mine),
                "by_category": {
                    c: _j([r for r in mine if r["category"] == c]) for c in sorted({r["category"] for r in mine})
                },
                "context_tokens_mean": round(statistics.fmean(r["context_tokens"] for r in scored), 1)
                if scored
                else None,
                "prompt_tokens_mean": _mean(r.get("prompt_tokens") for r in scored),
                "search_p50_ms": round(statistics.median(ms), 2) if ms else None,
                "errors": sum("error" in r for r in mine),
                "judge_unreadable": sum(r.get("read") == "unreadable" for r in mine),
            }
        block["engram_vs_oracle"] = _ratio(of)
        out[dataset] = block
    out["engram_vs_oracle"] = _ratio(rows)
    return out


def _mean(values: Iterable[int | None]) -> float | None:
    known = [v for v in values if v is not None]
    return round(statistics.fmean(known), 1) if known else None


def _ratio(rows: Sequence[dict[str, Any]]) -> float | None:
    """J with Engram's context over J with the oracle's, on the questions both were scored on."""
    both = {r["qid"] for r in rows if r["context"] == "engram" and "correct" in r} & {
        r["qid"] for r in rows if r["context"] == "oracle" and "correct" in r
    }
    engram = _j([r for r in rows if r["context"] == "engram" and r["qid"] in both])
    oracle = _j([r for r in rows if r["context"] == "oracle" and r["qid"] in both])
    return round(engram / oracle, 3) if engram is not None and oracle else None


def table(summary: dict[str, Any]) -> str:
    lines = ["dataset      context  n    J      ctx tokens  prompt tokens  search p50 ms  errors"]
    for dataset, block in summary.items():
        if not isinstance(block, dict):
            continue
        for kind, s in block.items():
            if not isinstance(s, dict):
                continue
            lines.append(
                f"{dataset:12s} {kind:8s} {s['questions']:<4d} {s['J']!s:6s} {s['context_tokens_mean']!s:11s} "
                f"{s['prompt_tokens_mean']!s:14s} {s['search_p50_ms']!s:14s} {s['errors']}"
            )
            for category, j in s["by_category"].items():
                lines.append(f"{'':12s}   {category:28s} J {j}")
        lines.append(f"{dataset:12s} J(engram) / J(oracle) = {block['engram_vs_oracle']}")
    lines.append(f"both datasets: J(engram) / J(oracle) = {summary['engram_vs_oracle']}")
    return "\n".join(lines)


# -- command ----------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    settings = QASettings.from_env()
    if settings is None:
        print(f"qa: skipped ({NO_MODEL})")
        return 0
    result = run(settings, args)
    print(table(result["summary"]))
    return 0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.parts.qa", description=__doc__.split("\n")[0])
    parser.add_argument("--locomo", type=int, default=10, help="LoCoMo questions per category 1-4 (default 10)")
    parser.add_argument("--lme", type=int, default=20, help="LongMemEval questions, stratified by type (default 20)")
    parser.add_argument("--all", action="store_true", help="every question of both sets (the anchors' setting)")
    parser.add_argument("--seed", type=int, default=34)
    parser.add_argument("--full", action="store_true", help="also the full-context baseline (a long-context model)")
    parser.add_argument("--top-k", type=int, default=TOP_K, help=f"memories searched (default {TOP_K}, the proxy's)")
    parser.add_argument(
        "--budget-tokens", type=int, default=MEMORY_TOKENS, help=f"memory block budget (default {MEMORY_TOKENS})"
    )
    parser.add_argument("--rows", type=Path, default=RESULTS / "qa_rows.jsonl")
    parser.add_argument("--resume", action="store_true", help="keep the rows file and skip what it holds")
    parser.add_argument("--report", action="store_true", help="only summarise the rows file (no model calls)")
    return parser.parse_args(argv)


def interleave(first: Sequence[Item], second: Sequence[Item]) -> list[Item]:
    """Both sets in proportion from the start, so a run stopped early has some of each (the LoCoMo
    questions of one conversation stay together: their index is built once)."""
    if not first or not second:
        return [*first, *second]
    out: list[Item] = []
    a, b = 0, 0
    while a < len(first) or b < len(second):
        if b >= len(second) or (a < len(first) and a / len(first) <= b / len(second)):
            out.append(first[a])
            a += 1
        else:
            out.append(second[b])
            b += 1
    return out


def run(settings: QASettings, args: argparse.Namespace) -> dict[str, Any]:
    from bench.data import locomo_data, longmemeval_data
    from bench.data.longmemeval_turns import CACHE_DIR, CachedVectors, cache_file
    from bench.rig.engram_env import shared_model_id

    began = datetime.now(UTC)
    locomo = locomo_items(locomo_data.load(), None if args.all else args.locomo, args.seed)
    lme = longmemeval_items(longmemeval_data.load(), None if args.all else args.lme)
    items = interleave(locomo, lme)
    kinds = ["engram", "oracle", *(["full"] if args.full else [])]
    # LongMemEval's vectors are the lme lab's cache; LoCoMo's turns (no date in the text) a file of their own.
    lme_cache = CachedVectors(cache_file(shared_model_id()))
    locomo_cache = CachedVectors(CACHE_DIR / f"qa_locomo_vectors-{shared_model_id()}.npz")
    searches = {
        "locomo": EngramSearch(locomo_cache, args.top_k),
        "longmemeval": EngramSearch(lme_cache, args.top_k),
    }
    client = settings.endpoint.client(max_retries=2)
    answerer = OpenAIModel(settings.model, client)
    judge_model = answerer if settings.judge_model == settings.model else OpenAIModel(settings.judge_model, client)
    args.rows.parent.mkdir(parents=True, exist_ok=True)
    rows = (
        [json.loads(line) for line in args.rows.read_text().splitlines()]
        if (args.resume or args.report) and args.rows.is_file()
        else []
    )
    done = {(r["qid"], r["context"]) for r in rows}
    if args.report:
        items = [i for i in items if all((i.qid, k) in done for k in kinds)]  # the questions fully answered
    with args.rows.open("a" if args.resume or args.report else "w", encoding="utf-8") as out:
        for row in run_rows(
            items,
            kinds,
            lambda item: searches[item.dataset](item),
            answerer,
            judge_model,
            budget_chars=args.budget_tokens * CHARS_PER_TOKEN,
            max_tokens=settings.max_tokens,
            done=done,
        ):
            rows.append(row)
            out.write(json.dumps(row) + "\n")
            out.flush()
            print(row["dataset"], row["qid"], row["context"], row.get("correct", row.get("error")), flush=True)
    locomo_cache.save()
    wanted = {item.qid for item in items}
    summary = summarise([r for r in rows if r["qid"] in wanted and r["context"] in kinds])
    result = {
        "started": began.isoformat(timespec="seconds"),
        "method": {
            **settings.endpoint.describe(),
            "judge_model": settings.judge_model,
            "answer_max_tokens": settings.max_tokens,
            "sample": "all"
            if args.all
            else f"LoCoMo {args.locomo} per category 1-4 (seed {args.seed}), "
            f"LongMemEval {args.lme} stratified by type, no abstention",
            "top_k": args.top_k,
            "budget_tokens": args.budget_tokens,
            "contexts": kinds,
            "context_format": "engram.services.chat_proxy.memory_block",
        },
        "stopped_early": bool(args.report),  # --report: the questions answered in every context so far
        "items": {
            "locomo": sum(i.dataset == "locomo" for i in items),
            "longmemeval": sum(i.dataset != "locomo" for i in items),
        },
        "summary": summary,
    }
    (RESULTS / "qa.json").write_text(json.dumps(result, indent=2) + "\n")
    return result


if __name__ == "__main__":
    sys.exit(main())
