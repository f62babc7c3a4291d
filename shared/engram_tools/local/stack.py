"""The local stack: moto, resources from template.yaml, saved state, keys, poller, scheduler, HTTP front.

Order matters: the environment the handlers read (endpoint, resource names, embedded backends) is
set before any handler module is imported, and state is restored before anything is served.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import boto3
from botocore.config import Config

from engram_tools.local.api_gateway import ApiGateway
from engram_tools.local.data_lock import DataFolderLock
from engram_tools.local.http_front import HttpFront
from engram_tools.local.keys import LocalKey, WithLocalKeys, local_keys
from engram_tools.local.lambda_runtime import LocalFunction
from engram_tools.local.moto_process import MotoProcess, SnapshotPlan
from engram_tools.local.names import ACCOUNT_ID
from engram_tools.local.poller import QueuePoller
from engram_tools.local.provision import Provisioned, provision
from engram_tools.local.sam_env import write_env_file
from engram_tools.local.scheduler import Scheduler
from engram_tools.local.template import Api, Template, load_template
from engram_tools.local.websocket import EventHub

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient
    from mypy_boto3_s3.client import S3Client
    from mypy_boto3_sqs.client import SQSClient

    from engram.domain.ports import ApiKeyStore
    from engram.settings import Settings

log = logging.getLogger("engram_tools.local")

# Everything talks to moto only; fake credentials keep a developer's real ones (or an SSO
# profile that would try to refresh) out of it.
_FAKE_AWS = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SESSION_TOKEN": "testing",
}


@dataclass
class StackConfig:
    data_dir: Path
    port: int = 3000
    moto_port: int = 0  # 0: any free port
    host: str = "127.0.0.1"
    template_path: Path = Path("template.yaml")
    region: str = "us-east-1"
    instances: int = 4  # concurrent instances per function, as Lambda scales out under load
    # Save state before answering a write, so a 202 survives kill -9 (costs about a third of the
    # accepted adds per second on a busy 2-core machine); off: saved within a second instead.
    save_before_answer: bool = True
    # How long a request's body may take to arrive in full, from the end of its headers: one declaring
    # more than it sends is answered 408 then, instead of holding its connection until the client gives up.
    body_timeout_s: float = 30.0


@dataclass
class Started:
    url: str
    moto_endpoint: str
    keys: list[LocalKey]
    restored: dict[str, int]
    seconds: float
    env_file: Path


def served_api(api: Api, settings: Settings) -> Api:
    """The template's API with this machine's throttling settings, when set, in place of the template's."""
    return replace(
        api,
        throttle_rate=settings.rate_limit_rps or api.throttle_rate,
        throttle_burst=settings.rate_limit_burst or api.throttle_burst,
        key_requests_per_minute=settings.key_requests_per_minute or api.key_requests_per_minute,
    )


