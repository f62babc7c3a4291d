"""A live add with a local model: LoCoMo turns added one at a time through the product's wiring, each
add's wall time, LLM calls and tokens, and the median / p95 over the adds.

    python -m bench.labs.local_add --adds 30                  # starts the 1.5B from .engram/models/ (ENGRAM_LLM=local)
    python -m bench.labs.local_add --adds 30 --threads 1      # on a busy machine (docs/local-model.md)
    ENGRAM_QA_MODEL=qwen ENGRAM_QA_BASE_URL=http://127.0.0.1:8080/v1 python -m bench.labs.local_add
    python -m bench.labs.local_add --tokens-only --adds 30    # the real prompts' tokens, nothing generated
    python -m bench.labs.local_add --adds 30 --answers a.jsonl  # also each call's raw answer (runaways, indenting)
    python -m bench.labs.local_add --adds 30 --line-breaks     # the model's line-break tokens not banned

Each turn is one add (the speaker as the message's name, the session's time as its created_at), submitted
and processed alone by the Container as bench/rig/engram_env.py builds it (moto in another process, the
real OpenAI adapter against the llama.cpp server). Per add: wall seconds, LLM calls, prompt and
completion tokens (the server's usage, as the task records it), and from the server's timings how many
prompt tokens it evaluated and how many it reused from its prompt cache (the fixed prefix).

--tokens-only: the adds are answered by the bench's stub model (bench/doubles/stub_llm.py, deterministic),
and each prompt Engram sends is counted with the model's own tokenizer and chat template (the llama.cpp
server's /apply-template and /tokenize): the prompt figure of the real prompts, the same on every run.

Wall times on a shared machine are indicative only; token counts are exact.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from bench.data.locomo_data import Conversation, Turn, load
from bench.parts.ingest_speed import add_body
from bench.rig.bench_model import BenchModel
from bench.rig.engram_env import EngramEnv, engram_env
from bench.rig.procs import ROOT, ModelServer, MotoProcess
from engram.domain.models import AddRequest
from engram.domain.steps import LLMReply
from engram_tools.local.gguf_vocab import line_break_tokens
from engram_tools.local.local_model import QWEN_CODER_1_5B

DEFAULT_MODEL = ROOT / ".engram" / "models" / QWEN_CODER_1_5B.file


@dataclass
class ServerTimings:
    """The llama.cpp server's own figures for each chat completion (its `timings`), read off the wire."""

    calls: list[dict[str, float]] = field(default_factory=list)

    def hook(self, response: httpx.Response) -> None:
        if not response.request.url.path.endswith("/chat/completions"):
            return
        response.read()
        timings = response.json().get("timings") or {}
        self.calls.append({k: float(timings.get(k) or 0) for k in ("cache_n", "prompt_n", "prompt_ms", "predicted_ms")})

    def since(self, start: int) -> dict[str, float]:
        calls = self.calls[start:]
        return {k: round(sum(c[k] for c in calls), 1) for k in ("cache_n", "prompt_n", "prompt_ms", "predicted_ms")}


class Tokenizer:
    """The model's prompt tokens for a system + user message pair, through its server's chat template."""

    def __init__(self, base_url: str) -> None:
        self.client = httpx.Client(base_url=base_url.removesuffix("/v1"), timeout=120)

    def count(self, system: str, user: str) -> int:
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        prompt = self.client.post("/apply-template", json={"messages": messages}).raise_for_status().json()["prompt"]
        tokens = self.client.post("/tokenize", json={"content": prompt}).raise_for_status().json()["tokens"]
        return len(tokens)


@dataclass
class CountingLLM:
    """The LLM port that counts each prompt with the real model's tokenizer, then lets `inner` answer."""

    inner: Any
    tokenizer: Tokenizer
    prompts: list[int] = field(default_factory=list)
    systems: set[str] = field(default_factory=set)
    last_user: str = ""

    def complete_json(self, system: str, user: str, schema: dict[str, Any], schema_name: str) -> LLMReply:
        self.prompts.append(self.tokenizer.count(system, user))
        self.systems.add(system)
        self.last_user = user
        return self.inner.complete_json(system, user, schema, schema_name)  # type: ignore[no-any-return]

    def ping(self) -> None:
        self.inner.ping()


