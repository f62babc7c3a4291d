"""The memory page in a real (headless) browser against the real local stack: what a person does by hand."""

from __future__ import annotations

import json
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
    return page.locator("li.mem", has_text=text)


def test_a_person_adds_searches_edits_protects_and_deletes_a_memory(page: Any) -> None:
    enter_key(page, ACME_KEY)
    pick_user(page, "page-berlin")
    page.get_by_text("Add a note").click()
    page.get_by_label("Note (sent as the user's message)").fill("I live in Berlin")
    page.get_by_role("button", name="Add", exact=True).click()

    page.locator(".toast.completed").first.wait_for()
    memory = card(page, "Berlin")
    memory.wait_for()
    shot(page, "memory-list")

    page.get_by_role("searchbox", name="Search").fill("where does the user live?")
    page.get_by_role("button", name="Search", exact=True).click()
    page.locator("li.mem .score").first.wait_for()
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
    page.get_by_label("Protected", exact=True).select_option("false")
    page.get_by_text("No memories.").wait_for()  # the protection filter filters
    page.get_by_label("Protected", exact=True).select_option("")
    card(page, "Munich").wait_for()

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


def seed(stack: StackProcess, user: str, count: int) -> None:
    """`count` memories through the import route (stored as given, no extraction): a long list fast."""
    api = Api(stack, ACME_KEY)
    banks = ("Personal", "Work", "Interests", "Health", "Relationships")
    for start in range(0, count, 100):
        memories = [
            {
                "memory": f"Memory number {i:04d}: likes trail running and {('tea', 'jazz', 'chess')[i % 3]}",
                "memory_bank": banks[i % len(banks)],
                "is_protected": i % 10 == 0,
            }
            for i in range(start, min(count, start + 100))
        ]
        reply = api.request("POST", "/v1/memories/import", json={"user_id": user, "memories": memories})
        assert reply.status_code in (200, 202), reply.text
        if reply.status_code == 202:
            api.wait(reply.json()["task_id"], until=("completed",))


def rows(page: Any) -> int:
    return int(page.locator("li.mem").count())


def test_hundreds_of_memories_are_a_compact_list_that_pages_and_filters(browser: Any, stack: StackProcess) -> None:
    seed(stack, "page-many", 220)
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    try:
        page.goto(f"{stack.url}/ui")
        enter_key(page, ACME_KEY)
        pick_user(page, "page-many")
        page.locator("li.mem").nth(99).wait_for()
        first = rows(page)
        assert first == 100, f"one page of 100 expected, got {first}"
        heights = page.evaluate("[...document.querySelectorAll('li.mem')].slice(0, 20).map(r => r.offsetHeight)")
        assert max(heights) <= 64, f"a memory takes {max(heights)} px; one or two lines expected"
        page.screenshot(path=str(SCREENSHOTS / "memory-page-1400.png"))

        page.get_by_role("button", name="More", exact=True).click()
        page.locator("li.mem").nth(199).wait_for()
        assert rows(page) == 200
        page.evaluate("window.scrollTo(0, 0)")
        page.locator("li.mem").nth(2).hover()  # one row's actions showing
        page.screenshot(path=str(SCREENSHOTS / "memory-page-200.png"))  # copied to docs/ by hand, looked at

        page.get_by_label("Bank", exact=True).first.select_option("Personal")
        page.wait_for_function("document.querySelectorAll('li.mem').length === 44")  # 220 / 5 banks, in one page
        assert set(page.locator("li.mem .bank").all_inner_texts()) == {"Personal"}
        page.get_by_label("Protected", exact=True).select_option("true")
        page.wait_for_function("document.querySelectorAll('li.mem').length === 22")
        assert page.locator("li.mem .badge.protected").count() == 22

        # actions show on hover or keyboard focus, and the keyboard reaches them
        row = page.locator("li.mem").first
        assert row.locator(".actions").evaluate("e => getComputedStyle(e).opacity") == "0"
        row.get_by_role("button", name="Details").focus()
        assert row.locator(".actions").evaluate("e => getComputedStyle(e).opacity") == "1"
        page.keyboard.press("Enter")
        row.locator(".details").wait_for()
        assert "Recorded" in row.locator(".details").inner_text()
        page.keyboard.press("Tab")
        page.keyboard.press("Enter")  # Edit, reached by keyboard
        dialog = page.locator("#edit-dialog")
        dialog.wait_for()
        width = dialog.evaluate("d => d.getBoundingClientRect().width")
        assert width >= 500, f"the edit dialog is {width} px wide"
        page.screenshot(path=str(SCREENSHOTS / "memory-page-edit.png"))  # the viewport: where the dialog is
        page.get_by_role("button", name="Cancel").click()
    finally:
        context.close()


def test_an_outdated_kept_message_is_marked_and_filtered(page: Any, acme: Api) -> None:
    acme.remember("page-moved", "I live in Hamburg with my husband Tom and our cat Pixel.")
    acme.remember("page-moved", "We moved to Munich last month")
    enter_key(page, ACME_KEY)
    pick_user(page, "page-moved")
    page.get_by_label("Show", exact=True).select_option("all")
    kept = card(page, "Hamburg with my husband")
    kept.locator(".badge.outdated").wait_for()
    page.get_by_label("Show", exact=True).select_option("outdated")
    card(page, "Hamburg with my husband").wait_for()  # the filtered list drawn (an empty list would pass below)
    page.wait_for_function(
        "() => { const rows = [...document.querySelectorAll('li.mem')];"
        " return rows.length > 0 && rows.every(r => r.querySelector('.badge.outdated')); }"
    )
    assert card(page, "Hamburg with my husband").count() == 1
    page.get_by_label("Show", exact=True).select_option("current")
    card(page, "Munich").first.wait_for()
    assert card(page, "Hamburg with my husband").count() == 0


