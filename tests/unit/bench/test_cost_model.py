"""bench/parts/cost.py's arithmetic on a tiny request table and round prices."""

from __future__ import annotations

import pytest

from bench.parts.cost import ESM_REQUESTS_PER_INVOCATION, RTT_MS, Scenario, monthly, per_operation

PRICES = {
    "as_of": "test",
    "api_gateway_rest_per_million": {"value": 1.0},
    "lambda_per_million_requests": {"value": 1.0},
    "lambda_per_gb_second_x86": {"value": 1.0},
    "sqs_fifo_per_million": {"value": 1.0},
    "dynamodb_per_million_wru": {"value": 2.0},
    "dynamodb_per_million_rru": {"value": 1.0},
    "dynamodb_storage_gb_month": {"value": 0.0},
    "aoss_ocu_hour": {"value": 0.0},
    "aoss_min_ocus": {"value": 2},
    "aoss_storage_gb_month": {"value": 0.0},
    "opensearch_r6g_large_hour": {"value": 0.0},
    "opensearch_gp3_gb_month": {"value": 0.0},
    "s3_put_per_thousand": {"value": 0.0},
    "s3_get_per_thousand": {"value": 0.0},
    "sfn_per_thousand_transitions": {"value": 0.0},
    "llm_models": {"m": {"input_per_million": 1.0, "output_per_million": 2.0}},
}
# Two adds: 2 API calls, 1 extraction invocation, 10 DynamoDB requests (4 RRU, 6 WRU), 2 SQS sends.
ADDS = {
    "operations": 2,
    "invocations": {"api": 2, "extraction": 1},
    "requests": {
        "dynamodb.PutItem": {"requests": 6, "wru": 6.0},
        "dynamodb.GetItem": {"requests": 4, "rru": 4.0},
        "sqs.SendMessage": {"requests": 2},
    },
}
MS = {"api": 10.0, "add_raw": 100.0, "search": 1.0}
TOKENS = {"add_raw": (1000.0, 500.0)}


def test_one_operation_is_its_table_totals_priced_and_divided_by_its_operations() -> None:
    usd = per_operation(ADDS, "add_raw", PRICES, MS, TOKENS, "m")

    assert usd["api_gateway"] == pytest.approx(2 / 1e6 / 2)
    assert usd["sqs"] == pytest.approx((2 + ESM_REQUESTS_PER_INVOCATION) / 1e6 / 2)
    assert usd["dynamodb"] == pytest.approx((4 * 1.0 + 6 * 2.0) / 1e6 / 2)
    assert usd["llm"] == pytest.approx((1000 * 1.0 + 500 * 2.0) / 1e6)  # tokens are per add
    api_gb_s = 2 * (10.0 + RTT_MS) / 1000 * 0.5
    worker_gb_s = (100.0 * 2 + 12 * RTT_MS) / 1000 * 1.0  # own ms per add, one round trip per request
    assert usd["lambda"] == pytest.approx((3 / 1e6 + api_gb_s + worker_gb_s) / 2)


def test_a_month_is_each_operation_times_its_count_plus_the_opensearch_floor() -> None:
    scenario = Scenario("tiny", {"add_raw": 1_000_000}, memories=0, peak_adds_per_s=0.0)
    one = per_operation(ADDS, "add_raw", PRICES, MS, TOKENS, "m")

    month = monthly({"add_raw": ADDS}, PRICES, scenario, "m", MS, TOKENS)

    assert month["services_usd"]["dynamodb"] == pytest.approx(round(one["dynamodb"] * 1e6, 2))
    assert month["services_usd"]["llm"] == pytest.approx(2000.0)
    assert month["opensearch"]["ocus"] == 2  # the serverless minimum with nothing to index or hold
    assert month["total_usd_serverless"] == pytest.approx(sum(month["services_usd"].values()), abs=0.05)