@dataclass
class RecordingLLM:
    """The LLM port that writes each call's user message and raw answer (or error) as a JSON line: what a
    model said when an add took minutes (an answer that runs on until the server's token limit)."""

    inner: Any
    path: Path

    def complete_json(self, system: str, user: str, schema: dict[str, Any], schema_name: str) -> LLMReply:
        line: dict[str, Any] = {"schema": schema_name, "user": user}
        try:
            reply: LLMReply = self.inner.complete_json(system, user, schema, schema_name)
        except Exception as err:
            line["error"] = str(err)[:4000]
            raise
        else:
            line["answer"] = reply.content
            return reply
        finally:
            with self.path.open("a", encoding="utf-8") as out:
                out.write(json.dumps(line, ensure_ascii=False) + "\n")

    def ping(self) -> None:
        self.inner.ping()


def turns(conversations: list[Conversation], first: int, count: int) -> Iterator[tuple[Conversation, Turn]]:
    """`count` turns from turn `first` on, conversation after conversation."""
    left = count
    for conv in conversations:
        for turn in conv.turns[first:]:
            if left == 0:
                return
            yield conv, turn
            left -= 1
        first = 0


def request(conv: Conversation, turn: Turn) -> AddRequest:
    body = add_body(conv, turn, infer=True, deduplicate=True)
    if turn.said_at is not None:  # when it was said, as a client replaying a conversation sends it
        body["messages"][0]["created_at"] = turn.said_at.isoformat()
    return AddRequest.model_validate(body)


def add(env: EngramEnv, req: AddRequest) -> tuple[float, Any]:
    began = time.perf_counter()
    task = env.container.memories.submit(env.tenant_id, req)
    [done] = env.container.worker.process_many(env.tenant_id, [task.task_id])
    return time.perf_counter() - began, done


def summary(values: list[float]) -> dict[str, float]:
    if not values:
        return {}
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"median": round(statistics.median(ordered), 2), "p95": round(p95, 2), "max": round(ordered[-1], 2)}


