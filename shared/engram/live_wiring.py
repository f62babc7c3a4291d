"""The Container's operations parts (metrics, usage counters, accounting, task events, the LLM circuit
breaker, deep health, the tenants' configuration, maintenance runs started through the API), kept beside
bootstrap.py so that the wiring module stays readable. Container inherits them; each is built once, on first
use, like the rest of the container."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Any

from engram.domain.errors import ConfigurationError

if TYPE_CHECKING:  # the parts are imported when first built: an API call that needs none loads none
    from engram.domain.operations_ports import ConnectionStore, EventPublisher, Metrics, QueueMetrics, UsageCounters
    from engram.domain.ports import LLM, Embedder, FactStore, TaskQueue, TaskStore, UserDirectory, VectorIndex
    from engram.operations.accounting import Accounting
    from engram.operations.circuit_breaker import CircuitBreaker
    from engram.operations.health import HealthCheck
    from engram.operations.usage import UsageService
    from engram.operations.usage_buffer import BufferedUsageCounters
    from engram.services.bus_events import BusEvents
    from engram.services.maintenance_runs import MaintenanceRuns
    from engram.services.task_events import TaskEvents
    from engram.services.tenant_config import TenantConfigs
    from engram.settings import Settings

HEALTH_ID = "!health"  # a tenant, user and key that never exist: reads of it find nothing


class LiveWiring:
    if TYPE_CHECKING:  # what these parts use of the Container (bootstrap.py builds them)
        settings: Settings

        @property
        def aws(self) -> Any: ...
        @property
        def tasks(self) -> TaskStore: ...
        @property
        def facts(self) -> FactStore: ...
        @property
        def queue(self) -> TaskQueue: ...
        @property
        def index(self) -> VectorIndex: ...
        @property
        def embedder(self) -> Embedder: ...
        @property
        def llm(self) -> LLM | None: ...

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


def _no_note(_: object) -> None:
    return None
