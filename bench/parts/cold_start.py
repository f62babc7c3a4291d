"""Part 5: cold start of the functions, each in a fresh `python -c` process (median of several).

The environment is the template's AWS one (OpenSearch index, OpenAI embeddings, fake credentials;
nothing connects: creating boto3, opensearch-py or openai clients opens no connection).
- API function: import functions/api/app.py ("import"), then the AWS clients an add and the
  authorizer need: fact, task, queue, blob and API-key stores ("clients"). The target (<= 1.0 s)
  is import + clients. A first search also builds the opensearch-py and openai clients
  ("search clients", reported separately: they load only when a search comes).
- Extraction function: import functions/extraction/app.py, create the worker (its AWS clients),
  load the local ONNX model as the embedded deployment does (the AWS one embeds through OpenAI).
The baseline is boto3 + pydantic + the Powertools event handler alone; "baseline with AWS clients" adds
one boto3 client each of DynamoDB, SQS and S3: the floor of any function that stores something.
Wall-clock times swing with this shared machine's load, so each process also reports the CPU time it
spent until ready (imports + clients, `ready_cpu_s`): the ratios in the targets are of CPU time.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from typing import Any

from bench.rig.procs import ROOT, bench_env

HEAVY = ("onnxruntime", "openai", "opensearchpy", "numpy", "tokenizers", "moto")

_PROBE = """
import json, sys, time
HEAVY = {heavy!r}
t0 = time.perf_counter()
c0 = time.process_time()
{body}
out.setdefault("heavy_at_ready", sorted(m for m in HEAVY if m in sys.modules))
print(json.dumps(out))
"""

_BASELINE = """
import boto3, pydantic
from aws_lambda_powertools.event_handler import APIGatewayRestResolver
out = {"import_s": time.perf_counter() - t0, "ready_cpu_s": time.process_time() - c0}
"""

# The floor of a function that stores anything: the bare imports plus a client of each AWS service the
# API function uses (creating the first boto3 client loads botocore's endpoint and service data).
_BASELINE_CLIENTS = """
import boto3, pydantic
from aws_lambda_powertools.event_handler import APIGatewayRestResolver
t1 = time.perf_counter()
for service in ("dynamodb", "sqs", "s3"):
    boto3.client(service)
out = {"import_s": t1 - t0, "clients_s": time.perf_counter() - t1, "ready_cpu_s": time.process_time() - c0}
"""

_API = """
sys.path.insert(0, "functions/api")
import app
t1 = time.perf_counter()
from engram.bootstrap import container
for part in ("facts", "tasks", "queue", "blobs", "keys"):
    getattr(container(), part)
t2 = time.perf_counter()
ready_cpu = time.process_time() - c0
ready = sorted(m for m in HEAVY if m in sys.modules)
from engram.adapters.opensearch.index import build_client
from engram.adapters.openai.embedder import build_openai_client
build_client(container().settings)
build_openai_client(container().settings)
out = {"import_s": t1 - t0, "clients_s": t2 - t1, "search_clients_s": time.perf_counter() - t2}
out["heavy_at_ready"] = ready
out["ready_cpu_s"] = ready_cpu
"""

_EXTRACTION = """
sys.path.insert(0, "functions/extraction")
import app
t1 = time.perf_counter()
from engram.bootstrap import container
for part in ("facts", "tasks", "blobs", "attachment_store"):
    getattr(container(), part)
t2 = time.perf_counter()
ready_cpu = time.process_time() - c0
from engram.adapters.onnx.embedder import OnnxEmbedder
OnnxEmbedder().embed(["warm up"])
out = {"import_s": t1 - t0, "clients_s": t2 - t1, "model_s": time.perf_counter() - t2, "ready_cpu_s": ready_cpu}
"""

PROBES = {
    "baseline: boto3+pydantic+powertools": _BASELINE,
    "baseline with AWS clients": _BASELINE_CLIENTS,
    "api function": _API,
    "extraction function": _EXTRACTION,
}


AWS_ENV = {
    "ENGRAM_QUEUE_URL": "https://sqs.us-east-1.amazonaws.com/123456789012/engram-tasks.fifo",
    "ENGRAM_INDEX_BACKEND": "opensearch",
    "ENGRAM_OPENSEARCH_ENDPOINT": "https://search-engram.us-east-1.es.amazonaws.com",
    "ENGRAM_EMBEDDER": "openai",
    "ENGRAM_OPENAI_API_KEY": "sk-not-used",
    "POWERTOOLS_SERVICE_NAME": "engram",
}


def probe(body: str) -> dict[str, Any]:
    env = bench_env(**AWS_ENV)
    code = _PROBE.format(body=body.strip(), heavy=HEAVY)
    command = [sys.executable, "-X", "frozen_modules=on", "-c", code]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"cold start probe failed: {done.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def run(repeats: int = 5) -> dict[str, Any]:
    results: dict[str, Any] = {"repeats": repeats, "target_api_s": 1.0}
    for name, body in PROBES.items():
        runs = [probe(body) for _ in range(repeats)]
        keys = [k for k in runs[0] if k.endswith("_s")]
        row: dict[str, Any] = {k: round(statistics.median(r[k] for r in runs), 3) for k in keys}
        counted = [k for k in keys if k in ("import_s", "clients_s")]
        row["import_plus_clients_s"] = round(statistics.median(sum(r[k] for k in counted) for r in runs), 3)
        row["heavy_modules_at_ready"] = runs[-1]["heavy_at_ready"]
        results[name] = row
        print(f"  cold start {name}: {row}", flush=True)
    return results
