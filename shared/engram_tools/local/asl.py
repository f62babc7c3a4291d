"""A small Amazon States Language interpreter for the states our definitions use.

moto's Step Functions can run a definition, but its Lambda tasks call moto's Lambda (which runs
code in Docker), not our handlers in this process; so the local stack runs definitions itself.
Supported: Task (`arn:aws:states:::lambda:invoke` or a function ARN), Pass, Wait (Seconds),
Succeed, Fail, Choice (IsNull, IsPresent, StringEquals, BooleanEquals, NumericEquals), Map (items run
one after another); InputPath, Parameters (with `.$` paths, `$$` context), ResultSelector, ResultPath,
OutputPath; Retry and Catch. Paths are `$`, `$.a.b` and `$$.a.b`. TimeoutSeconds is not enforced.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

Invoke = Callable[[str, Any], Any]  # (function ARN, payload) -> the function's return value

LAMBDA_INVOKE = "arn:aws:states:::lambda:invoke"
MAX_TRANSITIONS = 1000  # a definition that loops forever is a bug, not a local workload


class StatesError(Exception):
    def __init__(self, error: str, cause: str = "") -> None:
        super().__init__(f"{error}: {cause}")
        self.error = error
        self.cause = cause


def select(path: str | None, data: Any, context: dict[str, Any]) -> Any:
    if path is None:
        return {}
    root, rest = (context, path[2:]) if path.startswith("$$") else (data, path[1:])
    if not path.startswith("$"):
        raise StatesError("States.Runtime", f"unsupported path {path!r}")
    value = root
    for part in (p for p in rest.split(".") if p):
        if not isinstance(value, dict) or part not in value:
            raise StatesError("States.Runtime", f"path {path!r} not found in the input")
        value = value[part]
    return value


def fill(template: Any, data: Any, context: dict[str, Any]) -> Any:
    """Parameters / ResultSelector: keys ending in `.$` take the value at their path."""
    if isinstance(template, dict):
        out = {}
        for key, value in template.items():
            if key.endswith(".$"):
                out[key[:-2]] = select(value, data, context)
            else:
                out[key] = fill(value, data, context)
        return out
    if isinstance(template, list):
        return [fill(v, data, context) for v in template]
    return template


def put(data: Any, path: str | None, result: Any) -> Any:
    """ResultPath: where the result goes in (a copy of) the state's input."""
    if path is None:
        return data
    if path == "$":
        return result
    if not path.startswith("$."):
        raise StatesError("States.Runtime", f"unsupported ResultPath {path!r}")
    out = copy.deepcopy(data) if isinstance(data, dict) else {}
    node = out
    *parents, last = path[2:].split(".")
    for part in parents:
        node = node.setdefault(part, {})
    node[last] = result
    return out


def _matches(names: list[str], error: str) -> bool:
    return error in names or "States.ALL" in names or ("States.TaskFailed" in names and error != "States.Timeout")


