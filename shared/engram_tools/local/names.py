"""Physical names and ARNs of the local stack's resources, derived from template logical ids."""

from __future__ import annotations

ACCOUNT_ID = "123456789012"  # moto's default account
PREFIX = "engram-local-"
API_ID = "enlocal001"  # a fake REST API id for methodArn and requestContext.apiId


def physical_name(logical_id: str, fifo: bool = False) -> str:
    """`engram-local-<LogicalId>`; FIFO queue names must end in `.fifo`."""
    return f"{PREFIX}{logical_id}{'.fifo' if fifo else ''}"


def function_arn(region: str, logical_id: str) -> str:
    return f"arn:aws:lambda:{region}:{ACCOUNT_ID}:function:{physical_name(logical_id)}"


def method_arn(region: str, stage: str, method: str, path: str) -> str:
    return f"arn:aws:execute-api:{region}:{ACCOUNT_ID}:{API_ID}/{stage}/{method}/{path.lstrip('/')}"
