"""Requests generated from the API's own OpenAPI schema (schemathesis), valid and invalid, against the
local stack: no input a client can send gets a server error, and valid answers match the schema."""

from __future__ import annotations

from collections import Counter
from typing import Any

import httpx
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error

from tests.e2e.conftest import ACME_KEY
from tests.e2e.stack_process import StackProcess
from tests.figures import record

# Bounded: each operation gets this many generated cases per mode and run (the suite's time budget).
EXAMPLES = 20


def not_configured(response: Any) -> bool:
    """The documented 503 of a feature this stack has no setting for (the chat proxy without an LLM)."""
    try:
        error = response.json().get("error")
        code = error.get("code") if isinstance(error, dict) else error  # the chat proxy's is OpenAI-shaped
        return response.status_code == 503 and code == "ConfigurationError"
    except ValueError:
        return False


def fuzz(operation: Any, mode: GenerationMode, url: str, seen: Counter[str], failures: list[str]) -> None:
    positive = mode is GenerationMode.POSITIVE

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    def run(case: Any) -> None:
        response = case.call(base_url=url, headers={"x-api-key": ACME_KEY}, timeout=30)
        seen["requests"] += 1
        if response.status_code >= 500 and not not_configured(response):
            seen["5xx"] += 1
            failures.append(f"{case.method} {case.formatted_path} -> {response.status_code}: {response.text[:200]}")
        elif positive and response.status_code < 300:
            case.validate_response(response, checks=[not_a_server_error])  # the body matches the schema

    try:
        run()
    except Unsatisfiable:
        # No invalid request can be derived (e.g. GET /health takes no input): nothing to send.
        assert not positive, operation.label


def test_no_generated_request_gets_a_server_error(stack: StackProcess) -> None:
    schema = schemathesis.openapi.from_url(f"{stack.url}/openapi.json")
    seen: Counter[str] = Counter()
    failures: list[str] = []
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 10  # every route is in the schema
    try:
        for operation in operations:
            for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
                fuzz(operation, mode, stack.url, seen, failures)
    finally:  # PUT /v1/config was fuzzed too: the session's later tests get the tenant's built-in behaviour
        httpx.put(f"{stack.url}/v1/config", json={}, headers={"x-api-key": ACME_KEY}, timeout=30).raise_for_status()
    record("schema fuzz", requests=seen["requests"], server_errors=seen["5xx"])
    assert not failures, "\n".join(failures[:10])
