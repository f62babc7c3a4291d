"""What changes memories: the ingest pipeline and the worker that runs it, the unit of work every change
goes through (lifecycle), forgetting a user, and the maintenance runner."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from engram.bootstrap.graph import Graph
from engram.bootstrap.models import Models
from engram.bootstrap.operations import Operations
from engram.bootstrap.search import Search
from engram.bootstrap.stores import Stores
from engram.settings import Settings

if TYPE_CHECKING:
    from engram.maintenance.runner import MaintenanceRunner
    from engram.pipeline.ingest import IngestPipeline
    from engram.services.forget import Forgetter, UserForgetter
    from engram.services.worker import ExtractionWorker
    from engram.writes.unit_of_work import Lifecycle


class Writes:
    def __init__(
        self, settings: Settings, stores: Stores, models: Models, search: Search, graph: Graph, operations: Operations
    ) -> None:
        self.settings = settings
        self.stores = stores
        self.models = models
        self.search = search
        self.graph = graph
        self.operations = operations

    @cached_property
    def pipeline(self) -> IngestPipeline:
        from engram.pipeline.ingest import IngestPipeline
        from engram.pipeline.one_call import OneCall
        from engram.rules.extractor import OfflineExtractor

        s, models, stores = self.settings, self.models, self.stores
        return IngestPipeline(
            stores.facts,
            self.search.index,
            models.embedder,
            models.extractor,
            models.reconciler,
            duplicate_threshold=s.duplicate_threshold,
            similar_per_fact=s.similar_per_fact,
            attachments=stores.attachment_store,
            blobs=stores.blobs,
            keep_episodes=s.keep_episodes,
            keep_assistant_turns=s.keep_assistant_turns,
            graph=self.graph.graph,
            # ENGRAM_LLM_SINGLE_CALL=off: separate extraction, reconciliation and graph calls
            one_call=(
                OneCall(models.llm, s.extraction_window_chars, checks=models.plan_checks)
                if models.llm is not None and s.llm_single_call
                else None
            ),
            recheck_similarity=s.single_call_recheck_similarity,
            meaning=models.policy_meaning,
            announce=self.lifecycle.announce,
            aspects=models.aspect_reader,
            statements=models.statement_reader,
            # only where the rules alone extract: an LLM (however it is given) reads ordinary speech itself
            read_wider=isinstance(models.extractor, OfflineExtractor),
        )

    @cached_property
    def lifecycle(self) -> Lifecycle:
        from engram.writes.unit_of_work import Lifecycle

        bus = self.operations.bus_events
        announce = bus.publish if bus is not None else None
        stores = self.stores
        index, embedder = self.search.index, self.models.embedder
        attachments, blobs, reader = stores.attachment_store, stores.blobs, self.models.statement_reader
        return Lifecycle(stores.facts, index, embedder, attachments, blobs, announce, statements=reader)

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
        return MaintenanceRunner(self.stores.scanner, self.lifecycle, self.models.llm, policy, graph=self.graph.graph)

    @cached_property
    def worker(self) -> ExtractionWorker:
        from engram.services.importer import MemoryImporter
        from engram.services.worker import ExtractionWorker

        stores, operations = self.stores, self.operations
        breaker = operations.breaker if self.models.llm is not None else None
        repair = self.maintenance.repair().repair_scope  # run before a task is tried again (worker.py)
        importer = MemoryImporter(
            stores.facts,
            self.lifecycle,
            stores.tasks,
            stores.blobs,
            stores.users,
            graph=self.graph.graph,
            policy=operations.configs.policy_of_user,
            meaning=self.models.policy_meaning,
        )
        wiring = (
            *(stores.tasks, self.pipeline, stores.blobs, operations.task_events, breaker),
            *(self.forgetter, repair, stores.users),
        )
        from engram.services.user_requests import UserRequests

        requests = UserRequests(operations.configs, stores.facts, self.lifecycle, self.models.policy_meaning)
        return ExtractionWorker(
            *wiring, importer=importer, configs=operations.configs, requests=requests, finished=stores.finished_runs
        )

    # --- delete-all (bulk forgetting) ---------------------------------------------------------
    @cached_property
    def forgetters(self) -> list[Forgetter]:
        """What else keeps something of a user, called after the memories are closed."""
        graph = self.graph.graph
        stores = self.stores
        return [
            *([graph.forget_user] if graph is not None else []),
            stores.users.forget,
            stores.agentcore_events.forget_actor,
        ]

    @cached_property
    def forgetter(self) -> UserForgetter:
        from engram.services.forget import UserForgetter

        stores = self.stores
        batch = self.settings.delete_all_batch_size
        return UserForgetter(stores.facts, self.lifecycle, stores.tasks, batch, self.forgetters, stores.blobs)
