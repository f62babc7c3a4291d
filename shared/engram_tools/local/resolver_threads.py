"""The current event of Powertools' REST resolver, per thread, for the local stack.

Powertools keeps the event being resolved on a class attribute (`BaseRouter.current_event`), one per
process. That is right on Lambda, where a process serves one event at a time; the local stack runs
several instances of the API function as threads of one process, so a handler could read another
request's event: another add's body, another tenant's authorizer context. Installed before the
handlers load, this gives every resolver the event its own thread is resolving.
"""

from __future__ import annotations

import threading
from typing import Any

from aws_lambda_powertools.event_handler.api_gateway import ApiGatewayResolver
from aws_lambda_powertools.utilities.data_classes.common import BaseProxyEvent

_current = threading.local()
_installed = False


def install() -> None:
    """Idempotent; affects this process's resolvers (the local stack's, never a deployed function's)."""
    global _installed
    if _installed:
        return
    resolve = ApiGatewayResolver.resolve

    def resolve_on_this_thread(self: ApiGatewayResolver, event: Any, context: Any) -> Any:
        raw = event.raw_event if isinstance(event, BaseProxyEvent) else event
        _current.event = self._to_proxy_event(raw)
        _current.context = context
        return resolve(self, event, context)

    ApiGatewayResolver.resolve = resolve_on_this_thread  # type: ignore[method-assign]
    # Found before BaseRouter's shared class attribute when a resolver reads `self.current_event`.
    ApiGatewayResolver.current_event = property(_get("event"), _set("event"))  # type: ignore[assignment]
    ApiGatewayResolver.lambda_context = property(_get("context"), _set("context"))  # type: ignore[assignment]
    _installed = True


def _get(name: str) -> Any:
    def get(_: ApiGatewayResolver) -> Any:
        return getattr(_current, name)

    return get


def _set(name: str) -> Any:
    def set_(_: ApiGatewayResolver, value: Any) -> None:
        setattr(_current, name, value)

    return set_
