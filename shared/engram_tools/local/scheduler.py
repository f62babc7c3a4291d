"""Fires the template's Schedule events: rate(...) expressions, counted from when the stack first saw them.

A schedule on a state machine runs its definition (DefinitionSubstitutions applied) with the local
ASL interpreter, whose Lambda tasks call our handlers in-process; a schedule on a function invokes
it with EventBridge's scheduled event. A schedule whose functions have no code yet is skipped
with a log line. Last firing times live in <data_dir>/schedules.json, so restarts keep the rhythm.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engram_tools.local.asl import StateMachineRun, StatesError
from engram_tools.local.lambda_runtime import LocalFunction
from engram_tools.local.names import ACCOUNT_ID, physical_name
from engram_tools.local.persistence import write_atomic
from engram_tools.local.template import Schedule, Template, target

log = logging.getLogger("engram_tools.local")

_RATE = re.compile(r"^rate\((\d+)\s+(minute|minutes|hour|hours|day|days)\)$")
_UNIT_S = {"minute": 60, "hour": 3600, "day": 86400}


def rate_seconds(expression: str) -> int | None:
    """Seconds between firings of a rate() expression; None for anything else (cron)."""
    match = _RATE.match(expression.strip())
    if not match:
        return None
    return int(match.group(1)) * _UNIT_S[match.group(2).rstrip("s")]


class Scheduler:
    def __init__(self, template: Template, functions: dict[str, LocalFunction], data_dir: Path, region: str) -> None:
        self._template = template
        self._functions = functions
        self._by_arn = {f.arn: f for f in functions.values()}
        self._state_path = data_dir / "schedules.json"
        self._region = region
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._due: dict[str, tuple[Schedule, int]] = {}
        for schedule in template.schedules:
            period = self._usable(schedule)
            if period is not None:
                self._due[schedule.name] = (schedule, period)

    def _usable(self, schedule: Schedule) -> int | None:
        if not schedule.enabled:
            return None
        period = rate_seconds(schedule.expression)
        if period is None:
            log.info("schedule %s: %s is not supported locally; skipped", schedule.name, schedule.expression)
            return None
        missing = [f.spec.module_file for f in self._targets(schedule) if not f.exists]
        if missing:
            log.info("schedule %s skipped: %s does not exist", schedule.name, ", ".join(map(str, missing)))
            return None
        return period

    def _targets(self, schedule: Schedule) -> list[LocalFunction]:
        machine = self._template.state_machines.get(schedule.target)
        if machine is None:
            return [self._functions[schedule.target]]
        ids = [target(v) for v in machine.substitutions.values()]
        return [self._functions[i] for i in ids if i in self._functions]

    def start(self) -> None:
        if not self._due:
            return
        self._thread = threading.Thread(target=self._run, name="scheduler", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def _run(self) -> None:
        last = self._load()
        now = time.time()
        for name, (schedule, period) in self._due.items():
            last.setdefault(name, now)  # like EventBridge: the first firing is one period after creation
            when = datetime.fromtimestamp(last[name] + period, UTC).isoformat(timespec="seconds")
            log.info("schedule %s (%s): next run %s", name, schedule.expression, when)
        self._save(last)
        while not self._stop.wait(1.0):
            for name, (schedule, period) in self._due.items():
                if time.time() >= last[name] + period:
                    last[name] = time.time()
                    self._save(last)
                    self.fire(schedule)

    def fire(self, schedule: Schedule) -> Any:
        """Runs one firing now; failures are logged (EventBridge does not retry a failed execution)."""
        event: Any = json.loads(schedule.input) if schedule.input else self._scheduled_event(schedule)
        machine = self._template.state_machines.get(schedule.target)
        try:
            if machine is None:
                result = self._functions[schedule.target].invoke(event)
            else:
                result = self.run_machine(machine.logical_id, event, str(uuid.uuid4()))
        except StatesError as err:
            log.error("schedule %s failed: %s", schedule.name, err)
            return None
        except Exception:  # logged; one failed firing must not stop the scheduler
            log.exception("schedule %s failed", schedule.name)
            return None
        log.info("schedule %s done: %.300s", schedule.name, json.dumps(result, default=str))
        return result

    def execution_arn(self, machine_id: str, name: str) -> str:
        return f"arn:aws:states:{self._region}:{ACCOUNT_ID}:execution:{physical_name(machine_id)}:{name}"

    def run_machine(self, machine_id: str, event: Any, name: str) -> Any:
        """Runs a state machine of the template to its end; its output, or StatesError."""
        machine = self._template.state_machines[machine_id]
        text = machine.definition_file.read_text(encoding="utf-8")
        for key, value in machine.substitutions.items():
            logical = target(value)
            replacement = self._functions[logical].arn if logical in self._functions else str(value)
            text = text.replace("${" + key + "}", replacement)
        return StateMachineRun(json.loads(text), self._invoke, self.execution_arn(machine_id, name)).run(event)

    def _invoke(self, function: str, payload: Any) -> Any:
        local = self._by_arn.get(function) or next(
            (f for f in self._functions.values() if physical_name(f.spec.logical_id) == function), None
        )
        if local is None:
            raise StatesError("Lambda.ResourceNotFoundException", f"no local function {function}")
        return local.invoke(payload)

    def _scheduled_event(self, schedule: Schedule) -> dict[str, Any]:
        return {
            "version": "0",
            "id": str(uuid.uuid4()),
            "detail-type": "Scheduled Event",
            "source": "aws.events",
            "account": ACCOUNT_ID,
            "time": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "region": self._region,
            "resources": [f"arn:aws:events:{self._region}:{ACCOUNT_ID}:rule/{schedule.name}"],
            "detail": {},
        }

    def _load(self) -> dict[str, float]:
        if not self._state_path.exists():
            return {}
        saved: dict[str, float] = json.loads(self._state_path.read_text(encoding="utf-8"))
        return saved

    def _save(self, last: dict[str, float]) -> None:
        write_atomic(self._state_path, json.dumps(last, indent=1).encode("utf-8"))
