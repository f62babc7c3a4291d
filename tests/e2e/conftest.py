"""One local stack per test session (per xdist worker), started as `python -m engram_tools.local` would be."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.stack_process import Api, StackProcess

ACME_KEY = "key-acme-1"
GLOBEX_KEY = "key-globex-1"
API_KEYS = f"acme:{ACME_KEY},globex:{GLOBEX_KEY}"


@pytest.fixture(scope="session")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StackProcess]:
    data_dir: Path = tmp_path_factory.mktemp("engram") / "data"
    process = StackProcess(data_dir, API_KEYS).start()
    yield process
    code = process.stop()
    assert code in (0, None), f"the stack exited with {code} on SIGTERM:\n{process.log_tail()}"


@pytest.fixture
def acme(stack: StackProcess) -> Api:
    return Api(stack, ACME_KEY)


@pytest.fixture
def globex(stack: StackProcess) -> Api:
    return Api(stack, GLOBEX_KEY)


@pytest.fixture
def tenant(acme: Api) -> Iterator[Api]:
    """acme for a test that changes the tenant's configuration: put back empty after it (the session's
    stack is shared)."""
    try:
        yield acme
    finally:
        acme.request("PUT", "/v1/config", {})
