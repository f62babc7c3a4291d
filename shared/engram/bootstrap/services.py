"""The use cases the handlers call: memories (add, search, list, correct, forget), attachments, the chat
proxy, and the deep health check of every dependency."""

from __future__ import annotations

from datetime import timedelta
from functools import cached_property
from typing import TYPE_CHECKING

from engram.bootstrap.clients import Clients
from engram.bootstrap.graph import Graph
from engram.bootstrap.models import Models
from engram.bootstrap.operations import Operations
from engram.bootstrap.search import Search
from engram.bootstrap.stores import Stores
from engram.bootstrap.writes import Writes
from engram.settings import Settings

if TYPE_CHECKING:
    from engram.agentcore.service import AgentCoreService
    from engram.domain.agentcore import Callers
    from engram.operations.health import HealthCheck
    from engram.services.attachments import AttachmentService
    from engram.services.chat_proxy import ChatProxy
    from engram.services.memory import MemoryService
    from engram.services.policy_trials import PolicyTrials

HEALTH_ID = "!health"  # a tenant, user and key that never exist: reads of it find nothing


class Services:
    def __init__(
        self,
        settings: Settings,
        parts: tuple[Clients, Stores, Operations, Models, Search, Graph, Writes],
    ) -> None:
        self.settings = settings
        self.clients, self.stores, self.operations, self.models, self.search, self.graph, self.writes = parts

    @cached_property
    def attachments(self) -> AttachmentService:
        from engram.services.attachments import AttachmentService

        s = self.settings
        stores = self.stores
        configs = self.operations.configs
        return AttachmentService(
            stores.attachment_store,
            stores.blobs,
            s.max_attachment_inline_bytes,
            s.presign_expires_s,
            redact_kinds=lambda tenant_id: configs.get(tenant_id).redact,
            screen=self.policy_trials.passed_on,
        )

    @cached_property
    def memories(self) -> MemoryService:
        from engram.services.memory import MemoryService
        from engram.services.touches import TouchBuffer

        stores, search = self.stores, self.search
        return MemoryService(
            stores.facts,
            search.index,
            self.models.embedder,
            stores.tasks,
            stores.queue,
            stores.blobs,
            self.attachments,
            max_inline_payload_bytes=self.settings.max_inline_payload_bytes,
            search_pipeline=search.search_pipeline,
            touches=TouchBuffer(stores.facts, self.settings.touch_interval_s),
            scratch_index=search.scratch_index,
            graph=self.graph.graph,
            users=stores.users,
            lifecycle=self.writes.lifecycle,
            configs=self.operations.configs,
            queued=self.operations.task_events.queued,
        )

    @cached_property
    def policy_trials(self) -> PolicyTrials:
        from engram.services.policy_trials import PolicyTrials

        return PolicyTrials(self.operations.configs, self.models.policy_meaning)

    @cached_property
    def agentcore(self) -> AgentCoreService:
        """AgentCore Memory's data plane over the memories (docs/agentcore.md)."""
        from engram.agentcore.service import AgentCoreService

        expiry = timedelta(days=self.settings.agentcore_event_expiry_days)
        stores = self.stores
        return AgentCoreService(self.memories, self.writes.lifecycle, stores.agentcore_events, stores.users, expiry)

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

        return wired(self.settings, lambda: self.clients.openai_client, self.memories)

    @cached_property
    def health(self) -> HealthCheck:
        """DynamoDB (both tables), SQS, the search index, the embedder and the LLM, through their ports."""
        from engram.operations.health import HealthCheck

        return HealthCheck(
            {
                "dynamodb": self._tables_answer,
                "sqs": lambda: f"{self.stores.queue.pending()} pending",
                "search_index": lambda: _no_note(self.search.index.text_search(HEALTH_ID, HEALTH_ID, "health", 1)),
                "embedder": self._embedder_answers,
                "llm": self._llm_answers,
            },
            timeout_s=self.settings.health_timeout_s,
        )

    def _tables_answer(self) -> None:
        from engram.operations.health import absent_is_fine

        absent_is_fine(lambda: self.stores.tasks.get(HEALTH_ID, HEALTH_ID))()
        absent_is_fine(lambda: self.stores.facts.get(HEALTH_ID, HEALTH_ID))()

    def _embedder_answers(self) -> str:
        embedder = self.models.embedder
        vector = embedder.embed(["health"])[0]
        if len(vector) != embedder.dimensions:
            raise ValueError(f"the embedder answered {len(vector)} dimensions, not {embedder.dimensions}")
        return embedder.model_id

    def _llm_answers(self) -> str:
        llm = self.models.llm
        if llm is None:
            return "not configured (the offline extractor needs none)"
        llm.ping()
        return self.settings.llm_model


def _no_note(_: object) -> None:
    return None
