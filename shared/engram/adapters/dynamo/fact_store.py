"""FactStore on one DynamoDB table: current fact, closed versions and history share a partition.

Keys: pk=T#{tenant}#M#{memory_id}; sk=FACT (current or closed head), V#{version:08d} (closed
previous versions), H#{iso}#{event_id} (history). The sparse GSI `by_user` (gsi1pk=T#{tenant}#U#{user},
gsi1sk={created_at iso}#{memory_id}) holds only current facts, which is what list_current pages over.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, cast

from boto3.dynamodb.types import TypeSerializer
from botocore.exceptions import ClientError
from pydantic import TypeAdapter

from engram.adapters.aws.clients import aws_errors, cancellation_codes, error_code
from engram.adapters.dynamo.as_of import list_as_of, list_versions
from engram.adapters.dynamo.batch import batch_get, batch_put
from engram.adapters.dynamo.cursor import decode_cursor, encode_cursor
from engram.adapters.dynamo.filters import add_filters
from engram.adapters.dynamo.values import iso, plain_item, to_dynamo
from engram.domain.errors import ConflictError, NotFoundError, ValidationError
from engram.domain.models import Fact, HistoryEvent, HistoryPage, Page, SearchFilters, utcnow

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient
    from mypy_boto3_dynamodb.type_defs import TransactWriteItemTypeDef

Item = dict[str, Any]

USER_INDEX = "by_user"
FACT_SK = "FACT"
_CURSOR_KEYS = ("pk", "sk", "gsi1pk", "gsi1sk")
_HISTORY_CURSOR_KEYS = ("pk", "sk")
_FACTS_PER_TRANSACTION = 50  # TransactWriteItems takes 100 items: a fact and its history event each
_CONDITION_FAILED = "ConditionalCheckFailed"
_FILTERED_PAGE = 100  # items evaluated per query when a filter may drop most of them
_SER = TypeSerializer()
_DATETIME: TypeAdapter[datetime] = TypeAdapter(datetime)


def _check_scope_part(field: str, value: str) -> str:
    # '#' separates key segments; allowing it would let one tenant's key spell another's.
    if not value or "#" in value:
        raise ValidationError(field, "must be non-empty and must not contain '#'")
    return value


def memory_pk(tenant_id: str, memory_id: str) -> str:
    return f"T#{_check_scope_part('tenant_id', tenant_id)}#M#{memory_id}"


def user_gsi_pk(tenant_id: str, user_id: str) -> str:
    return f"T#{_check_scope_part('tenant_id', tenant_id)}#U#{user_id}"


def _attributes(model: Fact | HistoryEvent) -> Item:
    # None fields are left out: `attribute_not_exists(valid_to)` then means "current".
    dumped = model.model_dump(mode="json")
    return {k: _SER.serialize(to_dynamo(v, k)) for k, v in dumped.items() if v is not None}


def _s(value: str) -> dict[str, str]:
    return {"S": value}


class DynamoFactStore:
    def __init__(self, client: DynamoDBClient, table_name: str) -> None:
        self._db = client
        self._table = table_name

    # -- item shapes -------------------------------------------------------------------------------

    def _fact_item(self, fact: Fact, sk: str = FACT_SK) -> Item:
        item = _attributes(fact)
        kind = "fact" if sk == FACT_SK else "version"
        item.update(pk=_s(memory_pk(fact.tenant_id, fact.id)), sk=_s(sk), item_type=_s(kind))
        if sk == FACT_SK and fact.valid_to is None:  # sparse index: only current facts are listed
            item["gsi1pk"] = _s(user_gsi_pk(fact.tenant_id, fact.user_id))
            item["gsi1sk"] = _s(f"{iso(fact.created_at)}#{fact.id}")
        # Every version by the time it became valid, for "as of" reads (as_of.py).
        item["gsi2pk"] = _s(user_gsi_pk(fact.tenant_id, fact.user_id))
        item["gsi2sk"] = _s(f"{iso(fact.valid_from)}#{fact.id}#{fact.version:08d}")
        return item

    def _history_item(self, event: HistoryEvent) -> Item:
        item = _attributes(event)
        item.update(
            pk=_s(memory_pk(event.tenant_id, event.memory_id)),
            sk=_s(f"H#{iso(event.created_at)}#{event.id}"),
            item_type=_s("history"),
        )
        return item

    def _history_put(self, fact: Fact, event: HistoryEvent) -> dict[str, Any]:
        return {"Put": {"TableName": self._table, "Item": self._history_item(event)}}

    def _key(self, tenant_id: str, memory_id: str) -> Item:
        return {"pk": _s(memory_pk(tenant_id, memory_id)), "sk": _s(FACT_SK)}

    # -- reads -------------------------------------------------------------------------------------

    def get(self, tenant_id: str, memory_id: str, include_closed: bool = False) -> Fact:
        with aws_errors(self._table):
            resp = self._db.get_item(TableName=self._table, Key=self._key(tenant_id, memory_id), ConsistentRead=True)
        item = resp.get("Item")
        if item is None:
            raise NotFoundError("memory", memory_id)
        fact = Fact.model_validate(plain_item(item))
        if not include_closed and not fact.is_current:
            raise NotFoundError("memory", memory_id)
        return fact

    def get_many(self, tenant_id: str, memory_ids: Sequence[str]) -> list[Fact]:
        wanted = list(dict.fromkeys(memory_ids))  # BatchGetItem rejects duplicate keys
        found: dict[str, Fact] = {}
        for item in batch_get(self._db, self._table, [self._key(tenant_id, mid) for mid in wanted]):
            fact = Fact.model_validate(plain_item(item))
            if fact.is_current and fact.tenant_id == tenant_id:
                found[fact.id] = fact
        return [found[mid] for mid in wanted if mid in found]

    def list_current(
        self,
        tenant_id: str,
        user_id: str,
        limit: int = 100,
        cursor: str | None = None,
        filters: SearchFilters | None = None,
    ) -> Page:
        if limit < 1:
            raise ValidationError("limit", "must be at least 1")
        partition = user_gsi_pk(tenant_id, user_id)
        params: dict[str, Any] = {
            "TableName": self._table,
            "IndexName": USER_INDEX,
            "KeyConditionExpression": "gsi1pk = :u",
            "ExpressionAttributeValues": {":u": _s(partition)},
            "ScanIndexForward": False,  # newest first
        }
        has_filter = add_filters(params, filters)
        start = decode_cursor(cursor, _CURSOR_KEYS, "gsi1pk", partition) if cursor else None
        found: list[Item] = []
        # Read one item past the page so that next_cursor is None exactly when nothing is left.
        while len(found) <= limit:
            need = limit + 1 - len(found)
            params["Limit"] = max(need, _FILTERED_PAGE) if has_filter else need
            if start is not None:
                params["ExclusiveStartKey"] = start
            with aws_errors(self._table):
                resp = self._db.query(**params)
            found.extend(resp.get("Items", []))
            start = resp.get("LastEvaluatedKey")
            if not start:
                break
        page = found[:limit]
        next_cursor = encode_cursor(page[-1], _CURSOR_KEYS) if len(found) > limit else None
        return Page(items=[Fact.model_validate(plain_item(i)) for i in page], next_cursor=next_cursor)

    def list_as_of(
        self,
        tenant_id: str,
        user_id: str,
        as_of: datetime,
        limit: int = 100,
        cursor: str | None = None,
        filters: SearchFilters | None = None,
    ) -> Page:
        return list_as_of(self._db, self._table, user_gsi_pk(tenant_id, user_id), as_of, limit, cursor, filters)

    def list_versions(self, tenant_id: str, user_id: str, limit: int = 100, cursor: str | None = None) -> Page:
        return list_versions(self._db, self._table, user_gsi_pk(tenant_id, user_id), limit, cursor)

    def add_versions(self, versions: Sequence[Fact]) -> None:
        self._put_all([self._fact_item(v, f"V#{v.version:08d}") for v in versions])

    def add_history(self, events: Sequence[HistoryEvent]) -> None:
        self._put_all([self._history_item(e) for e in events])

    def _put_all(self, items: list[Item]) -> None:
        if items:
            with aws_errors(self._table):
                batch_put(self._db, self._table, items)

    def history(self, tenant_id: str, memory_id: str) -> list[HistoryEvent]:
        params: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :h)",
            "ExpressionAttributeValues": {":pk": _s(memory_pk(tenant_id, memory_id)), ":h": _s("H#")},
            "ScanIndexForward": True,
            "ConsistentRead": True,
        }
        events: list[HistoryEvent] = []
        while True:
            with aws_errors(self._table):
                resp = self._db.query(**params)
            events.extend(HistoryEvent.model_validate(plain_item(i)) for i in resp.get("Items", []))
            last = resp.get("LastEvaluatedKey")
            if not last:
                return events
            params["ExclusiveStartKey"] = last

    def history_page(self, tenant_id: str, memory_id: str, limit: int, cursor: str | None = None) -> HistoryPage:
        """One page of history, oldest first; reads one event past the page so that next_cursor is
        None exactly when nothing is left."""
        partition = memory_pk(tenant_id, memory_id)
        params: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :h)",
            "ExpressionAttributeValues": {":pk": _s(partition), ":h": _s("H#")},
            "ScanIndexForward": True,
            "ConsistentRead": True,
            "Limit": limit + 1,
        }
        if cursor:
            params["ExclusiveStartKey"] = decode_cursor(cursor, _HISTORY_CURSOR_KEYS, "pk", partition)
        with aws_errors(self._table):
            items = self._db.query(**params).get("Items", [])
        page = items[:limit]
        next_cursor = encode_cursor(page[-1], _HISTORY_CURSOR_KEYS) if len(items) > limit else None
        return HistoryPage(items=[HistoryEvent.model_validate(plain_item(i)) for i in page], next_cursor=next_cursor)

    # -- writes ------------------------------------------------------------------------------------

    def add(self, fact: Fact, event: HistoryEvent) -> bool:
        put_fact: dict[str, Any] = {
            "Put": {
                "TableName": self._table,
                "Item": self._fact_item(fact),
                "ConditionExpression": "attribute_not_exists(pk)",
            }
        }
        with aws_errors(self._table):
            try:
                self._db.transact_write_items(TransactItems=_transact_items(put_fact, self._history_put(fact, event)))
            except ClientError as err:
                if _fact_condition_failed(err):
                    return False  # the fact exists: a replay of work already done
                raise
        return True

    def add_many(self, pairs: Sequence[tuple[Fact, HistoryEvent]]) -> list[bool]:
        """add() for many facts in as few transactions as DynamoDB allows (two items per fact). A
        fact that exists already (a replay) is left as it is and reported False, like add()."""

        new = {"TableName": self._table, "ConditionExpression": "attribute_not_exists(pk)"}
        put = [{"Put": {**new, "Item": self._fact_item(f)}} for f, _ in pairs]
        return self._transact_pairs([[p, self._history_put(f, e)] for p, (f, e) in zip(put, pairs, strict=True)])

    def close_many(self, pairs: Sequence[tuple[Fact, HistoryEvent]], valid_to: datetime) -> list[bool]:
        """close() for many facts, 50 per transaction. A fact changed or closed since it was read is
        left as it is and reported False (the caller reads it again if it still wants it closed).
        Each fact is put whole as read, closed (a conditional Put costs DynamoDB the same as an
        Update and moto a fifth of it); access stats recorded since the read are not kept."""
        now = utcnow()
        pairs_items = []
        for fact, event in pairs:
            closed = fact.model_copy(update={"valid_to": valid_to, "updated_at": now, "version": fact.version + 1})
            put = {"TableName": self._table, "Item": self._fact_item(closed), **_unchanged_since_read(fact)}
            pairs_items.append([{"Put": put}, self._history_put(fact, event)])
        return self._transact_pairs(pairs_items)

    def _transact_pairs(self, pairs: list[list[dict[str, Any]]]) -> list[bool]:
        """Writes (conditional fact item, history item) pairs in transactions of 50 pairs; a pair
        whose fact condition fails is dropped and the rest of its transaction retried. True where written."""
        written = [True] * len(pairs)
        for start in range(0, len(pairs), _FACTS_PER_TRANSACTION):
            chunk = list(range(start, min(start + _FACTS_PER_TRANSACTION, len(pairs))))
            while chunk:
                with aws_errors(self._table):
                    try:
                        items = [item for i in chunk for item in pairs[i]]
                        self._db.transact_write_items(TransactItems=_transact_items(*items))
                        break
                    except ClientError as err:
                        reasons = cancellation_codes(err) if error_code(err) == "TransactionCanceledException" else []
                        # Fact items are the even ones; their failed condition means "not as expected".
                        failed = {chunk[k // 2] for k in range(0, len(reasons), 2) if reasons[k] == _CONDITION_FAILED}
                        if not failed:
                            raise
                for i in failed:
                    written[i] = False
                chunk = [i for i in chunk if i not in failed]
        return written

    def replace(self, previous: Fact, new: Fact, event: HistoryEvent) -> None:
        if new.id != previous.id or new.tenant_id != previous.tenant_id:
            raise ValueError("replace() needs the same memory id and tenant for previous and new")
        if new.version != previous.version + 1:
            raise ValueError(f"new.version must be {previous.version + 1}, got {new.version}")
        closed = previous.model_copy(update={"valid_to": previous.valid_to or new.valid_from})
        put_new = {
            "Put": {
                "TableName": self._table,
                "Item": self._fact_item(new),
                "ConditionExpression": "#version = :expected",
                "ExpressionAttributeNames": {"#version": "version"},
                "ExpressionAttributeValues": {":expected": {"N": str(previous.version)}},
            }
        }
        put_old = {"Put": {"TableName": self._table, "Item": self._fact_item(closed, f"V#{previous.version:08d}")}}
        self._transact([put_new, put_old, self._history_put(new, event)], previous)

    def close(self, fact: Fact, valid_to: datetime, event: HistoryEvent) -> None:
        self._transact([self._close_update(fact, valid_to), self._history_put(fact, event)], fact)

    def _close_update(self, fact: Fact, valid_to: datetime) -> dict[str, Any]:
        condition = _unchanged_since_read(fact)
        return {
            "Update": {
                "TableName": self._table,
                "Key": self._key(fact.tenant_id, fact.id),
                "UpdateExpression": (
                    "SET #valid_to = :valid_to, #updated_at = :now, #version = #version + :one REMOVE gsi1pk, gsi1sk"
                ),
                "ConditionExpression": condition["ConditionExpression"],
                "ExpressionAttributeNames": {**condition["ExpressionAttributeNames"], "#updated_at": "updated_at"},
                "ExpressionAttributeValues": {
                    **condition["ExpressionAttributeValues"],
                    ":valid_to": _SER.serialize(_json_datetime(valid_to)),
                    ":now": _SER.serialize(_json_datetime(utcnow())),
                    ":one": {"N": "1"},
                },
            }
        }

    def _transact(self, items: list[dict[str, Any]], expected: Fact) -> None:
        with aws_errors(self._table):
            try:
                self._db.transact_write_items(TransactItems=_transact_items(*items))
            except ClientError as err:
                if _fact_condition_failed(err):
                    raise ConflictError(
                        f"memory {expected.id!r} is no longer at version {expected.version} (or is closed)"
                    ) from err
                raise

    def touch(self, tenant_id: str, uses: Mapping[str, int], when: datetime) -> None:
        stamp = _SER.serialize(_json_datetime(when))
        with aws_errors(self._table):
            for memory_id, count in uses.items():
                try:
                    self._db.update_item(
                        TableName=self._table,
                        Key=self._key(tenant_id, memory_id),
                        UpdateExpression="SET #last = :when, #count = if_not_exists(#count, :zero) + :uses",
                        ConditionExpression="attribute_exists(pk)",  # never create a stub for a missing id
                        ExpressionAttributeNames={"#last": "last_accessed_at", "#count": "access_count"},
                        ExpressionAttributeValues={":when": stamp, ":zero": {"N": "0"}, ":uses": {"N": str(count)}},
                    )
                except ClientError as err:
                    if error_code(err) == "ConditionalCheckFailedException":
                        continue  # deleted meanwhile: nothing to record
                    raise


def _unchanged_since_read(fact: Fact) -> dict[str, Any]:
    """The condition that the stored fact is still current at the version read."""
    return {
        "ConditionExpression": "#version = :expected AND attribute_not_exists(#valid_to)",
        "ExpressionAttributeNames": {"#version": "version", "#valid_to": "valid_to"},
        "ExpressionAttributeValues": {":expected": {"N": str(fact.version)}},
    }


def _json_datetime(dt: datetime) -> str:
    # The same text pydantic writes for Fact datetimes, so stored attributes stay uniform.
    text: str = _DATETIME.dump_python(dt, mode="json")
    return text


def _transact_items(*items: dict[str, Any]) -> list[TransactWriteItemTypeDef]:
    # The items are built as plain dicts; the stubs want TypedDicts of the same shape.
    return cast("list[TransactWriteItemTypeDef]", list(items))


def _fact_condition_failed(err: ClientError) -> bool:
    """True when the transaction was cancelled by the condition on the FACT item (always first)."""
    if error_code(err) != "TransactionCanceledException":
        return False
    reasons = cancellation_codes(err)
    return bool(reasons) and reasons[0] == "ConditionalCheckFailed"
