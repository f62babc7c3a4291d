"""Test-wide setup: no test may reach real AWS or OpenAI."""

from __future__ import annotations

import os

import pytest

# Set before any boto3 client is created, so nothing can pick up real credentials.
os.environ.update(
    {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_SECURITY_TOKEN": "testing",
        "AWS_SESSION_TOKEN": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_REGION": "us-east-1",
        "POWERTOOLS_SERVICE_NAME": "engram-test",
        "POWERTOOLS_TRACE_DISABLED": "true",
        "POWERTOOLS_METRICS_NAMESPACE": "EngramTest",
    }
)
for var in ("OPENAI_API_KEY", "ENGRAM_OPENAI_API_KEY", "ENGRAM_OPENAI_BASE_URL", "AWS_PROFILE"):
    os.environ.pop(var, None)


@pytest.fixture(autouse=True)
def _fresh_settings() -> None:
    from engram.settings import get_settings

    get_settings.cache_clear()
