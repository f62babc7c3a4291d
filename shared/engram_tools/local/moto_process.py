"""moto, its change tracker and the snapshotter in a child process of the local stack.

moto is as much Python work as the handlers calling it (parsing, conditions, items), and one
process runs Python on one core at a time: with moto beside the handlers, bulk work used one of the
machine's cores. In its own process moto works while the handlers do, as DynamoDB and SQS are other
machines on AWS. Everything that reads moto's memory directly (MotoState, for the snapshots) runs in
that process too; the parent drives it over a pipe: start, restore the saved state, flush (save before the local front
answers a write), stop (final save).

The child ignores SIGINT (a Ctrl-C reaches the whole process group; the parent decides when to stop
and asks for the final snapshot first) and exits when the parent goes away without asking.
"""

from __future__ import annotations

import logging
import multiprocessing
import signal
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from engram_tools.local.group_commit import GroupCommit

log = logging.getLogger("engram_tools.local")

_START_TIMEOUT_S = 120.0  # importing moto on a busy machine


@dataclass
class SnapshotPlan:
    """What the snapshotter in the child saves and restores (names as provisioned)."""

    data_dir: Path
    tables: list[str]
    buckets: list[str]
    queues: dict[str, str]  # name -> URL
    region: str
    account_id: str


def _serve(host: str, port: int, conn: Connection) -> None:
    """The child: moto on host:port, then commands from the parent until "stop" or its exit."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    from engram_tools.local.change_tracker import ChangeTracker
    from engram_tools.local.moto_server import MotoServer
    from engram_tools.local.persistence import Snapshotter

    tracker = ChangeTracker()
    server = MotoServer(host, port, observer=tracker.observe)
    try:
        server.start()
    except OSError as err:
        conn.send(("error", str(err)))
        return
    conn.send(("ready", server.endpoint))
    snapshotter: Snapshotter | None = None
    try:
        while True:
            try:
                command, argument = conn.recv()
            except EOFError:  # the parent is gone: save what is there, then end
                break
            if command == "restore":
                snapshotter = _snapshotter(argument, server.endpoint, tracker)
                conn.send(("restored", snapshotter.restore()))
                snapshotter.start()
            elif command == "flush" and snapshotter is not None:
                snapshotter.flush()
                conn.send(("flushed", None))
            elif command == "stop":
                break
    finally:
        if snapshotter is not None:
            snapshotter.stop()
        server.stop()
        try:
            conn.send(("stopped", None))
        except (BrokenPipeError, OSError):
            pass


def _snapshotter(plan: SnapshotPlan, endpoint: str, tracker: Any) -> Any:
    import boto3
    from botocore.config import Config

    from engram_tools.local.moto_server import MotoState
    from engram_tools.local.persistence import Snapshotter

    session = boto3.session.Session(region_name=plan.region)
    s3 = session.client("s3", endpoint_url=endpoint, config=Config(s3={"addressing_style": "path"}))
    sqs = session.client("sqs", endpoint_url=endpoint)
    state = MotoState(plan.region, plan.account_id)
    return Snapshotter(plan.data_dir, plan.tables, plan.buckets, plan.queues, (s3, sqs), state, tracker)


class MotoProcess:
    """The parent's handle on the child: the same start/endpoint/stop as MotoServer, plus restore."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self._host = host
        self._port = port
        self._endpoint: str | None = None
        self._conn: Connection | None = None
        self._process: multiprocessing.process.BaseProcess | None = None
        self.flush = GroupCommit(self._flush_once)  # concurrent writers share one save

    @property
    def endpoint(self) -> str:
        if self._endpoint is None:
            raise RuntimeError("moto is not running")
        return self._endpoint

    def start(self) -> None:
        context = multiprocessing.get_context("spawn")  # no copy of the parent's threads and locks
        parent, child = context.Pipe()
        self._process = context.Process(target=_serve, args=(self._host, self._port, child), name="moto", daemon=True)
        self._process.start()
        child.close()
        self._conn = parent
        kind, value = self._reply()
        if kind != "ready":
            raise OSError(f"moto could not start on {self._host}:{self._port}: {value}")
        self._endpoint = str(value)
        log.info("moto server on %s (process %s)", self._endpoint, self._process.pid)

    def restore(self, plan: SnapshotPlan) -> dict[str, int]:
        """Loads the saved state into moto, then saves changes from now on. Returns counts per resource."""
        if self._conn is None:
            raise RuntimeError("moto is not running")
        self._conn.send(("restore", plan))
        kind, value = self._reply()
        if kind != "restored":
            raise RuntimeError(f"moto could not restore the saved state: {value}")
        counts: dict[str, int] = value
        return counts

    def _flush_once(self) -> None:
        """Returns once the child has saved every change made before the call (not fsynced)."""
        if self._conn is None:
            raise RuntimeError("moto is not running")
        self._conn.send(("flush", None))
        kind, value = self._reply()
        if kind != "flushed":
            raise RuntimeError(f"moto could not save its state: {value}")

    def stop(self) -> None:
        """Takes the final snapshot and stops moto; waits for it."""
        conn, process, self._conn = self._conn, self._process, None
        if conn is None or process is None:
            return
        try:
            conn.send(("stop", None))
            if conn.poll(120):
                conn.recv()
        except (BrokenPipeError, EOFError, OSError):
            pass
        process.join(timeout=10)
        if process.is_alive():
            process.kill()
        conn.close()

    def _reply(self) -> tuple[str, Any]:
        if self._conn is None or self._process is None:
            raise RuntimeError("moto is not running")
        if not self._conn.poll(_START_TIMEOUT_S):
            raise RuntimeError("moto did not answer")
        try:
            reply: tuple[str, Any] = self._conn.recv()
        except EOFError as err:
            raise RuntimeError(f"moto exited with {self._process.exitcode}") from err
        return reply
