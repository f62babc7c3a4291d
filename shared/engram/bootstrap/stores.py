"""Where data is kept, outside the search indexes: DynamoDB tables, the S3 bucket, the SQS queue."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from engram.bootstrap.clients import Clients
from engram.settings import Settings

if TYPE_CHECKING:
    from engram.domain.agentcore import EventStore
    from engram.domain.operations_ports import ConnectionStore, UsageCounters
    from engram.domain.ports import (
        ApiKeyStore,
        AttachmentStore,
        BlobStore,
        FactStore,
        FinishedRuns,
        TaskQueue,
        TaskStore,
        UserDirectory,
    )
    from engram.maintenance.scanner import FactScanner


class Stores:
    def __init__(self, settings: Settings, clients: Clients) -> None:
        self.settings = settings
        self.clients = clients

    @cached_property
    def agentcore_events(self) -> EventStore:
        """AgentCore Memory's events, on the memory table (docs/agentcore.md)."""
        from engram.adapters.dynamo.event_store import DynamoEventStore

        return DynamoEventStore(self.clients.aws.dynamodb, self.settings.memory_table)

    @cached_property
    def facts(self) -> FactStore:
        from engram.adapters.dynamo.fact_store import DynamoFactStore

        return DynamoFactStore(self.clients.aws.dynamodb, self.settings.memory_table)

    @cached_property
    def blobs(self) -> BlobStore:
        from engram.adapters.aws.s3_blob_store import S3BlobStore

        return S3BlobStore(self.clients.aws.s3, self.settings.bucket)

    @cached_property
    def tasks(self) -> TaskStore:
        from engram.adapters.dynamo.task_store import DynamoTaskStore

        return DynamoTaskStore(self.clients.aws.dynamodb, self.settings.tasks_table, self.blobs)

    @cached_property
    def attachment_store(self) -> AttachmentStore:
        from engram.adapters.dynamo.attachment_store import DynamoAttachmentStore

        return DynamoAttachmentStore(self.clients.aws.dynamodb, self.settings.memory_table)

    @cached_property
    def keys(self) -> ApiKeyStore:
        from engram.adapters.dynamo.api_key_store import DynamoApiKeyStore

        return DynamoApiKeyStore(self.clients.aws.dynamodb, self.settings.keys_table)

    @cached_property
    def queue(self) -> TaskQueue:
        from engram.adapters.aws.sqs_task_queue import SqsTaskQueue

        if not self.settings.queue_url:
            raise RuntimeError("ENGRAM_QUEUE_URL is not set")
        return SqsTaskQueue(self.clients.aws.sqs, self.settings.queue_url)

    @cached_property
    def scanner(self) -> FactScanner:
        from engram.adapters.dynamo.fact_scanner import DynamoFactScanner

        return DynamoFactScanner(self.clients.aws.dynamodb, self.settings.memory_table)

    @cached_property
    def users(self) -> UserDirectory:
        """The tenants' user listing: an entry written per add, so sharded like the usage counters."""
        from engram.adapters.dynamo.shards import once_per_add_shards
        from engram.adapters.dynamo.user_directory import DynamoUserDirectory

        shards = once_per_add_shards(self.settings.counter_shards)
        return DynamoUserDirectory(self.clients.aws.dynamodb, self.settings.memory_table, shards=shards)

    @cached_property
    def usage_counters(self) -> UsageCounters:
        from engram.adapters.dynamo.shards import once_per_add_shards
        from engram.adapters.dynamo.usage import DynamoUsageCounters

        shards = once_per_add_shards(self.settings.counter_shards)
        return DynamoUsageCounters(self.clients.aws.dynamodb, self.settings.tasks_table, shards=shards)

    @cached_property
    def connections(self) -> ConnectionStore:
        from engram.adapters.dynamo.connection_store import DynamoConnectionStore

        if not self.settings.connections_table:
            raise RuntimeError("ENGRAM_CONNECTIONS_TABLE is not set")
        return DynamoConnectionStore(self.clients.aws.dynamodb, self.settings.connections_table)

    @cached_property
    def finished_runs(self) -> FinishedRuns | None:
        """A run's finished tasks and user entry in one request, when both live in DynamoDB."""
        from engram.adapters.dynamo.task_store import DynamoFinishedRuns, DynamoTaskStore
        from engram.adapters.dynamo.user_directory import DynamoUserDirectory

        tasks, users = self.tasks, self.users
        if isinstance(tasks, DynamoTaskStore) and isinstance(users, DynamoUserDirectory):
            return DynamoFinishedRuns(self.clients.aws.dynamodb, tasks, users)
        return None
