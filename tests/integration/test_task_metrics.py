"""Metrics (EMF on AWS) for finished tasks and searches: what the extraction and API functions emit,
flushed once per invocation. The in-memory recorder stands in for Powertools here; the EMF adapter's
own output is checked in test_emf_metrics_writes_one_emf_line."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engram.adapters.aws.emf_metrics import EmfMetrics
from engram.domain.errors import TransientError
from engram.operations.metrics import RecordedMetrics
from tests.fakes import facts_json
from tests.integration.stack import Stack
from tests.integration.test_extraction_handler import submit
from tests.support.handlers import FakeContext, load_function


@pytest.fixture
def metrics(stack: Stack) -> RecordedMetrics:
    recorded = RecordedMetrics()
    stack.container.metrics = recorded
    return recorded


def test_a_batch_emits_its_task_metrics_in_one_flush(stack: Stack, metrics: RecordedMetrics) -> None:
    handler = load_function("extraction").lambda_handler
    # two messages of alice extracted together (one LLM run), one of bob on his own
    first, second, third = submit(stack, "I live in Berlin"), submit(stack, "I like tea"), submit(stack, "Hi", "bob")
    stack.llm.answers += [facts_json("Lives in Berlin", "Likes tea"), facts_json("Says hi")]
    assert handler({"Records": [first, second, third]}, FakeContext()) == {"batchItemFailures": []}

    (batch,) = metrics.flushed  # one flush for the invocation
    names = [name for name, _, _ in batch]
    assert names.count("TasksCompleted") == 3 and names.count("ExtractionDuration") == 3
    assert metrics.total("TasksCompleted") == 3
    assert metrics.total("LLMCalls") == len(stack.llm.calls) == 2  # the shared run counted once
    assert metrics.total("FactsAdded") == 3 and metrics.total("FactsUpdated") == metrics.total("FactsDeleted") == 0
    assert metrics.total("PromptTokens") == sum(len(c["user"].split()) for c in stack.llm.calls) > 0
    assert metrics.total("CompletionTokens") == 5 * 2
    usage = stack.container.usage.report("acme", None, None).totals  # the same run, in the tenant's usage
    assert (usage.adds, usage.llm_calls, usage.memories_stored) == (3, 2, 3)
    units = {name: unit for name, _, unit in batch}
    assert units["ExtractionDuration"] == "Milliseconds" and units["TasksCompleted"] == "Count"


def test_a_failure_is_a_retry_until_the_last_receive(stack: Stack, metrics: RecordedMetrics) -> None:
    record = submit(stack, "I live in Berlin")
    task_id = record["attributes"]["MessageDeduplicationId"]

    def outage(system: str, user: str) -> str:
        raise TransientError("LLM: 503")

    stack.container.breaker = None  # plain failures here (the breaker has its own tests)
    for final in (False, True):
        stack.llm.answers.append(outage)
        with pytest.raises(TransientError):
            stack.container.worker.process("acme", task_id, final_attempt=final)
    assert (metrics.total("TaskRetries"), metrics.total("TasksFailed"), metrics.total("TasksCompleted")) == (1, 1, 0)


def test_a_search_emits_its_latency(stack: Stack, metrics: RecordedMetrics, call: Any) -> None:
    assert call("POST", "/v1/memories/search", {"query": "tea", "user_id": "alice"})[0] == 200
    (batch,) = metrics.flushed
    assert [(n, u) for n, _, u in batch] == [("SearchLatency", "Milliseconds"), ("Searches", "Count")]
    assert batch[0][1] >= 0
    assert call("GET", "/v1/memories", query={"user_id": "alice"})[0] == 200
    assert len(metrics.flushed) == 1  # nothing recorded, nothing written


def test_emf_metrics_writes_one_emf_line(capsys: pytest.CaptureFixture[str]) -> None:
    emf = EmfMetrics(namespace="EngramTest")
    emf.flush()
    assert capsys.readouterr().out == ""  # nothing added: no line
    emf.add("TasksCompleted", 1)
    emf.add("TasksCompleted", 1)
    emf.add("ExtractionDuration", 812.5, "Milliseconds")
    emf.flush()
    (line,) = capsys.readouterr().out.strip().splitlines()
    blob = json.loads(line)
    (directive,) = blob["_aws"]["CloudWatchMetrics"]
    assert directive["Namespace"] == "EngramTest"
    assert {m["Name"]: m["Unit"] for m in directive["Metrics"]} == {
        "TasksCompleted": "Count",
        "ExtractionDuration": "Milliseconds",
    }
    assert blob["TasksCompleted"] == [1.0, 1.0] and blob["ExtractionDuration"] in (812.5, [812.5])


def test_the_workers_log_line_reads_the_queue(stack: Stack) -> None:
    for i in range(3):
        submit(stack, f"message {i}", user=f"u{i}")
    log = stack.container.accounting.log
    assert log is not None and log.pending is not None and log.pending() == 3
