"""Swagger UI at /docs in a real (headless) browser against the local stack: a person authorizes with the
stack's API key and tries the search operation, and it reaches the API (not a /<stage> path that 404s)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.browser import SCREENSHOTS, browser
from tests.e2e.conftest import ACME_KEY
from tests.e2e.stack_process import Api, StackProcess

pytestmark = pytest.mark.e2e
__all__ = ["browser"]  # the fixture, imported so pytest finds it here

TIMEOUT_MS = 60_000
USER = "docs-lisbon"


@pytest.fixture
def page(browser: Any, stack: StackProcess) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1200, "height": 1000})
    opened = context.new_page()
    opened.set_default_timeout(TIMEOUT_MS)
    opened.goto(f"{stack.url}/docs")
    yield opened
    context.close()


def authorize(page: Any, key: str) -> None:
    page.locator(".auth-wrapper").get_by_role("button", name="Authorize").click()
    dialog = page.locator(".modal-ux")
    dialog.locator("input[type=text], input[type=password]").first.fill(key)
    dialog.get_by_role("button", name="Apply credentials").click()  # the dialog's Authorize
    dialog.get_by_role("button", name="Remove authorization").wait_for()  # Logout: the key is taken
    dialog.get_by_role("button", name="Close").click()


def test_a_person_authorizes_and_tries_the_search(page: Any, stack: StackProcess, acme: Api) -> None:
    acme.remember(USER, "I live in Lisbon")
    sent: list[Any] = []
    page.on("request", lambda request: sent.append(request) if "/v1/memories/search" in request.url else None)

    authorize(page, ACME_KEY)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "api-docs.png"))  # the top: Authorize, tags and summaries
    search = page.locator(".opblock-post", has_text="Search a user's memories")
    search.locator(".opblock-summary").click()
    search.get_by_role("button", name="Try it out").click()
    search.locator("textarea.body-param__text").fill(json.dumps({"user_id": USER, "query": "where do I live?"}))
    search.get_by_role("button", name="Execute").click()

    status = search.locator(".live-responses-table .response .response-col_status")
    status.wait_for()
    search.screenshot(path=str(SCREENSHOTS / "api-docs-search.png"))

    assert status.inner_text().strip() == "200"
    assert "Lisbon" in search.locator(".live-responses-table").first.inner_text()
    [request] = sent
    assert request.url == f"{stack.url}/v1/memories/search"
    assert request.headers["x-api-key"] == ACME_KEY
    assert search.locator(".request-url pre").inner_text().strip() == f"{stack.url}/v1/memories/search"
