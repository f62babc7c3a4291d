"""Engram in this process, wired by the real bootstrap, against a moto server in another process.

The Container builds the real adapters (DynamoDB fact and task stores, SQS queue, S3) from Settings;
only the indexes are handed in (the embedded ones, memories and entities, in memory, as the local stack runs
them: nothing outlives an environment) and the embedder is shared between environments so the model loads once.
"""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import boto3

from bench.rig.procs import FAKE_AWS
from engram.adapters.embedded.index import EmbeddedIndex
from engram.adapters.onnx.e5_embedder import MODEL_ID as MULTILINGUAL_ID
from engram.adapters.onnx.e5_embedder import MultilingualE5Embedder
from engram.adapters.onnx.embedder import MODEL_ID as MINILM_ID
from engram.adapters.onnx.embedder import OnnxEmbedder
from engram.bootstrap import Container
from engram.settings import Settings
from tests.integration.aws_tables import create_bucket, create_fifo_queue, create_tables

_names = itertools.count(1)
_embedder: OnnxEmbedder | MultilingualE5Embedder | None = None
_lock = threading.Lock()
# BENCH_EMBEDDER=multilingual runs the parts on multilingual-e5-small instead of MiniLM.
BENCH_EMBEDDER = os.environ.get("BENCH_EMBEDDER", "local")


def shared_embedder() -> OnnxEmbedder | MultilingualE5Embedder:
    global _embedder
    with _lock:
        if _embedder is None:
            if BENCH_EMBEDDER == "multilingual":
                _embedder = MultilingualE5Embedder()
            elif BENCH_EMBEDDER == "local":
                _embedder = OnnxEmbedder()
            else:
                raise ValueError(f"BENCH_EMBEDDER must be 'local' or 'multilingual', got {BENCH_EMBEDDER!r}")
            _embedder.warm_up()
        return _embedder


def shared_model_id() -> str:
    """The shared embedder's model id, without loading it."""
    return MULTILINGUAL_ID if BENCH_EMBEDDER == "multilingual" else MINILM_ID


class VectorCache:
    """Embedder that answers known texts from a table and embeds the rest with the shared embedder:
    search latency 'without the query embedding', and fast set-up of large collections."""

    dimensions = 384

    def __init__(self, vectors: dict[str, list[float]] | None = None) -> None:
        self.vectors = vectors or {}
        self.model_id = shared_model_id()

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        missing = [t for t in dict.fromkeys(texts) if t not in self.vectors]
        if missing:
            self.vectors.update(zip(missing, shared_embedder().embed(missing), strict=True))
        return [self.vectors[t] for t in texts]


@dataclass
class EngramEnv:
    container: Container
    tenant_id: str = "bench"

    @property
    def settings(self) -> Settings:
        return self.container.settings


def clear_product_settings() -> None:
    """Drops the ENGRAM_* settings of the environment, so a fresh Engram is the default one. Not
    ENGRAM_QA_*: they name the bench's own model (bench/rig/bench_model.py), which later parts still need."""
    for name in [k for k in os.environ if k.startswith("ENGRAM_") and not k.startswith("ENGRAM_QA_")]:
        os.environ.pop(name, None)


def engram_env(moto_endpoint: str, llm_base_url: str | None = None, **overrides: Any) -> EngramEnv:
    """A fresh Engram (its own tables, queue and bucket) on the moto server at `moto_endpoint`.
    With `llm_base_url` the LLM path is configured (the stub), else the offline extractor."""
    os.environ.update(FAKE_AWS)  # never a developer's real credentials
    clear_product_settings()
    n = f"{os.getpid()}-{next(_names)}"  # unique across processes sharing one moto server
    llm: dict[str, Any] = {"openai_base_url": llm_base_url, "openai_api_key": "stub"} if llm_base_url else {}
    settings = Settings(
        aws_region="us-east-1",
        aws_endpoint_url=moto_endpoint,
        memory_table=f"bench{n}-memory",
        tasks_table=f"bench{n}-tasks",
        keys_table=f"bench{n}-keys",
        idempotency_table=f"bench{n}-idempotency",
        bucket=f"bench{n}-blobs",
        **llm,
    )
    session = boto3.session.Session(region_name="us-east-1")
    create_tables(session.client("dynamodb", endpoint_url=moto_endpoint), settings)
    create_bucket(session.client("s3", endpoint_url=moto_endpoint), settings.bucket)
    queue_url = create_fifo_queue(session.client("sqs", endpoint_url=moto_endpoint), f"bench{n}-tasks.fifo")
    settings = settings.model_copy(update={"queue_url": queue_url})
    # The entity index in memory too: in the tree's data folder (.engram/entities.sqlite3) it outlived the
    # environment, so each run found the entities of every earlier run of the same users and a live add grew
    # slower the more the bench had run in that tree (1,095 entity lookups where a fresh one makes 141).
    parts: dict[str, Any] = {
        "index": EmbeddedIndex(None, 384),
        "entity_index": EmbeddedIndex(None, 384),
        "embedder": shared_embedder(),
    }
    parts.update(overrides)
    return EngramEnv(Container(settings, **parts))
