"""The worker's minute log line while busy: processed, failed, average duration, queue pending."""

from __future__ import annotations

import pytest

from engram.domain.errors import TransientError
from engram.operations.busy_log import BusyLog
from tests.fakes import Clock


def test_one_line_a_minute_with_the_minutes_figures(caplog: pytest.LogCaptureFixture) -> None:
    clock = Clock()
    log = BusyLog(pending=lambda: 7, clock=clock)
    lines = []
    for step, (ok, seconds) in enumerate([(True, 2.0), (True, 4.0), (False, 1.0), (True, 3.0)] * 5):
        clock.now = 1000.0 + step * 6  # a task every 6 s: 20 tasks over 114 s
        line = log.finished(ok, seconds)
        if line is not None:
            lines.append(line)
    assert len(lines) == 1  # the second minute is not over yet
    assert lines[0] == {"processed": 8, "failed": 3, "avg_duration_s": 3.0, "queue_pending": 7, "window_s": 60.0}
    assert "extraction queue metrics: 8 processed, 3 failed, avg 3.0s, 7 pending" in caplog.text

    clock.now = 1000.0 + 125
    line = log.finished(True, 5.0)
    assert line is not None and (line["processed"], line["failed"]) == (8, 2)  # counted since the last line


def test_an_idle_worker_writes_nothing() -> None:
    clock = Clock()
    clock.now = 0.0
    log = BusyLog(pending=lambda: 0, clock=clock)
    assert log.finished(True, 1.0) is None
    clock.now = 59.9
    assert log.finished(True, 1.0) is None


def test_the_line_goes_out_without_the_queue_when_it_cannot_be_read() -> None:
    def unreachable() -> int:
        raise TransientError("cannot reach the queue")

    clock = Clock()
    clock.now = 0.0
    log = BusyLog(pending=unreachable, clock=clock)
    log.finished(False, 1.0)
    clock.now = 61
    line = log.finished(False, 1.0)
    assert line is not None and line["queue_pending"] is None and line["avg_duration_s"] == 0.0
