"""What runs beside the memories: metrics, usage and accounting, task and bus events, the LLM's circuit
breaker, the tenants' configurations and maintenance runs."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from engram.bootstrap.clients import Clients
from engram.bootstrap.stores import Stores
from engram.domain.errors import ConfigurationError
from engram.settings import Settings

if TYPE_CHECKING:
    from engram.domain.operations_ports import EventPublisher, Metrics, QueueMetrics
    from engram.operations.accounting import Accounting
    from engram.operations.circuit_breaker import CircuitBreaker
    from engram.operations.usage import UsageService
    from engram.operations.usage_buffer import BufferedUsageCounters
    from engram.services.bus_events import BusEvents
    from engram.services.maintenance_runs import MaintenanceRuns
    from engram.services.task_events import TaskEvents
    from engram.services.tenant_config import TenantConfigs


class Operations:
    def __init__(self, settings: Settings, clients: Clients, stores: Stores) -> None:
        self.settings = settings
        self.clients = clients
        self.stores = stores

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
        dynamodb, table = self.clients.aws.dynamodb, self.settings.tasks_table
        return DynamoQueueMetrics(dynamodb, table, shards=shards, total_shards=once_per_add_shards(shards))

    @cached_property
    def usage(self) -> UsageService:
        from engram.operations.usage import UsageService

        return UsageService(self.search_usage)  # reading writes this container's waiting counts first

    @cached_property
    def search_usage(self) -> BufferedUsageCounters:
        from engram.operations.usage_buffer import BufferedUsageCounters

        return BufferedUsageCounters(self.stores.usage_counters, self.settings.usage_flush_s)

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
        return Accounting(self.metrics, self.stores.usage_counters, BusyLog(pending), search_usage=self.search_usage)

    def _queue_pending(self) -> int:
        return self.stores.queue.pending()

    # the local stack replaces `events` with its WebSocket hub
    @cached_property
    def events(self) -> EventPublisher:
        s = self.settings
        if not (s.connections_table and s.websocket_endpoint):
            from engram.services.task_events import NoEvents

            return NoEvents()
        from engram.adapters.aws.apigw_event_publisher import ApiGatewayEventPublisher

        management = self.clients.aws.session_client("apigatewaymanagementapi", s.websocket_endpoint)
        return ApiGatewayEventPublisher(self.stores.connections, management)

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

        bus = EventBridgeBus(lambda: self.clients.aws.events, name)
        configs = self.configs
        return BusEvents(bus, lambda tenant: configs.get(tenant).events_include_text, self.metrics)

    @cached_property
    def breaker(self) -> CircuitBreaker | None:
        s = self.settings
        if not s.breaker_enabled:
            return None
        from engram.adapters.dynamo.breaker_store import DynamoBreakerStore
        from engram.operations.circuit_breaker import CircuitBreaker

        store = DynamoBreakerStore(self.clients.aws.dynamodb, s.tasks_table)
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

        return TenantConfigs(DynamoConfigStore(self.clients.aws.dynamodb, self.settings.tasks_table))

    @cached_property
    def maintenance_runs(self) -> MaintenanceRuns:
        from engram.adapters.aws.sfn_workflow import StepFunctionsWorkflow
        from engram.services.maintenance_runs import MaintenanceRuns

        arn = self.settings.maintenance_state_machine_arn
        if not arn:
            raise ConfigurationError("missing setting: ENGRAM_MAINTENANCE_STATE_MACHINE_ARN")
        return MaintenanceRuns(StepFunctionsWorkflow(self.clients.aws.stepfunctions, arn))