class LocalStack:
    def __init__(self, config: StackConfig) -> None:
        self.config = config
        # moto, and the snapshots that read its memory, in a process of their own (moto_process.py).
        self._moto = MotoProcess(config.host, config.moto_port)
        self._front: HttpFront | None = None
        self._pollers: list[QueuePoller] = []
        self._scheduler: Scheduler | None = None
        self._events: EventHub | None = None
        self.env_file: Path | None = None  # the `sam local invoke --env-vars` file (sam_env.py)
        self._lock = DataFolderLock(config.data_dir)

    def claim(self) -> None:
        """Takes the data folder (DataFolderInUse if another stack holds it); start() claims it too."""
        if not self._lock.held:
            self._lock.acquire()

    def start(self) -> Started:
        started = time.monotonic()
        config = self.config
        self.claim()  # first: a second stack on this folder is refused before it touches anything
        os.environ.update(_FAKE_AWS)
        os.environ.pop("AWS_PROFILE", None)
        # Bound first, so that a taken port fails in a second rather than after the model loads.
        self._front = HttpFront(config.host, config.port, config.body_timeout_s)
        self._moto.start()
        db, sqs, s3 = self._clients()
        template = load_template(config.template_path)
        events = boto3.session.Session(region_name=config.region).client("events", endpoint_url=self._moto.endpoint)
        provisioned = provision(template, db, sqs, s3, events)
        self._set_environment(template, provisioned)
        # Before the slow part (the model), so that it is ready as soon as the path is shown.
        env_file = write_env_file(config.data_dir, config.template_path, os.environ, provisioned, self._moto.endpoint)
        self.env_file = env_file
        log.info("sam local invoke: --env-vars %s", env_file)

        queue_names = {url.rsplit("/", 1)[1]: url for url in provisioned.queue_urls.values()}
        # The tasks table is saved right after the queues (persistence.py says why).
        tables = sorted(provisioned.tables.items(), key=lambda item: item[0] != "TasksTable")
        plan = SnapshotPlan(
            config.data_dir,
            [name for _, name in tables],
            list(provisioned.buckets.values()),
            queue_names,
            config.region,
            ACCOUNT_ID,
        )
        restored = self._moto.restore(plan)  # and from now on, changes are saved
        from engram.settings import get_settings

        keys = local_keys(get_settings().local_api_keys, config.data_dir)

        functions = {i: LocalFunction(spec, config.region, config.instances) for i, spec in template.functions.items()}
        self._warm(template, functions, keys)
        # As Lambda's SQS event source scales out: several concurrent pollers per queue. FIFO order
        # holds, since SQS hands no consumer a message of a group that has one in flight.
        for source in template.queue_sources:
            receive_lock = threading.Lock()  # one receive at a time per queue (see QueuePoller)
            for _ in range(config.instances):
                poller = QueuePoller(
                    sqs,
                    source,
                    provisioned.queue_urls[source.queue],
                    provisioned.queue_arns[source.queue],
                    functions[source.function],
                    config.region,
                    receive_lock=receive_lock,
                )
                poller.start()
                self._pollers.append(poller)
        self._scheduler = Scheduler(template, functions, config.data_dir, config.region)
        self._scheduler.start()
        self._serve_maintenance_runs(template, self._scheduler)
        settings = get_settings()
        durable = self._moto.flush if config.save_before_answer else None
        api = served_api(template.api, settings)
        gateway = ApiGateway(api, functions, config.region, settings.cors_origin_list, durable)
        self._front.start(gateway, self._events)
        seconds = time.monotonic() - started
        return Started(self._front.url, self._moto.endpoint, keys, restored, seconds, env_file)

    def stop(self) -> None:
        """Stops taking requests, lets the batch in hand finish, saves everything, stops moto."""
        if not self._lock.held:
            return  # refused at start (the folder is another stack's): nothing of it to stop or save
        if self._front is not None:
            self._front.stop()
        if self._scheduler is not None:
            self._scheduler.stop()
        for poller in self._pollers:
            poller.stop()
        from engram.bootstrap import container

        container().close()  # the search counts that wait, before moto's last snapshot
        self._moto.stop()  # after a last snapshot
        log.info("state saved in %s", self.config.data_dir)
        self._lock.release()

    def _clients(self) -> tuple[DynamoDBClient, SQSClient, S3Client]:
        session = boto3.session.Session(region_name=self.config.region)
        endpoint = self._moto.endpoint
        s3_config = Config(s3={"addressing_style": "path"})
        return (
            session.client("dynamodb", endpoint_url=endpoint),
            session.client("sqs", endpoint_url=endpoint),
            session.client("s3", endpoint_url=endpoint, config=s3_config),
        )

    def _set_environment(self, template: Template, provisioned: Provisioned) -> None:
        env = {var: provisioned.ref(logical) for var, logical in template.resource_env().items()}
        env.update(
            {
                "AWS_REGION": self.config.region,
                "AWS_DEFAULT_REGION": self.config.region,
                "ENGRAM_AWS_ENDPOINT_URL": self._moto.endpoint,
                "ENGRAM_INDEX_BACKEND": "embedded",
                # The local models only (never OpenAI): MiniLM, or multilingual-e5 when asked for.
                "ENGRAM_EMBEDDER": "multilingual" if os.environ.get("ENGRAM_EMBEDDER") == "multilingual" else "local",
                "ENGRAM_DATA_DIR": str(self.config.data_dir.resolve()),
                "POWERTOOLS_TRACE_DISABLED": "true",
            }
        )
        receives = [template.queues[s.queue].max_receive_count for s in template.queue_sources]
        if receives and receives[0]:
            # The extraction handler marks a task failed on the receive after which SQS redrives it.
            env["ENGRAM_MAX_RECEIVES"] = str(receives[0])
        os.environ.update(env)
        os.environ.setdefault("POWERTOOLS_SERVICE_NAME", "engram-local")
        from engram.settings import get_settings

        get_settings.cache_clear()  # in case anything read settings before this point

    def _serve_maintenance_runs(self, template: Template, scheduler: Scheduler) -> None:
        """POST /v1/maintenance runs the state machine on the local ASL runner instead of Step Functions."""
        from engram.bootstrap import container
        from engram.services.maintenance_runs import MaintenanceRuns
        from engram_tools.local.workflow import MAINTENANCE, LocalWorkflow

        if MAINTENANCE in template.state_machines:
            container().maintenance_runs = MaintenanceRuns(LocalWorkflow(scheduler, MAINTENANCE))

    def _warm(self, template: Template, functions: dict[str, LocalFunction], keys: list[LocalKey]) -> None:
        """Cold-start the functions now (imports, the ONNX model), not on the first request."""
        from engram.bootstrap import container

        stack = container()
        stack.keys = WithLocalKeys(stack.keys, keys)  # replaces the cached property's value
        # Task events go from the in-process handlers straight to the WebSocket hub on the front.
        self._events = EventHub(lambda api_key: _tenant_of(stack.keys, api_key))
        stack.events = self._events
        needed = {r.function for r in template.api.routes}
        needed |= {r.authorizer.function for r in template.api.routes if r.authorizer}
        needed |= {s.function for s in template.queue_sources}
        for name in sorted(needed):
            functions[name].load()
        container().embedder.embed(["warm up"])
        # Built now, once: the instances of several functions share them from many threads.
        container().index  # noqa: B018 - opens the embedded index now
        container().memories  # noqa: B018
        container().worker  # noqa: B018


def _tenant_of(keys: ApiKeyStore, api_key: str | None) -> str | None:
    from engram.http.authorization import authorize

    grant = authorize(keys, api_key)
    return grant.context["tenant_id"] if grant.allowed else None
