"""moto's SQS made cheap per request: a long poll that waits instead of spinning, a cheap clock.

moto's ReceiveMessage with WaitTimeSeconds waits on the queue's condition "until some message is
visible". On a FIFO queue whose visible messages all belong to groups with a message in flight (one
user's adds while a poller works on that user), that condition holds at once, so every other poller
re-scans the queue in a tight loop for the whole wait: several pollers then burn most of the
process's CPU doing nothing. Here the wait ends when a message is sent (moto notifies) or after a
short recheck interval (messages becoming visible again, groups released), and never spins.

A receive from a FIFO queue takes visible messages in queue order, whatever their group; SQS first
returns as many messages of one group as it can. With several users' adds interleaved, moto's
batches held one message per user, so each task ran alone; here a receive sees the visible
messages group by group (groups in the order of their oldest message, each in its own order), so a
batch holds a user's run of adds, which the worker merges, as it would on AWS.

Every scan also asks each message whether it is visible, which reads moto's clock: a naive UTC
datetime built and subtracted from the epoch, ten times the cost of time.time() it equals.
"""

from __future__ import annotations

import time

from moto.core import utils as core_utils
from moto.sqs import models as sqs_models
from moto.sqs.models import Message, Queue

_RECHECK_S = 0.05  # a released group or an expired visibility timeout is seen within this


def _unix_time(dt: object = None) -> float:
    return time.time() if dt is None else core_utils.unix_time(dt)  # type: ignore[arg-type]


def _unix_time_millis(dt: object = None) -> float:
    return time.time() * 1000.0 if dt is None else core_utils.unix_time_millis(dt)  # type: ignore[arg-type]


def _wait_for_messages(self: Queue, timeout: int) -> None:
    with self._messages_lock:
        self._messages_lock.wait(timeout=min(timeout, _RECHECK_S))


def _messages(self: Queue) -> list[Message]:
    visible = [m for m in self._messages if m.visible and not m.delayed]
    if not self.fifo_queue:
        return visible
    groups: dict[str | None, list[Message]] = {}
    for message in visible:
        groups.setdefault(message.group_id, []).append(message)
    return [message for group in groups.values() for message in group]


def install() -> None:
    """Replaces Queue.wait_for_messages, Queue.messages and the SQS models' clock in this process (idempotent)."""
    Queue.wait_for_messages = _wait_for_messages  # type: ignore[method-assign]
    Queue.messages = property(_messages)  # type: ignore[assignment,method-assign]
    sqs_models.unix_time = _unix_time  # type: ignore[attr-defined]
    sqs_models.unix_time_millis = _unix_time_millis  # type: ignore[attr-defined]
