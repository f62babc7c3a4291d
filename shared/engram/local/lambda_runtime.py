"""Run a function's handler in this process the way one warm Lambda container would.

Each function directory is its own code root with its own `app.py`, so handlers are loaded by
file under a unique module name (none of ours imports a sibling module). One lock per function:
a container serves one event at a time, and the handlers keep per-invocation state in module
globals (Powertools resolver, logger keys).
"""

from __future__ import annotations

import importlib.util
import os
import sys
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engram.local.names import function_arn, physical_name
from engram.local.template import Function

Handler = Callable[[Any, Any], Any]


@dataclass
class LambdaContext:
    """The attributes and method of Lambda's context object that handlers and Powertools read."""

    function_name: str
    memory_limit_in_mb: int
    invoked_function_arn: str
    timeout_s: int
    aws_request_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    function_version: str = "$LATEST"
    log_group_name: str = ""
    log_stream_name: str = "local"
    identity: Any = None
    client_context: Any = None
    _started: float = field(default_factory=time.monotonic)

    def __post_init__(self) -> None:
        self.log_group_name = self.log_group_name or f"/aws/lambda/{self.function_name}"

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._started + self.timeout_s - time.monotonic()) * 1000))


class LocalFunction:
    def __init__(self, spec: Function, region: str) -> None:
        self.spec = spec
        self.region = region
        self.arn = function_arn(region, spec.logical_id)
        self._lock = threading.Lock()
        self._handler: Handler | None = None

    @property
    def exists(self) -> bool:
        return self.spec.module_file.is_file()

    def load(self) -> Handler:
        """Imports the handler module once (its module-level code is the cold start).

        The function's own literal environment variables (e.g. POWERTOOLS_SERVICE_NAME) are set
        while it imports, so that what it reads at import time is its own, as in its container.
        """
        if self._handler is None:
            path = self.spec.module_file
            spec = importlib.util.spec_from_file_location(f"engram_local_fn_{self.spec.logical_id}", path)
            if spec is None or spec.loader is None:
                raise ImportError(f"cannot load {path}")
            module = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = module  # as an import would: pydantic resolves annotations through it
            saved = {k: os.environ.get(k) for k in self.spec.environment}
            os.environ.update(self.spec.environment)
            try:
                spec.loader.exec_module(module)
            finally:
                for key, value in saved.items():
                    if value is None:
                        os.environ.pop(key, None)
                    else:
                        os.environ[key] = value
            handler: Handler = getattr(module, self.spec.attribute)
            self._handler = handler
        return self._handler

    def context(self) -> LambdaContext:
        return LambdaContext(
            function_name=physical_name(self.spec.logical_id),
            memory_limit_in_mb=self.spec.memory_mb,
            invoked_function_arn=self.arn,
            timeout_s=self.spec.timeout_s,
        )

    def invoke(self, event: Any) -> Any:
        """Calls the handler with a fresh context; its exceptions propagate (the caller decides)."""
        with self._lock:
            handler = self.load()
            return handler(event, self.context())
