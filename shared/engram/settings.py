"""One settings model, read once per container from ENGRAM_* environment variables.

A plain pydantic model reading the environment itself, as pydantic-settings' BaseSettings did for it
(names case-insensitive, ENGRAM_ prefix unless a field has its own alias, keyword arguments first): its
import (CLI, dotenv and secret-store sources) and source walk were about 15 ms of CPU of the API
function's cold start beyond pydantic itself, for a flat model of scalars."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

from engram.domain.errors import ConfigurationError

ENV_PREFIX = "ENGRAM_"


class Settings(BaseModel):
    # BaseSettings' own: defaults validated too, fields settable by name as well as by alias
    model_config = ConfigDict(extra="ignore", validate_default=True, populate_by_name=True)

    def __init__(self, **values: Any) -> None:
        super().__init__(**(_environment(type(self)) | values))

    # AWS resources (names come from template.yaml; the local stack provisions the same ones)
    aws_region: str = Field(default="us-east-1", validation_alias="AWS_REGION")
    aws_endpoint_url: str | None = None  # moto server locally; unset on AWS
    memory_table: str = "engram-memory"
    tasks_table: str = "engram-tasks"
    keys_table: str = "engram-api-keys"
    idempotency_table: str = "engram-idempotency"
    bucket: str = "engram-blobs"
    queue_url: str | None = None

    # Vector + text index
    index_backend: Literal["opensearch", "embedded"] = "embedded"
    opensearch_endpoint: str | None = None
    opensearch_index: str = "engram-memories"
    opensearch_auth: Literal["sigv4", "basic", "none"] = "sigv4"
    opensearch_service: Literal["es", "aoss"] = "es"
    opensearch_username: str | None = None
    opensearch_password: SecretStr | None = None
    opensearch_knn_engine: Literal["faiss", "lucene"] = "faiss"

    # Embeddings
    # local: all-MiniLM-L6-v2 (English); multilingual: multilingual-e5-small (pip install 'engram[multilingual]')
    embedder: Literal["openai", "local", "multilingual"] = "local"
    embedding_model: str = "text-embedding-3-small"
    embedding_dims: int = 384
    local_model_path: Path | None = None  # override the packaged all-MiniLM-L6-v2 ONNX file
    # int8: weight MatMuls in int8 (1.6x faster, cosine 0.994 to fp32); fp32: the packaged graph as is
    local_model_precision: Literal["int8", "fp32"] = "int8"
    model_cache_dir: Path | None = None  # where the int8 model is derived to (default: ~/.cache/engram)

    # LLM: OpenAI or any OpenAI-compatible server; the offline extractor when neither is set
    openai_api_key: SecretStr | None = None
    openai_api_key_param: str | None = None  # SSM SecureString name holding the key (on AWS)
    openai_base_url: str | None = None
    llm_model: str = "gpt-4o-mini"
    llm_timeout_s: float = 60.0
    llm_max_retries: int = 2
    shortcuts: bool = True  # let the offline extractor skip the LLM for statements it fully understands
    # One LLM call per add for facts, their reconciliation and the graph's relations (off: three calls)
    llm_single_call: bool = True
    # A fact's neighbour at least this similar that the single call did not show: reconciled separately
    single_call_recheck_similarity: float = Field(default=0.5, ge=0.0, le=1.0)

    # Pipeline tuning
    duplicate_threshold: float = 0.95  # cosine at or above this: the same fact
    dedupe_similarity: float = Field(default=0.95, ge=0.0, le=1.0)  # the maintenance step's threshold
    similar_per_fact: int = 5
    extraction_window_chars: int = Field(default=12_000, ge=500)  # longer conversations: several calls
    max_inline_payload_bytes: int = 256 * 1024  # larger add requests go to the blob store
    max_attachment_inline_bytes: int = 5 * 1024 * 1024

    # Extraction queue: the receive that marks a task failed (= the queue's maxReceiveCount)
    max_receives: int = Field(default=3, ge=1)

    # LLM circuit breaker: `threshold` outage errors within `window_s` open it; after `cooldown_s`
    # one trial call decides. Tasks wait (status "waiting") while it is open instead of failing.
    breaker_enabled: bool = True
    breaker_threshold: int = Field(default=5, ge=1)
    breaker_window_s: float = Field(default=600.0, gt=0)
    breaker_cooldown_s: float = Field(default=300.0, gt=0)

    # Live task events on AWS: the WebSocket API's connections table and its stage's https URL
    # (the Management API endpoint). Without them events are not sent (the local stack has its own hub).
    connections_table: str | None = None
    websocket_endpoint: str | None = None

    # Operations: CloudWatch metrics ("emf": Powertools EMF lines in the log, set on AWS by template.yaml;
    # "off": none) and the bound on each dependency check of GET /health?deep=true
    metrics: Literal["off", "emf"] = "off"
    health_timeout_s: float = Field(default=5.0, gt=0, le=25)

    # Search ranking (search/hybrid.py explains each weight)
    search_semantic_weight: float = Field(default=0.75, ge=0.0, le=1.0)
    search_speaker_lift: float = Field(default=0.2, ge=0.0, le=1.0)  # 0 turns the speaker step off
    search_vector_context: float = Field(default=0.3, ge=0.0, le=1.0)  # 0: plain cosine
    search_min_candidates: int = Field(default=200, ge=1, le=1000)  # per side; more: recall for latency
    search_context_weight: float = Field(default=0.5, ge=0.0, le=1.0)
    # A second look at the top few (search/model_rerank.py): "maxsim" is late interaction over
    # MiniLM's token vectors; off by default, it costs a model run per candidate (bench/README.md).
    search_reranker: Literal["off", "maxsim"] = "off"
    search_rerank_candidates: int = Field(default=20, ge=1, le=200)
    search_rerank_weight: float = Field(default=0.2, ge=0.0, le=1.0)
    search_context_window_s: float = Field(default=1800.0, ge=0.0)
    touch_interval_s: float = Field(default=30.0, gt=0.0)  # how often search hits are written as uses
    usage_flush_s: float = Field(default=5.0, gt=0.0)  # how often a container writes its search counts
    # items the queue gauge of a tenant is spread over, summed when read (a key takes ~1,000 writes/s and
    # a live add writes the gauge 3 times); usage and queue totals, written once an add, get a quarter.
    # At most 100: one BatchGetItem's keys (docs/scale.md)
    counter_shards: int = Field(default=32, ge=1, le=100)

    # Maintenance runs started through the API (POST /v1/maintenance)
    maintenance_state_machine_arn: str | None = None

    # Maintenance
    prune_cap: int = Field(default=2000, ge=0)  # current memories kept per user
    summarise_min_age_days: float = Field(default=30, ge=0)
    summarise_similarity: float = Field(default=0.85, ge=0.0, le=1.0)
    summarise_min_cluster_size: int = Field(default=3, ge=2)

    # Delete-all: memories closed per batch (one list page, then transactions of 50)
    delete_all_batch_size: int = Field(default=1000, ge=1, le=1000)
    # Episodes: a message the extractor did not fully read is also kept in its own words
    keep_episodes: bool = True
    keep_assistant_turns: bool = True  # the assistant's messages kept as said too (what it recommended, told)
    # Graph memory (engram/graph, docs/graph.md). ENGRAM_GRAPH=off turns the whole pipeline off.
    graph: bool = True
    graph_resolve_threshold: float = Field(default=0.9, ge=0.0, le=1.0)  # name similarity = same entity
    graph_search_similarity: float = Field(default=0.5, ge=0.0, le=1.0)  # query ~ entity name
    opensearch_entity_index: str = "engram-entities"

    # Security: browser origins allowed to call the API (comma-separated; unset: no CORS headers at all),
    # how long presigned attachment URLs work, and the local front's per-key throttling (on AWS the
    # template's ThrottleRateLimit / ThrottleBurstLimit; unset here: the same template values)
    cors_origins: str | None = None
    presign_expires_s: int = Field(default=300, ge=1, le=900)
    rate_limit_rps: float | None = Field(default=None, gt=0)
    rate_limit_burst: int | None = Field(default=None, ge=1)

    # Local stack
    data_dir: Path = Path(".engram")
    local_api_keys: str | None = None  # "tenant:key,other:key2"

    @field_validator("*", mode="before")
    @classmethod
    def _empty_is_unset(cls, value: object) -> object:
        # CloudFormation cannot omit an environment variable conditionally; "" means "not set".
        return None if value == "" else value

    @property
    def cors_origin_list(self) -> tuple[str, ...]:
        return tuple(o.strip() for o in (self.cors_origins or "").split(",") if o.strip())

    @property
    def llm_configured(self) -> bool:
        return any(v is not None for v in (self.openai_api_key, self.openai_api_key_param, self.openai_base_url))

    def require(self, *names: str) -> None:
        """In a deployed function, fail at start naming every setting its template should have set,
        instead of running on a default that points at the wrong table or queue."""
        if not os.environ.get("AWS_LAMBDA_FUNCTION_NAME"):
            return  # tests and the local stack run on the defaults on purpose
        missing = [n for n in names if n not in self.model_fields_set or getattr(self, n) is None]
        if missing:
            names_ = ", ".join(f"ENGRAM_{n.upper()}" for n in missing)
            raise ConfigurationError(f"missing setting(s): {names_}")


def _environment(model: type[BaseModel]) -> dict[str, str]:
    """The fields set in the environment, by field name: ENGRAM_<NAME>, or the field's own alias
    (AWS_REGION), in any case. Values stay strings: the model validates them."""
    environ = {key.lower(): value for key, value in os.environ.items()}
    found: dict[str, str] = {}
    for name, field in model.model_fields.items():
        alias = field.validation_alias if isinstance(field.validation_alias, str) else ENV_PREFIX + name
        if (value := environ.get(alias.lower())) is not None:
            found[name] = value
    return found


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
