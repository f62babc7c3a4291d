"""AgentCore's events on the memory table (engram.domain.agentcore.EventStore).

Keys: a session's events pk=T#{tenant}#M#AGENTCORE#E#{actor}#{session}, sk={event id} (the event time in
milliseconds first, so a Query reads them newest first, as AgentCore lists them); an actor's sessions
pk=T#{tenant}#M#AGENTCORE#S#{actor}, sk={session id}, created at the session's first event. Actor and
session ids cannot hold "#" (AgentCore's patterns), so the keys are unambiguous; "AGENTCORE" is never a
memory id (those are uuid4s). Each event is its JSON in `doc`, and `ttl` its expiry in epoch seconds."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from engram.adapters.aws.clients import aws_errors, error_code
from engram.adapters.dynamo.batch import batch_delete
from engram.adapters.dynamo.cursor import decode_cursor, encode_cursor
from engram.adapters.dynamo.fact_store import memory_pk
from engram.adapters.dynamo.values import iso
from engram.domain.agentcore import EventPage, SessionPage, StoredEvent
from engram.domain.errors import NotFoundError, ValidationError
from engram.domain.models import utcnow

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient

_KEYS = ("pk", "sk")
_PAGE = 100  # items a Query reads while filters drop some


def events_pk(tenant_id: str, actor_id: str, session_id: str) -> str:
    return memory_pk(tenant_id, f"AGENTCORE#E#{actor_id}#{session_id}")


def sessions_pk(tenant_id: str, actor_id: str) -> str:
    return memory_pk(tenant_id, f"AGENTCORE#S#{actor_id}")


class DynamoEventStore:
    def __init__(self, client: DynamoDBClient, table: str) -> None:
        self._db = client
        self._table = table

    def put(self, event: StoredEvent) -> None:
        item = {
            "pk": {"S": events_pk(event.tenant_id, event.actor_id, event.session_id)},
            "sk": {"S": event.event_id},
            "item_type": {"S": "agentcore_event"},
            "doc": {"S": event.model_dump_json()},
            "ttl": {"N": str(int(event.expires_at.timestamp()))},
        }
        with aws_errors(self._table):
            self._db.put_item(TableName=self._table, Item=item)
            # The session's first event creates it; later ones leave its time as it was.
            self._db.update_item(
                TableName=self._table,
                Key={"pk": {"S": sessions_pk(event.tenant_id, event.actor_id)}, "sk": {"S": event.session_id}},
                UpdateExpression="SET created_at = if_not_exists(created_at, :at), item_type = :t",
                ExpressionAttributeValues={":at": {"S": iso(event.created_at)}, ":t": {"S": "agentcore_session"}},
            )

    def get(self, tenant_id: str, actor_id: str, session_id: str, event_id: str) -> StoredEvent:
        key = {"pk": {"S": events_pk(tenant_id, actor_id, session_id)}, "sk": {"S": event_id}}
        with aws_errors(self._table):
            item = self._db.get_item(TableName=self._table, Key=key, ConsistentRead=True).get("Item")
        if item is None:
            raise NotFoundError("event", event_id)
        event = StoredEvent.model_validate_json(item["doc"]["S"])
        if event.expires_at <= utcnow():
            raise NotFoundError("event", event_id)
        return event

    def delete(self, tenant_id: str, actor_id: str, session_id: str, event_id: str) -> None:
        key = {"pk": {"S": events_pk(tenant_id, actor_id, session_id)}, "sk": {"S": event_id}}
        with aws_errors(self._table):
            try:
                self._db.delete_item(TableName=self._table, Key=key, ConditionExpression="attribute_exists(pk)")
            except ClientError as err:
                if error_code(err) == "ConditionalCheckFailedException":
                    raise NotFoundError("event", event_id) from err
                raise

    def events(
        self,
        tenant_id: str,
        actor_id: str,
        session_id: str,
        keep: Callable[[StoredEvent], bool],
        limit: int,
        token: str | None,
    ) -> EventPage:
        partition = events_pk(tenant_id, actor_id, session_id)
        start = _start(token, partition)
        now = utcnow()
        found: list[StoredEvent] = []
        while True:
            items, last = self._query(partition, start, _PAGE, newest_first=True)
            for n, item in enumerate(items):
                event = StoredEvent.model_validate_json(item["doc"]["S"])
                if event.expires_at > now and keep(event):
                    found.append(event)
                if len(found) == limit:
                    more = n + 1 < len(items) or last is not None
                    return EventPage(items=found, next_token=_token(item) if more else None)
            if last is None:
                return EventPage(items=found)
            start = last

    def sessions(self, tenant_id: str, actor_id: str, limit: int, token: str | None) -> SessionPage:
        partition = sessions_pk(tenant_id, actor_id)
        items, _ = self._query(partition, _start(token, partition), limit + 1)  # one more: is there a next page?
        found = [(i["sk"]["S"], datetime.fromisoformat(i["created_at"]["S"])) for i in items[:limit]]
        return SessionPage(items=found, next_token=_token(items[limit - 1]) if len(items) > limit else None)

    def forget_actor(self, tenant_id: str, actor_id: str) -> None:
        """Every event and session of the actor (a delete-all of the user): sessions last, so a retry
        after a failure still finds the events."""
        partition = sessions_pk(tenant_id, actor_id)
        sessions: list[Any] = []
        start: dict[str, Any] | None = None
        while True:
            items, start = self._query(partition, start, _PAGE)
            sessions += items
            if start is None:
                break
        for session in sessions:
            events = events_pk(tenant_id, actor_id, session["sk"]["S"])
            start = None
            while True:
                items, start = self._query(events, start, _PAGE)
                batch_delete(self._db, self._table, [{"pk": i["pk"], "sk": i["sk"]} for i in items])
                if start is None:
                    break
        batch_delete(self._db, self._table, [{"pk": i["pk"], "sk": i["sk"]} for i in sessions])

    def _query(
        self, partition: str, start: dict[str, Any] | None, limit: int, newest_first: bool = False
    ) -> tuple[list[Any], Any]:
        query: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": "pk = :pk",
            "ExpressionAttributeValues": {":pk": {"S": partition}},
            "Limit": limit,
            "ScanIndexForward": not newest_first,
        }
        if start is not None:
            query["ExclusiveStartKey"] = start
        with aws_errors(self._table):
            reply = self._db.query(**query)
        return list(reply.get("Items", [])), reply.get("LastEvaluatedKey")


def _start(token: str | None, partition: str) -> dict[str, Any] | None:
    if token is None:
        return None
    try:
        return decode_cursor(token, _KEYS, "pk", partition)
    except ValidationError as err:
        raise ValidationError("nextToken", err.message) from err


def _token(item: dict[str, Any]) -> str:
    return encode_cursor({"pk": item["pk"], "sk": item["sk"]}, _KEYS)
