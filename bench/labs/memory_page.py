"""The memory page with 1,000 memories in headless Chromium against `python -m engram_tools.local`: how long
the first page, each further page (More), a bank filter and a search take to show, medians of runs.

    .venv/bin/python -m bench.labs.memory_page [--memories 1000] [--runs 3]

Needs Debian's chromium (/usr/bin/chromium); Playwright drives it and downloads nothing.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from bench.rig.procs import LocalStack

BANKS = ("Personal", "Work", "Interests", "Health", "Relationships")


def seed(stack: LocalStack, user: str, count: int) -> None:
    for start in range(0, count, 100):
        memories = [
            {
                "memory": f"Memory {i:04d}: likes trail running and {('tea', 'jazz', 'chess')[i % 3]}",
                "memory_bank": BANKS[i % 5],
            }
            for i in range(start, min(count, start + 100))
        ]
        reply = httpx.post(
            f"{stack.url}/v1/memories/import",
            headers=stack.headers,
            timeout=60,
            json={"user_id": user, "memories": memories},
        )
        reply.raise_for_status()
        if reply.status_code == 202:
            task = reply.json()["task_id"]
            while httpx.get(f"{stack.url}/v1/tasks/{task}", headers=stack.headers).json()["status"] != "completed":
                time.sleep(0.2)


def timed(page: Any, action: Any, until: str) -> float:
    began = time.perf_counter()
    action()
    page.wait_for_function(until, timeout=120_000)
    return (time.perf_counter() - began) * 1000


def run(stack: LocalStack, browser: Any, user: str, count: int) -> dict[str, Any]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.goto(f"{stack.url}/ui")
    page.get_by_label("API key", exact=True).fill(stack.API_KEY)
    page.get_by_role("button", name="Use this key").click()
    page.locator("#workspace").wait_for()
    page.get_by_label("User", exact=True).fill(user)
    first = timed(
        page,
        lambda: page.get_by_role("button", name="Show").click(),
        "document.querySelectorAll('li.mem').length === 100",
    )
    more = []
    for shown in range(200, count + 1, 100):
        more.append(
            timed(
                page,
                lambda: page.evaluate("document.getElementById('more').click()"),
                f"document.querySelectorAll('li.mem').length === {shown}",
            )
        )
    bank = timed(
        page,
        lambda: page.get_by_label("Bank", exact=True).first.select_option("Work"),
        f"document.querySelectorAll('li.mem').length === {min(count // 5, 100)}",
    )
    page.get_by_role("searchbox", name="Search").fill("who likes jazz?")
    search = timed(
        page,
        lambda: page.get_by_role("button", name="Search", exact=True).click(),
        "document.querySelector('li.mem .score') !== null",
    )
    context.close()
    return {"first": first, "more": statistics.median(more), "more_max": max(more), "bank": bank, "search": search}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp, LocalStack(Path(tmp) / "data") as stack:
        seed(stack, "bench-page", args.memories)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=["--no-sandbox"])
            runs = [run(stack, browser, "bench-page", args.memories) for _ in range(args.runs)]
            browser.close()
    for key in runs[0]:
        values = [r[key] for r in runs]
        print(f"{key:>9}: median {statistics.median(values):7.0f} ms  (runs: {', '.join(f'{v:.0f}' for v in values)})")


if __name__ == "__main__":
    main()
