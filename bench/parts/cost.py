"""What a month of Engram costs on AWS for named scenarios, by service.

    .venv/bin/python -m bench.parts.cost [--model gpt-4o-mini] [--out bench/results/cost.json]

Reads the request table that tests/integration/test_request_table.py keeps true to the code
(bench/results/requests.json), the prices in bench/prices.json (the only place prices live), and
Lambda durations: the bench's measured CPU/wall ms (bench/results/ingest.json, search_latency.json)
when present, plus one network round trip per AWS request (moto is in process, AWS is not), else the
defaults below. docs/scale.md explains the figures.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "bench" / "results"
SECONDS_A_MONTH = 30 * 86400
HOURS_A_MONTH = 730

# Defaults when the bench has no measurement (documented guesses; the bench replaces the first three).
DEFAULT_MS = {"api": 3.0, "add_raw": 7.3, "add_live": 48.0, "add_backlog": 18.6, "search": 3.0}
RTT_MS = 6.0  # one DynamoDB/SQS/OpenSearch round trip from Lambda in-region (typical single-digit ms)
LLM_LATENCY_MS = 1500.0  # one extraction call of a hosted model, waited for inside the extraction Lambda
MEMORY_GB = {"api": 0.5, "extraction": 1.0, "maintenance": 1.0}  # template.yaml MemorySize
# Tokens per add when the bench recorded none: bench/results/ingest.json's stub counts words, so x1.33.
DEFAULT_TOKENS = {"add_live": (866.4, 219.5), "add_backlog": (169.4, 110.6), "add_raw": (0.0, 0.0)}
TOKENS_PER_WORD = 1.33
BYTES_PER_MEMORY = {"dynamodb": 3000, "opensearch": 2500}  # item + history + index doc (384-d float vector)
ESM_REQUESTS_PER_INVOCATION = 2  # the SQS event source's receive and delete-batch for each batch
# Sizing assumptions (rules of thumb, not measurements: docs/scale.md): an r6g.large (16 GiB) gives the
# k-NN graph half its memory; an OCU has 6 GiB, about half for the graph; indexing rates of small docs.
KNN_BYTES_PER_MEMORY = 1700
GRAPH_GB_PER_NODE = 8.0
GRAPH_GB_PER_OCU = 3.0
INDEXED_DOCS_PER_OCU_S = 1000.0
INDEXED_DOCS_PER_NODE_S = 2000.0
SFN_TRANSITIONS_PER_USER = 12  # the map iteration: 5 task states, their choices and the pass states


@dataclass(frozen=True)
class Scenario:
    name: str
    per_month: dict[str, float]  # table operation -> how many a month
    memories: float  # memories held (storage)
    peak_adds_per_s: float


def scenarios() -> list[Scenario]:
    def users(n: int) -> Scenario:
        adds, searches = n * 30 * 30, n * 10 * 30
        per_month = {"add_live": adds, "search": searches, "maintenance_per_user": n * 30.0}
        return Scenario(
            f"{n:,} users x 30 adds + 10 searches a day", per_month, adds * 2.45, adds / SECONDS_A_MONTH * 5
        )

    hot = 5000.0 * SECONDS_A_MONTH
    return [
        users(1000),
        users(100_000),
        Scenario("one tenant at 5,000 adds/s (backlog batches)", {"add_backlog": hot}, hot * 2.45, 5000.0),
    ]


def load_durations() -> dict[str, float]:
    """ms of Engram's own work per operation: the bench's figures where it has them."""
    ms = dict(DEFAULT_MS)
    ingest = RESULTS / "ingest.json"
    if ingest.exists():
        modes = {m["mode"]: m for m in json.loads(ingest.read_text())["in_process"]}
        for key, prefix in (
            ("add_raw", "infer=false, deduplicate=false"),
            ("add_backlog", "infer=true, backlog"),
            ("add_live", "infer=true, live"),
        ):
            found = [m for name, m in modes.items() if name.startswith(prefix)]
            if found:
                ms[key] = float(found[0]["worker_wall_ms_per_add"])
    return ms


def load_tokens() -> dict[str, tuple[float, float]]:
    tokens = dict(DEFAULT_TOKENS)
    ingest = RESULTS / "ingest.json"
    if ingest.exists():
        for m in json.loads(ingest.read_text())["in_process"]:
            key = "add_live" if "live" in m["mode"] else "add_backlog" if "backlog" in m["mode"] else None
            if key:
                tokens[key] = (float(m["prompt_tokens_per_message"]), float(m["completion_tokens_per_message"]))
    return {k: (p * TOKENS_PER_WORD, c * TOKENS_PER_WORD) for k, (p, c) in tokens.items()}


def price(prices: dict[str, Any], name: str) -> float:
    return float(prices[name]["value"])


def per_operation(
    op: dict[str, Any],
    name: str,
    prices: dict[str, Any],
    ms: dict[str, float],
    tokens: dict[str, tuple[float, float]],
    model: str,
) -> dict[str, float]:
    """USD for one operation of the table (its totals divided by its `operations`), by service."""
    n = float(op["operations"])
    reqs = op["requests"]
    count = {k: v["requests"] for k, v in reqs.items()}
    invocations = op["invocations"]
    api_calls = invocations.get("api", 0)
    aws_requests = sum(count.values())
    lambda_invocations = sum(invocations.values())
    llm_calls = 1.0 if name == "add_live" else 0.1 if name == "add_backlog" else 0.0  # per add, bench stub counts
    own_ms = ms.get(name, ms["search"]) * n
    worker_ms = own_ms + aws_requests * RTT_MS + llm_calls * n * LLM_LATENCY_MS
    gb_s = api_calls * (ms["api"] + RTT_MS) / 1000 * MEMORY_GB["api"]
    worker = invocations.get("extraction", 0) or invocations.get("maintenance", 0)
    if worker:
        gb_s += worker_ms / 1000 * MEMORY_GB["extraction"]
    elif api_calls:
        gb_s += worker_ms / 1000 * MEMORY_GB["api"]
    sqs = sum(c for k, c in count.items() if k.startswith("sqs.")) + ESM_REQUESTS_PER_INVOCATION * invocations.get(
        "extraction", 0
    )
    rru = sum(v.get("rru", 0.0) for v in reqs.values())
    wru = sum(v.get("wru", 0.0) for v in reqs.values())
    s3_put = sum(c for k, c in count.items() if k in ("s3.PutObject", "s3.DeleteObject"))
    s3_get = sum(c for k, c in count.items() if k == "s3.GetObject")
    prompt, completion = tokens.get(name, (0.0, 0.0))
    llm = prices["llm_models"][model]
    out = {
        "api_gateway": api_calls * price(prices, "api_gateway_rest_per_million") / 1e6,
        "lambda": lambda_invocations * price(prices, "lambda_per_million_requests") / 1e6
        + gb_s * price(prices, "lambda_per_gb_second_x86"),
        "sqs": sqs * price(prices, "sqs_fifo_per_million") / 1e6,
        "dynamodb": rru * price(prices, "dynamodb_per_million_rru") / 1e6
        + wru * price(prices, "dynamodb_per_million_wru") / 1e6,
        "s3": s3_put * price(prices, "s3_put_per_thousand") / 1e3 + s3_get * price(prices, "s3_get_per_thousand") / 1e3,
        "llm": n * (prompt * llm["input_per_million"] + completion * llm["output_per_million"]) / 1e6,
    }
    if name == "maintenance_per_user":
        out["step_functions"] = SFN_TRANSITIONS_PER_USER * price(prices, "sfn_per_thousand_transitions") / 1e3
    return {k: v / n for k, v in out.items()}


def opensearch_monthly(prices: dict[str, Any], memories: float, peak_adds_per_s: float) -> dict[str, float]:
    """Serverless (minimum OCUs, more under load) against a provisioned domain of r6g.large nodes, both sized
    by the k-NN graph held in memory (384 floats + HNSW links: ~1.7 KB a memory) and the indexing rate."""
    gb = memories * BYTES_PER_MEMORY["opensearch"] / 1e9
    graph_gb = memories * KNN_BYTES_PER_MEMORY / 1e9
    indexing = 2 * -(-peak_adds_per_s * 2.45 // INDEXED_DOCS_PER_OCU_S)  # with the standby replica
    searching = 2 * -(-graph_gb // GRAPH_GB_PER_OCU)
    ocus = max(price(prices, "aoss_min_ocus"), indexing + searching)
    serverless = ocus * HOURS_A_MONTH * price(prices, "aoss_ocu_hour") + gb * price(prices, "aoss_storage_gb_month")
    nodes = max(2.0, 2 * -(-graph_gb // GRAPH_GB_PER_NODE), 2 * -(-peak_adds_per_s * 2.45 // INDEXED_DOCS_PER_NODE_S))
    provisioned = nodes * HOURS_A_MONTH * price(prices, "opensearch_r6g_large_hour") + gb * 2 * price(
        prices, "opensearch_gp3_gb_month"
    )
    return {"opensearch_serverless": serverless, "opensearch_provisioned": provisioned, "ocus": ocus, "nodes": nodes}


def monthly(
    table: dict[str, Any],
    prices: dict[str, Any],
    scenario: Scenario,
    model: str,
    ms: dict[str, float] | None = None,
    tokens: dict[str, tuple[float, float]] | None = None,
) -> dict[str, Any]:
    ms = ms if ms is not None else load_durations()
    tokens = tokens if tokens is not None else load_tokens()
    services: dict[str, float] = {}
    for name, count in scenario.per_month.items():
        for service, usd in per_operation(table[name], name, prices, ms, tokens, model).items():
            services[service] = services.get(service, 0.0) + usd * count
    services["dynamodb_storage"] = (
        scenario.memories * BYTES_PER_MEMORY["dynamodb"] / 1e9 * price(prices, "dynamodb_storage_gb_month")
    )
    search = opensearch_monthly(prices, scenario.memories, scenario.peak_adds_per_s)
    base = sum(services.values())
    return {
        "scenario": scenario.name,
        "per_month": scenario.per_month,
        "services_usd": {k: round(v, 2) for k, v in sorted(services.items())},
        "opensearch": {k: round(v, 2) for k, v in search.items()},
        "total_usd_serverless": round(base + search["opensearch_serverless"], 2),
        "total_usd_provisioned": round(base + search["opensearch_provisioned"], 2),
    }


def markdown(results: list[dict[str, Any]]) -> str:
    services = sorted({s for r in results for s in r["services_usd"]})
    lines = ["| service | " + " | ".join(r["scenario"] for r in results) + " |", "|---" * (len(results) + 1) + "|"]
    for s in services:
        lines.append(f"| {s} | " + " | ".join(f"{r['services_usd'].get(s, 0):,.2f}" for r in results) + " |")
    for key in ("opensearch_serverless", "opensearch_provisioned"):
        lines.append(f"| {key} | " + " | ".join(f"{r['opensearch'][key]:,.2f}" for r in results) + " |")
    for key in ("total_usd_serverless", "total_usd_provisioned"):
        lines.append(f"| **{key}** | " + " | ".join(f"**{r[key]:,.2f}**" for r in results) + " |")
    return "\n".join(lines)


def run(model: str = "gpt-4o-mini", out: Path | None = RESULTS / "cost.json") -> dict[str, Any]:
    table = json.loads((RESULTS / "requests.json").read_text())["operations"]
    prices = json.loads((ROOT / "bench" / "prices.json").read_text())
    results = [monthly(table, prices, s, model) for s in scenarios()]
    report = {"model": model, "prices_as_of": prices["as_of"], "scenarios": results}
    if out is not None:
        out.write_text(json.dumps(report, indent=1) + "\n")
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="gpt-4o-mini", help="a model of bench/prices.json's llm_models")
    parser.add_argument("--out", type=Path, default=RESULTS / "cost.json")
    args = parser.parse_args(argv)
    report = run(args.model, args.out)
    print(markdown(report["scenarios"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
