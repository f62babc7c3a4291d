"""The memory page in a real (headless) browser against the real local stack: what a person does by hand."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from engram.domain.limits import MAX_QUERY_CHARS
from tests.e2e.browser import SCREENSHOTS, browser
from tests.e2e.conftest import ACME_KEY, GLOBEX_KEY
from tests.e2e.stack_process import Api, StackProcess

pytestmark = pytest.mark.e2e
__all__ = ["browser"]  # the fixture, imported so pytest finds it here

TIMEOUT_MS = 60_000


@pytest.fixture
def page(browser: Any, stack: StackProcess) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    opened = context.new_page()
    opened.set_default_timeout(TIMEOUT_MS)
    opened.goto(f"{stack.url}/ui")
    yield opened
    context.close()


def enter_key(page: Any, key: str) -> None:
    page.get_by_label("API key", exact=True).fill(key)
    page.get_by_role("button", name="Use this key").click()


def pick_user(page: Any, user: str) -> None:
    page.get_by_label("User", exact=True).fill(user)
    page.get_by_role("button", name="Show").click()


def shot(page: Any, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def card(page: Any, text: str) -> Any:
    return page.locator("li.card", has_text=text)


def test_a_person_adds_searches_edits_protects_and_deletes_a_memory(page: Any) -> None:
    enter_key(page, ACME_KEY)
    pick_user(page, "page-berlin")
    page.get_by_label("Note (sent as the user's message)").fill("I live in Berlin")
    page.get_by_role("button", name="Add", exact=True).click()

    page.locator(".toast.completed").first.wait_for()
    memory = card(page, "Berlin")
    memory.wait_for()
    shot(page, "memory-list")

    page.get_by_role("searchbox", name="Search").fill("where does the user live?")
    page.get_by_role("button", name="Search", exact=True).click()
    page.locator("li.card dt", has_text="Score").first.wait_for()
    assert "Berlin" in page.locator("#memories").inner_text()

    memory.get_by_role("button", name=re.compile("^Edit")).click()
    page.get_by_label("Text", exact=True).fill("Lives in Munich since 2024")
    page.get_by_label("Bank").last.select_option("Personal")
    page.get_by_role("button", name="Save").click()
    edited = card(page, "Munich")
    edited.wait_for()
    assert card(page, "Berlin").count() == 0

    edited.get_by_role("button", name=re.compile("^History")).click()
    entries = page.locator("#history li")
    entries.nth(1).wait_for()
    assert entries.count() == 2
    history = page.locator("#history").inner_text()
    assert "Berlin" in history and "Munich" in history
    shot(page, "memory-history")
    page.get_by_role("button", name="Close").click()

    edited.get_by_role("button", name=re.compile("^Protect")).click()
    card(page, "Munich").locator(".badge.protected").wait_for()

    page.once("dialog", lambda dialog: dialog.accept())
    card(page, "Munich").get_by_role("button", name=re.compile("^Delete")).click()
    page.get_by_text("No memories.").wait_for()


def test_delete_all_asks_first_and_empties_the_list(page: Any, acme: Api) -> None:
    acme.remember("page-wipe", "I love pizza")
    enter_key(page, ACME_KEY)
    pick_user(page, "page-wipe")
    card(page, "pizza").wait_for()

    page.get_by_role("button", name="Delete all…").click()
    page.get_by_role("button", name="Keep them").click()
    assert card(page, "pizza").count() == 1 and len(acme.memories("page-wipe")) == 1

    page.get_by_role("button", name="Delete all…").click()
    page.get_by_role("button", name="Delete all", exact=True).click()
    page.get_by_text("No memories.").wait_for()
    assert acme.memories("page-wipe") == []


def test_a_wrong_key_is_named_as_such(page: Any) -> None:
    enter_key(page, "not-a-key")
    error = page.get_by_role("alert")
    error.wait_for()
    assert "API key is wrong" in error.inner_text()
    assert page.locator("#workspace").is_hidden()


def test_invalid_input_names_the_field(page: Any) -> None:
    enter_key(page, ACME_KEY)
    pick_user(page, "page-invalid")
    page.get_by_role("searchbox", name="Search").fill("x" * (MAX_QUERY_CHARS + 1))
    page.get_by_role("button", name="Search", exact=True).click()
    error = page.get_by_role("alert")
    error.wait_for()
    assert "Invalid input: query" in error.inner_text()


def test_a_second_tenant_sees_none_of_the_first_tenants_users(page: Any, acme: Api, globex: Api) -> None:
    acme.add("acme-only-user", "I work at Acme")
    globex.remember("globex-user", "I work at Globex")
    enter_key(page, GLOBEX_KEY)
    page.locator("#workspace").wait_for()
    users = page.locator("#user-list option")
    users.first.wait_for(state="attached")
    values = {users.nth(i).get_attribute("value") for i in range(users.count())}
    assert "globex-user" in values
    assert "acme-only-user" not in values and "page-berlin" not in values


def test_the_page_fits_a_375_px_phone_and_works_by_keyboard(browser: Any, stack: StackProcess, acme: Api) -> None:
    acme.remember("page-phone", "My sister is called Anna")
    context = browser.new_context(viewport={"width": 375, "height": 800})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    try:
        page.goto(f"{stack.url}/ui")
        page.keyboard.press("Tab")
        page.keyboard.type(ACME_KEY)
        page.keyboard.press("Enter")  # submits the key form without a mouse
        pick_user(page, "page-phone")
        card(page, "Anna").wait_for()
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 375, f"the page is {width} px wide at a 375 px viewport"
        shot(page, "memory-phone")
    finally:
        context.close()


def test_a_kept_message_a_later_statement_replaced_is_marked_outdated(page: Any, acme: Api) -> None:
    user = "page-moved"
    for text, at in [
        ("ugh, the commute from my flat in Leeds is killing me", "2025-01-10T09:00:00Z"),
        ("I live in Manchester now", "2025-03-02T09:00:00Z"),
    ]:
        body = {"user_id": user, "messages": [{"role": "user", "content": text, "created_at": at}]}
        assert acme.wait(acme.request("POST", "/v1/memories", body).json()["task_id"])["status"] == "completed"
    enter_key(page, ACME_KEY)
    pick_user(page, user)
    card(page, "Leeds").locator(".badge.outdated").wait_for()
    assert card(page, "Manchester").locator(".badge.outdated").count() == 0
    shot(page, "memory-outdated")
