"""The one place that wires adapters to ports, from one Settings, once per warm container.

Heavy clients (onnxruntime, openai, opensearch-py) are imported only when first needed, so the API
function's cold start stays small. Tests pass fakes in through `overrides`.
"""

from __future__ import annotations

from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Any

from engram.live_wiring import LiveWiring
from engram.search_wiring import SearchWiring
from engram.settings import Settings, get_settings

if TYPE_CHECKING:  # each part's classes are imported when it is first built (a request loads what it uses)
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
        TaskQueue,
        TaskStore,
        VectorIndex,
    )
    from engram.graph.service import GraphService
    from engram.maintenance.runner import MaintenanceRunner
    from engram.maintenance.scanner import FactScanner
    from engram.pipeline.duplicates import DuplicateRule
    from engram.pipeline.ingest import IngestPipeline
    from engram.pipeline.lifecycle import Lifecycle
    from engram.reconcile.checks import PlanChecks
    from engram.services.attachments import AttachmentService
    from engram.services.chat_proxy import ChatProxy
    from engram.services.forget import Forgetter, UserForgetter
    from engram.services.memory import MemoryService
    from engram.services.worker import ExtractionWorker


class Container(SearchWiring, LiveWiring):
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
        from engram.services.circuit_breaker import GuardedLLM

        return GuardedLLM(llm, self.breaker)

    @cached_property
    def extractor(self) -> FactExtractor:
        from engram.offline.extractor import OfflineExtractor

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

        return PlanChecks(self.embedder)

    @cached_property
    def duplicate_rule(self) -> DuplicateRule:
        from engram.pipeline.duplicates import DuplicateRule

        s = self.settings
        if s.duplicate_rule == "cosine_and_text":
            return DuplicateRule(s.duplicate_cosine_with_text, s.duplicate_text_threshold)
        return DuplicateRule(s.duplicate_threshold)

    @cached_property
    def pipeline(self) -> IngestPipeline:
        from engram.pipeline.ingest import IngestPipeline
        from engram.pipeline.one_call import OneCall

        return IngestPipeline(
            self.facts,
            self.index,
            self.embedder,
            self.extractor,
            self.reconciler,
            duplicate_threshold=self.settings.duplicate_threshold,
            duplicate_rule=self.duplicate_rule,
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
        )

    @cached_property
    def lifecycle(self) -> Lifecycle:
        from engram.pipeline.lifecycle import Lifecycle

        return Lifecycle(self.facts, self.index, self.embedder, self.attachment_store, self.blobs)

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
            searcher=self.ranked_searcher(),
            touches=TouchBuffer(self.facts, self.settings.touch_interval_s),
            scratch_index=self.scratch_index,
            graph=self.graph,
            users=self.users,
            lifecycle=self.lifecycle,
            diversity=self.settings.search_diversity,
            diversity_gap_s=self.settings.search_diversity_gap_s,
            expansion=self.graph_expansion(),
            reranker=self.reranker,
            rerank_candidates=self.settings.search_rerank_candidates,
            rerank_weight=self.settings.search_rerank_weight,
        )

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
        return [*graph, self.users.forget]

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


@lru_cache(maxsize=1)
def container() -> Container:
    """The process-wide container (one per warm Lambda container or local stack process)."""
    return Container()
