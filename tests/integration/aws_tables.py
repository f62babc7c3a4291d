"""Create the DynamoDB tables, bucket and FIFO queue the adapters expect (inside moto.mock_aws()).

The shapes match the table design the SAM template declares.
"""

from __future__ import annotations

from typing import Any

from engram.settings import Settings


def _table(
    client: Any,
    name: str,
    keys: list[tuple[str, str]],
    attributes: dict[str, str],
    indexes: list[dict[str, Any]] | None = None,
) -> None:
    params: dict[str, Any] = {
        "TableName": name,
        "BillingMode": "PAY_PER_REQUEST",
        "KeySchema": [{"AttributeName": n, "KeyType": t} for n, t in keys],
        "AttributeDefinitions": [{"AttributeName": n, "AttributeType": t} for n, t in attributes.items()],
    }
    if indexes:
        params["GlobalSecondaryIndexes"] = indexes
    client.create_table(**params)


def _gsi(name: str, hash_key: str, range_key: str | None = None) -> dict[str, Any]:
    schema = [{"AttributeName": hash_key, "KeyType": "HASH"}]
    if range_key:
        schema.append({"AttributeName": range_key, "KeyType": "RANGE"})
    return {"IndexName": name, "KeySchema": schema, "Projection": {"ProjectionType": "ALL"}}


def create_tables(dynamodb_client: Any, settings: Settings | None = None) -> Settings:
    """Create the memory, tasks, api-keys and idempotency tables; returns the settings naming them."""
    s = settings or Settings()
    _table(
        dynamodb_client,
        s.memory_table,
        [("pk", "HASH"), ("sk", "RANGE")],
        {"pk": "S", "sk": "S", "gsi1pk": "S", "gsi1sk": "S", "gsi2pk": "S", "gsi2sk": "S"},
        [_gsi("by_user", "gsi1pk", "gsi1sk"), _gsi("by_user_time", "gsi2pk", "gsi2sk")],
    )
    _table(
        dynamodb_client,
        s.tasks_table,
        [("pk", "HASH")],
        {"pk": "S", "user_key": "S", "user_sk": "S"},
        [_gsi("by_user", "user_key", "user_sk") | {"Projection": {"ProjectionType": "KEYS_ONLY"}}],
    )
    _table(
        dynamodb_client,
        s.keys_table,
        [("key_hash", "HASH")],
        {"key_hash": "S", "tenant_id": "S", "created_at": "S", "key_id": "S"},
        [_gsi("by_tenant", "tenant_id", "created_at"), _gsi("by_key_id", "key_id")],
    )
    _table(dynamodb_client, s.idempotency_table, [("id", "HASH")], {"id": "S"})
    dynamodb_client.update_time_to_live(
        TableName=s.tasks_table, TimeToLiveSpecification={"Enabled": True, "AttributeName": "expires_at"}
    )
    dynamodb_client.update_time_to_live(
        TableName=s.idempotency_table,
        TimeToLiveSpecification={"Enabled": True, "AttributeName": "expiration"},
    )
    return s


def create_bucket(s3_client: Any, bucket: str = "engram-blobs") -> str:
    s3_client.create_bucket(Bucket=bucket)  # us-east-1: no LocationConstraint
    return bucket


def create_fifo_queue(sqs_client: Any, name: str = "engram-tasks.fifo") -> str:
    """A FIFO queue without content-based dedup: the adapter must send its own dedup ids."""
    resp = sqs_client.create_queue(
        QueueName=name,
        Attributes={"FifoQueue": "true", "ContentBasedDeduplication": "false"},
    )
    return str(resp["QueueUrl"])


def create_connections_table(dynamodb_client: Any, name: str = "engram-connections") -> str:
    """The WebSocket connections table: tenant / connection id, as template.yaml declares it."""
    _table(dynamodb_client, name, [("pk", "HASH"), ("sk", "RANGE")], {"pk": "S", "sk": "S"})
    return name
