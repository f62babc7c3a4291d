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


def pytest_sessionstart(session: pytest.Session) -> None:
    if "PYTEST_XDIST_WORKER" not in os.environ:  # the controller, before any worker records
        from tests.figures import clear

        clear()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The reliability and security figures of this run, where zeros are promised."""
    from tests.figures import collected

    rows = collected()
    if not rows:
        return
    terminalreporter.section("Engram reliability and security figures")
    for row in rows:
        figures = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in row.items() if k != "name")
        terminalreporter.write_line(f"{row['name']}: {figures}")