def test_search_results_show_both_clocks_and_their_relations(page: Any, acme: Api) -> None:
    acme.remember("page-rel", "My sister Anna lives in Lisbon")
    relation = {
        "id": "r1",
        "source": "Anna",
        "relation": "lives in",
        "destination": "Lisbon",
        "source_entity_id": "e1",
        "destination_entity_id": "e2",
        "valid_from": "2024-05-01T00:00:00Z",
    }
    body = {"entities": [], "relations": [relation], "next_entity_cursor": None, "next_relation_cursor": None}
    graph_calls: list[str] = []

    def graph(route: Any) -> None:  # graph memory needs an LLM; this answers as the graph API does with one
        graph_calls.append(route.request.url)
        route.fulfill(status=200, content_type="application/json", body=json.dumps(body))

    page.route(re.compile(r"/v1/graph\?"), graph)
    enter_key(page, ACME_KEY)
    pick_user(page, "page-rel")
    page.get_by_role("searchbox", name="Search").fill("where does Anna live?")
    page.get_by_role("button", name="Search", exact=True).click()
    result = card(page, "Lisbon").first
    result.locator(".badge.relation").wait_for()
    meta = result.locator(".meta").inner_text()
    assert "said" in meta and "recorded" in meta
    result.get_by_role("button", name=re.compile("^Details")).click()
    relations = result.locator(".details .relations").inner_text()
    assert "→" in relations and ("Lisbon" in relations or "Anna" in relations)
    assert all("user_id=page-rel" in url for url in graph_calls)  # asked only when the search had none


def test_the_delete_all_dialog_tells_the_truth_and_keeps_by_default(page: Any, acme: Api) -> None:
    acme.remember("page-truth", "I love pizza")
    enter_key(page, ACME_KEY)
    pick_user(page, "page-truth")
    card(page, "pizza").wait_for()
    page.get_by_role("button", name="Delete all…").click()
    dialog = page.locator("#confirm-dialog")
    dialog.wait_for()
    text = dialog.inner_text()
    assert "cannot be undone" not in text
    assert "history" in text and "Kept" in text and "Erased" in text
    primary = dialog.locator("button.primary")
    assert primary.inner_text() == "Keep them"
    assert page.evaluate("document.activeElement.textContent") == "Keep them"
    shot(page, "memory-page-delete-all")
    page.keyboard.press("Enter")  # the default answer keeps everything
    dialog.wait_for(state="hidden")
    assert len(acme.memories("page-truth")) == 1


def test_the_list_at_420_px(browser: Any, stack: StackProcess, acme: Api) -> None:
    acme.remember("page-narrow", "My sister is called Anna and she lives in Lisbon with her two children")
    context = browser.new_context(viewport={"width": 420, "height": 900})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    try:
        page.goto(f"{stack.url}/ui")
        enter_key(page, ACME_KEY)
        pick_user(page, "page-narrow")
        row = card(page, "lives in Lisbon with her").first
        row.wait_for()
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 420, f"the page is {width} px wide at a 420 px viewport"
        assert row.get_by_role("button", name=re.compile("^Edit")).is_visible()  # no hover on a phone
        shot(page, "memory-page-420")
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
    page.get_by_label("Show", exact=True).select_option("all")  # "current" (the default) hides what is outdated
    card(page, "Leeds").locator(".badge.outdated").wait_for()
    assert card(page, "Manchester").locator(".badge.outdated").count() == 0
    shot(page, "memory-outdated")


def test_a_memory_shows_what_it_states(page: Any, acme: Api) -> None:
    """Each statement a chip on the memory's line ("home: York"), as the API lists them."""
    user = "page-statements"
    task = acme.wait(acme.add(user, "I live in York and work at Soins Alpins", infer=False))
    assert task["status"] == "completed", task
    enter_key(page, ACME_KEY)
    pick_user(page, user)
    kept = card(page, "Soins Alpins")
    kept.locator(".statement", has_text="home: York").wait_for()
    assert sorted(kept.locator(".statement").all_inner_texts()) == ["employer: Soins Alpins", "home: York"]
    # One a later memory outdated (as an import of an export carries it) is struck through.
    statements = [
        {"attribute": "home", "value": "Oslo", "single": True, "outdated_by": "m-later"},
        {"subject": "my sister Ines", "attribute": "home", "value": "Lyon", "single": True},
    ]
    body = {
        "user_id": user,
        "memories": [{"memory": "I lived in Oslo, my sister Ines lives in Lyon", "statements": statements}],
    }
    assert acme.wait(acme.request("POST", "/v1/memories/import", body).json()["task_id"])["status"] == "completed"
    pick_user(page, user)
    moved = card(page, "Oslo")
    moved.locator(".statement.is-outdated", has_text="home: Oslo").wait_for()
    assert moved.locator(".statement.is-outdated").count() == 1
    assert "my sister Ines · home: Lyon" in moved.locator(".statement").all_inner_texts()
    struck = moved.locator(".statement.is-outdated").evaluate("e => getComputedStyle(e).textDecorationLine")
    assert struck == "line-through"
    shot(page, "memory-statements")
