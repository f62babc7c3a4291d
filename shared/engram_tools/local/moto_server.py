"""moto as a server on 127.0.0.1, in this process, with a hook that sees every request.

This is what moto's ThreadedMotoServer does (moto's dispatcher app on a threaded werkzeug server),
plus one WSGI wrapper: the persistence layer must learn which tables and buckets changed, whoever
changed them (our handlers, the poller, or a user's `aws --endpoint-url ...`).
"""

from __future__ import annotations

import base64
import functools
import io
import logging
import threading
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from moto.moto_server.werkzeug_app import DomainDispatcherApplication, MotoRequestHandler, create_backend_app
from werkzeug.serving import make_server

from engram_tools.local import moto_dynamo, moto_sqs, moto_transactions

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment
    from werkzeug.serving import BaseWSGIServer

log = logging.getLogger("engram_tools.local")

# Called after moto handled a request: (WSGI environ, request body or None when not read).
RequestObserver = Callable[[dict[str, Any], bytes | None], None]

_MAX_OBSERVED_BODY = 1024 * 1024  # DynamoDB requests are at most a few MB; S3 bodies are not needed


class _Observed:
    """WSGI wrapper: hands each finished request to the observer (after moto applied it)."""

    def __init__(self, app: WSGIApplication, observer: RequestObserver) -> None:
        self._app = app
        self._observer = observer

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        body: bytes | None = None
        length = int(environ.get("CONTENT_LENGTH") or 0)
        if 0 < length <= _MAX_OBSERVED_BODY:
            body = environ["wsgi.input"].read(length)
            environ["wsgi.input"] = io.BytesIO(body)
        try:
            return self._app(environ, start_response)
        finally:
            self._observer(dict(environ), body)


def _list_moto_modules_once() -> None:
    """moto's dispatcher lists its package folder on disk for every request, under its one lock, to
    route it: the list never changes while running, so it is read once."""
    from moto import backends

    if not hasattr(backends.list_of_moto_modules, "cache_info"):
        modules = tuple(backends.list_of_moto_modules())
        backends.list_of_moto_modules = functools.lru_cache(maxsize=1)(lambda: modules)


class MotoServer:
    def __init__(self, host: str = "127.0.0.1", port: int = 0, observer: RequestObserver | None = None) -> None:
        self._host = host
        self._port = port
        self._observer = observer
        self._server: BaseWSGIServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def endpoint(self) -> str:
        if self._server is None:
            raise RuntimeError("moto server is not running")
        return f"http://{self._host}:{self._server.server_port}"

    def start(self) -> None:
        _list_moto_modules_once()
        moto_transactions.install()
        moto_sqs.install()
        moto_dynamo.install()
        app: Any = DomainDispatcherApplication(create_backend_app)
        if self._observer is not None:
            app = _Observed(app, self._observer)
        # Port 0 asks the OS for a free port; the server is bound before start() returns.
        self._server = make_server(self._host, self._port, app, threaded=True, request_handler=MotoRequestHandler)
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.1}, name="moto-server", daemon=True
        )
        self._thread.start()
        log.info("moto server on %s", self.endpoint)

    def stop(self) -> None:
        if self._server is None:
            return
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = None


class MotoState:
    """moto's backends in this process, used where the AWS API cannot serve (or is too slow for) snapshots.

    SQS has no way to read messages without receiving them (which counts a receive and may redrive
    them to the DLQ), and a paginated Scan over HTTP costs ~0.5 ms per item where reading the table
    costs ~0.02 ms. Items are in DynamoDB's JSON wire format, which is also how moto stores what a
    PutItem request carried, so they go back in through the same backend call PutItem uses.
    This class is the only place that touches moto's internals.
    """

    def __init__(self, region: str, account_id: str) -> None:
        self._region = region
        self._account_id = account_id

    def table_items(self, table_name: str) -> list[dict[str, Any]]:
        from moto.dynamodb.models import dynamodb_backends

        table = dynamodb_backends[self._account_id][self._region].get_table(table_name)
        items: list[Any] = []
        for group in list(table.items.values()):  # copies: the server thread may be writing
            items.extend(list(group.values()) if table.range_key_attr else [group])
        return [item.to_json()["Attributes"] for item in items]

    def put_items(self, table_name: str, items: list[dict[str, Any]]) -> None:
        from moto.dynamodb.models import dynamodb_backends

        backend = dynamodb_backends[self._account_id][self._region]
        for item in items:
            backend.put_item(table_name, item)

    def key_attributes(self, table_name: str) -> list[str]:
        """The table's key attribute names: hash, then range if it has one."""
        table = self._table(table_name)
        return [table.hash_key_attr] + ([table.range_key_attr] if table.range_key_attr else [])

    def get_item(self, table_name: str, key: dict[str, Any]) -> dict[str, Any] | None:
        """The item with primary key `key` (wire format, as a request names it), or None."""
        item = self._table(table_name).get_item(*self._key_values(table_name, key))
        return None if item is None else dict(item.to_json()["Attributes"])

    def delete_item(self, table_name: str, key: dict[str, Any]) -> None:
        self._table(table_name).delete_item(*self._key_values(table_name, key))

    def _key_values(self, table_name: str, key: dict[str, Any]) -> tuple[Any, Any]:
        from moto.dynamodb.models.dynamo_type import DynamoType

        values = [DynamoType(_decoded(key[name])) for name in self.key_attributes(table_name)]
        return values[0], values[1] if len(values) > 1 else None

    def _table(self, table_name: str) -> Any:
        from moto.dynamodb.models import dynamodb_backends

        return dynamodb_backends[self._account_id][self._region].get_table(table_name)

    def queued_ids(self, queue_name: str) -> list[str]:
        """The ids of every message a queue still holds, oldest first (cheaper than the messages)."""
        queue = self._queue(queue_name)
        return [] if queue is None else [m.id for m in list(queue._messages)]

    def queued_messages(self, queue_name: str, only: set[str] | None = None) -> list[dict[str, Any]]:
        """Every message a queue still holds (visible, in flight or delayed), oldest first; `only`: those ids."""
        queue = self._queue(queue_name)
        if queue is None:
            return []
        return [
            {
                "id": m.id,
                "body": m.body,
                "group_id": m.group_id,
                "deduplication_id": m.deduplication_id,
                "attributes": dict(m.message_attributes),
            }
            for m in list(queue._messages)  # a copy: the server thread may be changing the list
            if only is None or m.id in only
        ]

    def _queue(self, queue_name: str) -> Any:
        from moto.sqs.models import sqs_backends

        return sqs_backends[self._account_id][self._region].queues.get(queue_name)


def _decoded(value: dict[str, Any]) -> dict[str, Any]:
    """A key value as moto holds it: requests carry binary as base64, moto keeps the bytes."""
    if isinstance(value.get("B"), str):
        return {"B": base64.b64decode(value["B"])}
    return value
