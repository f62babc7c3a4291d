"""UserDirectory on the memory table: one item per user of a tenant, in the tenant's `shards` partitions.

Keys: pk=T#{tenant}#M#USERS (shard 0, the unsharded key) or T#{tenant}#M#USERS#s{n}, the shard the
crc32 of the user id picks; sk=U#{user_id}. `last_active_at` is overwritten as the worker finishes a
user's adds. Every add writes its user's entry, so one partition per tenant took all of a busy
tenant's adds (~1,000 writes a second per partition); sharded, a tenant's adds spread over `shards`.
Listing a tenant's users is one Query per shard, merged in user id order (never a Scan of memories).
A user's entry may sit in two shards after the setting changed (or from before sharding): the
listing shows the user once, with the later time, and forgetting a user deletes it in every shard."""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from engram.adapters.aws.clients import aws_errors
from engram.adapters.dynamo.batch import batch_delete
from engram.adapters.dynamo.cursor import decode_cursor, encode_cursor
from engram.adapters.dynamo.fact_store import memory_pk
from engram.adapters.dynamo.shards import shard_key, shard_keys
from engram.adapters.dynamo.values import iso
from engram.domain.models import UserActivity, UserPage

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient

_KEYS = ("pk", "sk")
_USER_PREFIX = "U#"


def users_pk(tenant_id: str) -> str:
    # memory_pk checks the tenant id (no "#"); "USERS" is never a memory id (those are uuid4s)
    return memory_pk(tenant_id, "USERS")


class DynamoUserDirectory:
    def __init__(self, client: DynamoDBClient, table: str, shards: int = 1) -> None:
        self._db = client
        self._table = table
        self._shards = max(1, shards)

    def _pk(self, tenant_id: str, user_id: str) -> str:
        return shard_key(users_pk(tenant_id), zlib.crc32(user_id.encode()) % self._shards)

    @property
    def table(self) -> str:
        return self._table

    def entry(self, tenant_id: str, user_id: str, when: datetime) -> dict[str, Any]:
        """The user's item, for a caller that writes it in a batch with other items (DynamoFinishedRuns)."""
        return {
            "pk": {"S": self._pk(tenant_id, user_id)},
            "sk": {"S": _USER_PREFIX + user_id},
            "item_type": {"S": "user"},
            "user_id": {"S": user_id},
            "last_active_at": {"S": iso(when)},
        }

    def touch(self, tenant_id: str, user_id: str, when: datetime) -> None:
        with aws_errors("dynamodb"):
            self._db.put_item(TableName=self._table, Item=self.entry(tenant_id, user_id, when))

    def forget(self, tenant_id: str, user_id: str) -> None:
        keys = [
            {"pk": {"S": pk}, "sk": {"S": _USER_PREFIX + user_id}}
            for pk in shard_keys(users_pk(tenant_id), self._shards)
        ]
        if len(keys) == 1:
            with aws_errors("dynamodb"):
                self._db.delete_item(TableName=self._table, Key=keys[0])
        else:
            batch_delete(self._db, self._table, keys)  # one request for up to 25 shards

    def list(self, tenant_id: str, limit: int, cursor: str | None = None) -> UserPage:
        """Each shard's first `limit` entries after the cursor, merged: a user among the page's first
        `limit` has all its entries among them (fewer than `limit` users sort before it in any shard)."""
        base = users_pk(tenant_id)
        after = decode_cursor(cursor, _KEYS, "pk", base)["sk"]["S"] if cursor else None
        latest: dict[str, datetime] = {}
        more = False
        for pk in shard_keys(base, self._shards):
            items, truncated = self._query(pk, after, limit)
            more = more or truncated
            for i in items:
                when = datetime.fromisoformat(i["last_active_at"]["S"])
                user_id = i["user_id"]["S"]
                latest[user_id] = max(latest.get(user_id, when), when)
        users = sorted(latest)
        page, more = users[:limit], more or len(users) > limit
        found = [UserActivity(user_id=u, last_active_at=latest[u]) for u in page]
        last = {"pk": {"S": base}, "sk": {"S": _USER_PREFIX + page[-1]}} if page and more else None
        return UserPage(items=found, next_cursor=encode_cursor(last, _KEYS) if last else None)

    def _query(self, pk: str, after: str | None, limit: int) -> tuple[Sequence[dict[str, Any]], bool]:
        """One shard's first `limit` entries after `after` (an sk), and whether it has more."""
        query: dict[str, Any] = {"TableName": self._table, "Limit": limit}
        if after is None:
            query["KeyConditionExpression"] = "pk = :pk AND begins_with(sk, :u)"
            query["ExpressionAttributeValues"] = {":pk": {"S": pk}, ":u": {"S": _USER_PREFIX}}
        else:  # the partition holds only user entries: every sk after the cursor's is one
            query["KeyConditionExpression"] = "pk = :pk AND sk > :after"
            query["ExpressionAttributeValues"] = {":pk": {"S": pk}, ":after": {"S": after}}
        with aws_errors("dynamodb"):
            reply = self._db.query(**query)
        return reply.get("Items", []), "LastEvaluatedKey" in reply