def run(args: argparse.Namespace, model_url: str, model_name: str, banned: tuple[int, ...]) -> dict[str, Any]:
    conversations = load()
    timings = ServerTimings()
    with MotoProcess() as moto, ModelServer() as stub:
        answer_url = stub.base_url if args.tokens_only else model_url
        env = engram_env(moto.endpoint, answer_url)
        update = {"llm_model": model_name, "llm_timeout_s": 900, "llm_max_retries": 0, "llm_banned_tokens": banned}
        settings = env.settings.model_copy(update=update)
        env.container.replace(settings=settings)
        from openai import OpenAI

        client = OpenAI(
            base_url=answer_url,
            api_key="unused",
            timeout=900,
            max_retries=0,
            http_client=httpx.Client(timeout=900, event_hooks={"response": [timings.hook]}),
        )
        env.container.replace(openai_client=client)
        counter = None
        if args.answers:
            env.container.replace(llm=RecordingLLM(env.container.llm, Path(args.answers)))
        if args.tokens_only:
            counter = CountingLLM(env.container.llm, Tokenizer(model_url))
            env.container.replace(llm=counter)
        spare = conversations[-1]
        add(env, request(Conversation("warm-up", spare.turns), spare.turns[-1]))  # imports, clients, embedder
        rows = []
        for conv, turn in turns(conversations[args.conversation :], args.first_turn, args.adds):
            calls_before, prompts_before = len(timings.calls), len(counter.prompts) if counter else 0
            seconds, task = add(env, request(conv, turn))
            row: dict[str, Any] = {"turn": turn.dia_id, "status": task.status.value, "wall_s": round(seconds, 2)}
            row |= {"llm_calls": task.usage.llm_calls}
            if counter is not None:
                row["prompt_tokens"] = sum(counter.prompts[prompts_before:])
                row["llm_calls"] = len(counter.prompts) - prompts_before
            else:
                row |= {"prompt_tokens": task.usage.prompt_tokens, "completion_tokens": task.usage.completion_tokens}
                row |= timings.since(calls_before)
            rows.append(row)
            print(json.dumps(row), flush=True)
        env.container.close()
    called = [r for r in rows if r["llm_calls"]]
    out: dict[str, Any] = {
        "mode": "tokens-only (stub answers, the model's tokenizer)" if args.tokens_only else "live",
        "model": model_name,
        "banned_tokens": len(banned),
        "adds": len(rows),
        "adds_with_llm": len(called),
        "llm_calls_per_add": round(sum(r["llm_calls"] for r in rows) / max(len(rows), 1), 2),
        "prompt_tokens_per_call": summary([r["prompt_tokens"] / r["llm_calls"] for r in called]),
        "prompt_tokens_per_add_with_llm": summary([r["prompt_tokens"] for r in called]),
    }
    if counter is not None:
        out["distinct_system_prompts"] = len(counter.systems)
        if args.show:
            print("--- the last system prompt ---\n" + max(counter.systems, key=len))
            print("--- the last user message ---\n" + counter.last_user)
    else:
        out["completion_tokens_per_add_with_llm"] = summary([r["completion_tokens"] for r in called])
        out["wall_s_per_add"] = summary([r["wall_s"] for r in rows])
        out["wall_s_per_add_with_llm"] = summary([r["wall_s"] for r in called])
        evaluated = sum(r["prompt_n"] for r in rows)
        out["prompt_cache"] = {
            "tokens_reused": sum(r["cache_n"] for r in rows),
            "tokens_evaluated": evaluated,
            "ms_per_evaluated_token": round(sum(r["prompt_ms"] for r in rows) / max(evaluated, 1), 1),
        }
        out["failed"] = sum(r["status"] != "completed" for r in rows)
    return out


@contextmanager
def model_server(args: argparse.Namespace) -> Iterator[tuple[str, str, tuple[int, ...]]]:
    """The model's base URL, name and banned tokens: the bench's model when one is configured, else the 1.5B
    started here with its line breaks banned, as ENGRAM_LLM=local wires it (--line-breaks: none banned)."""
    configured = BenchModel.from_env()
    if configured is not None and configured.base_url:
        yield configured.base_url, configured.name, () if args.line_breaks else configured.banned_tokens
        return
    from engram_tools.local.llm_server import LlamaServer

    banned = () if args.line_breaks else tuple(line_break_tokens(Path(args.model)))
    with LlamaServer(Path(args.model), QWEN_CODER_1_5B.alias, threads=args.threads) as server:
        yield server.base_url, QWEN_CODER_1_5B.alias, banned


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.labs.local_add")
    parser.add_argument("--adds", type=int, default=30)
    parser.add_argument("--conversation", type=int, default=0, help="the first LoCoMo conversation (index)")
    parser.add_argument("--first-turn", type=int, default=0)
    parser.add_argument("--tokens-only", action="store_true", help="count the prompts' tokens; generate nothing")
    parser.add_argument("--model", default=str(DEFAULT_MODEL), help="the GGUF file (without ENGRAM_QA_BASE_URL)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--show", action="store_true", help="with --tokens-only: print the last prompt")
    parser.add_argument("--out", help="write the summary and rows as JSON here")
    parser.add_argument("--answers", help="append each call's user message and raw answer here (JSON lines)")
    parser.add_argument("--line-breaks", action="store_true", help="ban no tokens (the model may indent its JSON)")
    args = parser.parse_args(argv)
    with model_server(args) as (url, name, banned):
        result = run(args, url, name, banned)
    print(json.dumps(result, indent=1))
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
