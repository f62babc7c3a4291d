"""The AWS requests each operation sends, counted through the real handlers (request_accounting.py), must
match the checked-in table bench/results/requests.json that the cost model (bench/parts/cost.py) prices.

A change that adds or removes a request fails here; regenerate the table with
    ENGRAM_WRITE_REQUEST_TABLE=1 .venv/bin/python -m pytest -q tests/integration/test_request_table.py
and commit it with the change (the cost model and docs/scale.md then price the new count).
"""

from __future__ import annotations

import json
import os
from typing import Any

import pytest

from tests.integration.request_accounting import accounting_stack, measure_all, table_json
from tests.support.handlers import ROOT

TABLE = ROOT / "bench" / "results" / "requests.json"
BYTES_TOLERANCE = 0.10  # ids and timestamps vary a little in length; counts are exact


def counts(ops: dict[str, Any]) -> dict[str, Any]:
    return {
        name: {
            "operations": op["operations"],
            "invocations": op["invocations"],
            "requests": {k: v["requests"] for k, v in op["requests"].items()},
        }
        for name, op in ops.items()
    }


def test_each_operation_sends_the_requests_the_checked_in_table_prices(monkeypatch: pytest.MonkeyPatch) -> None:
    with accounting_stack(monkeypatch) as bench:
        ops = measure_all(bench)
    if os.environ.get("ENGRAM_WRITE_REQUEST_TABLE") == "1":
        TABLE.write_text(table_json(ops))
    checked_in = json.loads(TABLE.read_text())["operations"]
    hint = "regenerate: ENGRAM_WRITE_REQUEST_TABLE=1 (this file's docstring), commit bench/results/requests.json"
    assert counts(ops) == counts(checked_in), hint
    for name, op in ops.items():
        for key, measured in op["requests"].items():
            kept = checked_in[name]["requests"][key]
            for field in ("request_bytes", "response_bytes"):
                allowed = max(200, BYTES_TOLERANCE * kept[field])
                assert abs(measured[field] - kept[field]) <= allowed, f"{name} {key} {field}: {hint}"
