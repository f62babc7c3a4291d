"""Which DynamoDB items (and whether S3) changed, learnt from the requests moto serves.

Fed by the moto server's request hook (moto_server.py), so a change made by anyone (handlers, poller,
a user's aws CLI) is seen. Item writes name their items (PutItem's item, the key of an UpdateItem or
DeleteItem, each of a batch or transaction): the snapshotter saves those items alone. Any other
write (PartiQL, table changes, a body too large to read here) marks its tables, or every table, to be
rewritten whole.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from typing import Any

_DYNAMO_READS = frozenset(
    {
        "GetItem",
        "BatchGetItem",
        "TransactGetItems",
        "Query",
        "Scan",
        "DescribeTable",
        "DescribeTimeToLive",
        "DescribeContinuousBackups",
        "DescribeEndpoints",
        "DescribeLimits",
        "ListTables",
        "ListTagsOfResource",
    }
)
_CREDENTIAL = re.compile(r"Credential=[^/]+/\d{8}/[^/]+/([^/]+)/")


@dataclass
class TableChanges:
    """What a save must write: items by key per table, and tables to rewrite whole (None: all)."""

    keys: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # table -> items or keys named
    whole: set[str] | None = field(default_factory=set)


class ChangeTracker:
    """Fed every request moto served; remembers which items (and whether S3) changed since `take`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._changes = TableChanges()
        self._s3 = False

    def observe(self, environ: dict[str, Any], body: bytes | None) -> None:
        method = str(environ.get("REQUEST_METHOD", "GET"))
        target = str(environ.get("HTTP_X_AMZ_TARGET", ""))
        scope = _CREDENTIAL.search(str(environ.get("HTTP_AUTHORIZATION", "")) + str(environ.get("QUERY_STRING", "")))
        service = scope.group(1) if scope else None
        if service == "dynamodb" or target.startswith("DynamoDB_"):
            operation = target.rsplit(".", 1)[-1]
            if operation in _DYNAMO_READS:
                return
            keys = _written_keys(operation, body)
            if keys is not None:
                self.mark_keys(keys)
            else:
                self.mark_tables(_table_names(body))
        elif service == "s3" and method not in ("GET", "HEAD", "OPTIONS"):
            self.mark_s3()

    def mark_keys(self, keys: dict[str, list[dict[str, Any]]]) -> None:
        """Items changed, by table: each an item or a key (a dict holding the key's attributes)."""
        with self._lock:
            for table, named in keys.items():
                self._changes.keys.setdefault(table, []).extend(named)

    def mark_tables(self, names: set[str] | None) -> None:
        """Tables changed in ways not known item by item; `names` None means "some table, unknown which"."""
        with self._lock:
            if names is None:
                self._changes.whole = None
            elif self._changes.whole is not None:
                self._changes.whole |= names

    def mark_s3(self) -> None:
        with self._lock:
            self._s3 = True

    def take(self) -> tuple[TableChanges, bool]:
        """(the tables' changes, whether S3 changed), and forget them."""
        with self._lock:
            changes, s3 = self._changes, self._s3
            self._changes, self._s3 = TableChanges(), False
        return changes, s3


_WRITES = {"PutItem": "Item", "UpdateItem": "Key", "DeleteItem": "Key"}
_TRANSACT = {"Put": "Item", "Update": "Key", "Delete": "Key"}  # ConditionCheck writes nothing


def _written_keys(operation: str, body: bytes | None) -> dict[str, list[dict[str, Any]]] | None:
    """The items a write request names, by table (an item or its key: either holds the key), or None
    when the request is not one of the item writes or cannot be read (its tables are then rewritten)."""
    if operation not in _WRITES and operation not in ("BatchWriteItem", "TransactWriteItems"):
        return None
    try:
        request = json.loads(body or b"")
        keys: dict[str, list[dict[str, Any]]] = {}
        if operation in _WRITES:
            keys[request["TableName"]] = [request[_WRITES[operation]]]
        elif operation == "BatchWriteItem":
            for table, writes in request["RequestItems"].items():
                named = keys.setdefault(table, [])
                for write in writes:
                    named.append(
                        write["PutRequest"]["Item"] if "PutRequest" in write else write["DeleteRequest"]["Key"]
                    )
        else:
            for entry in request["TransactItems"]:
                for kind, op in entry.items():
                    if kind in _TRANSACT:
                        keys.setdefault(op["TableName"], []).append(op[_TRANSACT[kind]])
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    if not all(isinstance(t, str) and all(isinstance(k, dict) for k in named) for t, named in keys.items()):
        return None
    return keys


_TABLE_NAME = re.compile(rb'"TableName"\s*:\s*"([A-Za-z0-9_.-]+)"')


def _table_names(body: bytes | None) -> set[str] | None:
    if body and b'"RequestItems"' not in body:
        # Every other write names its tables in TableName (table names need no JSON escapes);
        # a regex spares parsing a 100-item transaction a second time.
        found = {name.decode("ascii") for name in _TABLE_NAME.findall(body)}
        if found:
            return found
    try:
        request = json.loads(body or b"")
    except ValueError:
        return None
    if not isinstance(request, dict):
        return None
    names = set(request.get("RequestItems") or {})
    if isinstance(request.get("TableName"), str):
        names.add(request["TableName"])
    for item in request.get("TransactItems") or []:
        names.update(op["TableName"] for op in item.values() if isinstance(op, dict) and "TableName" in op)
    return names or None  # PartiQL and the like: unknown, so every table
