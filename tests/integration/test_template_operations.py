"""template.yaml's operations parts: the queue-age alarm, CloudWatch metrics, and the permissions
deep health and the worker's log line need (what the functions call, the template allows)."""

from __future__ import annotations

from typing import Any

from tests.integration.test_template import props, template, translated


def role_actions(function: str) -> list[tuple[str, Any]]:
    """(action, resource) of every statement of the function's role after the SAM transform."""
    role = translated()["Resources"][f"{function}Role"]["Properties"]
    found = []
    for policy in role.get("Policies", []):
        for statement in policy["PolicyDocument"]["Statement"]:
            if statement.get("Effect") != "Allow":
                continue
            actions = statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
            found += [(action, statement["Resource"]) for action in actions]
    return found


def test_an_alarm_on_the_age_of_the_oldest_queued_message_beside_the_dlq_alarm() -> None:
    alarm = props("ExtractionQueueAgeAlarm")
    assert (alarm["Namespace"], alarm["MetricName"]) == ("AWS/SQS", "ApproximateAgeOfOldestMessage")
    assert alarm["Dimensions"] == [{"Name": "QueueName", "Value": {"Fn::GetAtt": ["ExtractionQueue", "QueueName"]}}]
    assert alarm["Statistic"] == "Maximum" and alarm["ComparisonOperator"] == "GreaterThanOrEqualToThreshold"
    assert alarm["Threshold"] == {"Ref": "QueueAgeAlarmSeconds"}
    parameter = template()["Parameters"]["QueueAgeAlarmSeconds"]
    assert parameter["Type"] == "Number" and parameter["Default"] == 900
    assert alarm["AlarmActions"] == props("ExtractionDLQAlarm")["AlarmActions"]  # the same topic


def test_functions_write_emf_metrics() -> None:
    env = template()["Globals"]["Function"]["Environment"]["Variables"]
    assert env["ENGRAM_METRICS"] == "emf" and env["POWERTOOLS_METRICS_NAMESPACE"] == "Engram"


def test_the_api_may_do_what_deep_health_does() -> None:
    actions = role_actions("ApiFunction")
    assert ("sqs:GetQueueAttributes", {"Fn::GetAtt": ["ExtractionQueue", "Arn"]}) in actions
    key_reads = [(a, r) for a, r in actions if "ApiKeysTable" in str(r)]
    assert key_reads == [("dynamodb:GetItem", {"Fn::GetAtt": ["ApiKeysTable", "Arn"]})]  # deep health's key check
    for table in ("MemoryTable", "TasksTable"):  # the stores' reads of a key that never exists
        assert any(a == "dynamodb:GetItem" and table in str(r) for a, r in actions), table


def test_the_worker_may_read_the_queue_depth_for_its_log_line() -> None:
    actions = role_actions("ExtractionFunction")
    assert ("sqs:GetQueueAttributes", {"Fn::GetAtt": ["ExtractionQueue", "Arn"]}) in actions
