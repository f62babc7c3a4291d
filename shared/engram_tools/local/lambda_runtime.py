"""Run a function's handler in this process the way one warm Lambda container would.

Each function directory is its own code root with its own `app.py`, so handlers are loaded by
file under a unique module name (none of ours imports a sibling module). As on Lambda, a function
runs in up to `max_instances` instances at once, each with its own copy of the handler module: an
instance serves one event at a time (the handlers keep per-invocation state in module globals, such
as the Powertools resolver's current event), and a new one is loaded when every instance is busy,
so a slow call never holds up another. What the modules share is the process-wide container
(engram.bootstrap), whose clients and index are thread-safe.
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

from engram_tools.local import resolver_threads
from engram_tools.local.names import function_arn, physical_name
from engram_tools.local.template import Function

Handler = Callable[[Any, Any], Any]

DEFAULT_MAX_INSTANCES = 4
# Loading sets the function's own environment variables for the duration of the import; one load
# at a time, so that two functions never see each other's values.
_LOADING = threading.Lock()


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
    def __init__(self, spec: Function, region: str, max_instances: int = DEFAULT_MAX_INSTANCES) -> None:
        if max_instances < 1:
            raise ValueError("max_instances must be at least 1")
        self.spec = spec
        self.region = region
        self.arn = function_arn(region, spec.logical_id)
        self.max_instances = max_instances
        self._idle: list[Handler] = []
        self._instances = 0
        self._free = threading.Condition()

    @property
    def exists(self) -> bool:
        return self.spec.module_file.is_file()

    @property
    def instances(self) -> int:
        """How many instances have been loaded so far (the cold starts)."""
        return self._instances

    def load(self) -> Handler:
        """Cold-starts one instance now if none is loaded yet (instead of on the first event)."""
        handler = self._acquire()
        self._release(handler)
        return handler

    def context(self) -> LambdaContext:
        return LambdaContext(
            function_name=physical_name(self.spec.logical_id),
            memory_limit_in_mb=self.spec.memory_mb,
            invoked_function_arn=self.arn,
            timeout_s=self.spec.timeout_s,
        )

    def invoke(self, event: Any) -> Any:
        """Calls the handler of an idle instance with a fresh context; its exceptions propagate."""
        handler = self._acquire()
        try:
            return handler(event, self.context())
        finally:
            self._release(handler)

    def _acquire(self) -> Handler:
        with self._free:
            while not self._idle and self._instances >= self.max_instances:
                self._free.wait()
            if self._idle:
                return self._idle.pop()
            self._instances += 1
            number = self._instances
        try:
            return self._import(number)
        except BaseException:
            with self._free:
                self._instances -= 1
                self._free.notify()
            raise

    def _release(self, handler: Handler) -> None:
        with self._free:
            self._idle.append(handler)
            self._free.notify()

    def _import(self, number: int) -> Handler:
        """Imports a fresh copy of the handler module (its module-level code is the cold start).

        The function's own literal environment variables (e.g. POWERTOOLS_SERVICE_NAME) are set
        while it imports, so that what it reads at import time is its own, as in its container.
        """
        path = self.spec.module_file
        name = f"engram_local_fn_{self.spec.logical_id}_{number}"
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load {path}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # as an import would: pydantic resolves annotations through it
        resolver_threads.install()  # its instances resolve on threads of this one process
        with _LOADING:
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
        return handler