class StateMachineRun:
    def __init__(
        self, definition: dict[str, Any], invoke: Invoke, execution_id: str, sleep: Callable[[float], None] = time.sleep
    ) -> None:
        self._definition = definition
        self._invoke = invoke
        self._sleep = sleep
        self._context: dict[str, Any] = {
            "Execution": {"Id": execution_id, "StartTime": datetime.now(UTC).isoformat()},
            "StateMachine": {"Id": execution_id.rsplit(":", 1)[0]},
        }

    def run(self, execution_input: Any) -> Any:
        """The execution's output; raises StatesError when it fails."""
        self._context["Execution"]["Input"] = execution_input
        name, data = self._definition["StartAt"], execution_input
        for _ in range(MAX_TRANSITIONS):
            state = self._definition["States"][name]
            self._context["State"] = {"Name": name, "EnteredTime": datetime.now(UTC).isoformat()}
            kind = state["Type"]
            if kind == "Fail":
                raise StatesError(state.get("Error", "States.Fail"), state.get("Cause", ""))
            if kind == "Choice":
                name = _choose(state, data, self._context)
                continue
            if kind in ("Task", "Map"):
                try:
                    data = self._task(state, data) if kind == "Task" else self._map(state, data)
                except StatesError as err:
                    catcher = next((c for c in state.get("Catch", []) if _matches(c["ErrorEquals"], err.error)), None)
                    if catcher is None:
                        raise
                    data = put(data, catcher.get("ResultPath", "$"), {"Error": err.error, "Cause": err.cause})
                    name = catcher["Next"]
                    continue
            elif kind == "Pass":
                effective = self._input(state, data)
                data = self._output(state, data, state.get("Result", effective))
            elif kind == "Wait":
                self._sleep(float(state.get("Seconds", 0)))
                data = select(state.get("OutputPath", "$"), data, self._context)
            elif kind == "Succeed":
                return select(state.get("OutputPath", "$"), self._input(state, data), self._context)
            else:
                raise StatesError("States.Runtime", f"state type {kind} is not supported locally")
            if state.get("End"):
                return data
            name = state["Next"]
        raise StatesError("States.Runtime", f"more than {MAX_TRANSITIONS} transitions")

    def _map(self, state: dict[str, Any], data: Any) -> Any:
        """Each item through the iterator in turn: MaxConcurrency only bounds parallelism in AWS."""
        effective = select(state.get("InputPath", "$"), data, self._context)
        items = select(state.get("ItemsPath", "$"), effective, self._context)
        if not isinstance(items, list):
            raise StatesError("States.Runtime", "Map ItemsPath must select an array")
        branch = state.get("ItemProcessor") or state["Iterator"]
        execution_id = self._context["Execution"]["Id"]
        results = [StateMachineRun(branch, self._invoke, execution_id, self._sleep).run(item) for item in items]
        return self._output(state, data, results)

    def _input(self, state: dict[str, Any], data: Any) -> Any:
        effective = select(state.get("InputPath", "$"), data, self._context)
        if "Parameters" in state:
            effective = fill(state["Parameters"], effective, self._context)
        return effective

    def _output(self, state: dict[str, Any], data: Any, result: Any) -> Any:
        if "ResultSelector" in state:
            result = fill(state["ResultSelector"], result, self._context)
        return select(state.get("OutputPath", "$"), put(data, state.get("ResultPath", "$"), result), self._context)

    def _task(self, state: dict[str, Any], data: Any) -> Any:
        attempts: dict[int, int] = {}
        while True:
            try:
                return self._output(state, data, self._call(state, self._input(state, data)))
            except StatesError as err:
                index, retrier = next(
                    ((i, r) for i, r in enumerate(state.get("Retry", [])) if _matches(r["ErrorEquals"], err.error)),
                    (-1, None),
                )
                if retrier is None or attempts.get(index, 0) >= retrier.get("MaxAttempts", 3):
                    raise
                count = attempts[index] = attempts.get(index, 0) + 1
                self._sleep(retrier.get("IntervalSeconds", 1) * retrier.get("BackoffRate", 2.0) ** (count - 1))

    def _call(self, state: dict[str, Any], effective: Any) -> Any:
        resource = state["Resource"]
        if resource == LAMBDA_INVOKE:
            function, payload = effective["FunctionName"], effective.get("Payload")
        elif resource.startswith("arn:aws:lambda:"):
            function, payload = resource, effective
        else:
            raise StatesError("States.Runtime", f"resource {resource} is not supported locally")
        try:
            result = self._invoke(function, payload)
        except StatesError:
            raise
        except Exception as err:  # a function error becomes the state's error, as in Step Functions
            raise StatesError(type(err).__name__, str(err)) from err
        if resource == LAMBDA_INVOKE:
            return {"ExecutedVersion": "$LATEST", "Payload": result, "StatusCode": 200}
        return result


_COMPARISONS: dict[str, Callable[[Any, Any], bool]] = {
    "StringEquals": lambda value, operand: value == operand,
    "BooleanEquals": lambda value, operand: value is operand,
    "NumericEquals": lambda value, operand: value == operand,
}


def _test(rule: dict[str, Any], data: Any, context: dict[str, Any]) -> bool:
    path = rule["Variable"]
    try:
        value = select(path, data, context)
    except StatesError:
        return rule.get("IsPresent") is False
    if "IsPresent" in rule:
        return bool(rule["IsPresent"])
    if "IsNull" in rule:
        return (value is None) is bool(rule["IsNull"])
    for name, compare in _COMPARISONS.items():
        if name in rule:
            return compare(value, rule[name])
    raise StatesError("States.Runtime", f"unsupported Choice rule {sorted(rule)}")


def _choose(state: dict[str, Any], data: Any, context: dict[str, Any]) -> str:
    for rule in state.get("Choices", []):
        if _test(rule, data, context):
            return str(rule["Next"])
    if "Default" not in state:
        raise StatesError("States.NoChoiceMatched", "no Choice rule matched")
    return str(state["Default"])
