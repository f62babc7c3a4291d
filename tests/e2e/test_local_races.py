"""Concurrent requests on one user, through `make run` over HTTP: identical adds store one memory,
distinct adds store each, and a PATCH racing a DELETE and an extraction on one memory leaves its
versions and history consistent. (test_local_concurrency.py covers the front serving in parallel.)"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from tests.e2e.stack_process import Api
from tests.figures import record

pytestmark = pytest.mark.e2e

CONCURRENT = 20
FOODS = [
    "pizza", "sushi", "tacos", "ramen", "paella", "curry", "falafel", "dumplings", "lasagne", "risotto",
    "goulash", "pierogi", "kimchi", "burritos", "croissants", "pancakes", "waffles", "hummus", "gnocchi", "pho",
]  # fmt: skip


def new_user() -> str:
    return f"race-{uuid.uuid4().hex[:12]}"


def together(calls: list[Callable[[], Any]]) -> list[Any]:
    """Run the calls at once, one thread each; their results in order."""
    with ThreadPoolExecutor(max_workers=len(calls)) as pool:
        return list(pool.map(lambda call: call(), calls))


def test_concurrent_identical_adds_store_one_memory_and_distinct_ones_each(acme: Api) -> None:
    same, distinct = new_user(), new_user()
    identical_tasks = together([lambda: acme.add(same, "I love pizza.") for _ in range(CONCURRENT)])
    distinct_tasks = together([lambda food=food: acme.add(distinct, f"I love {food}.") for food in FOODS])
    finished = [acme.wait(task_id) for task_id in identical_tasks + distinct_tasks]

    identical = [m["memory"] for m in acme.memories(same)]
    each = sorted(m["memory"] for m in acme.memories(distinct))
    record(
        "concurrency: 20 identical adds, 20 distinct adds, one user",
        identical_adds=CONCURRENT,
        identical_memories=len(identical),
        distinct_adds=len(FOODS),
        distinct_memories=len(each),
        tasks_failed=sum(t["status"] != "completed" for t in finished),
    )
    assert [t["status"] for t in finished] == ["completed"] * len(finished)
    assert identical == ["Loves pizza"]
    assert each == sorted(f"Loves {food}" for food in FOODS)


def race_once(acme: Api, i: int) -> tuple[tuple[int, int], list[str]]:
    """One memory; at once: a PATCH, a DELETE and an add whose extraction updates it. The two API
    statuses, and what is wrong with the memory afterwards."""
    user = new_user()
    acme.remember(user, "I live in Berlin.")
    (memory,) = acme.memories(user)
    path = f"/v1/memories/{memory['id']}"
    patch, delete, add = together(
        [
            lambda: acme.request("PATCH", path, json={"text": f"Lives in Hamburg {i}"}),
            lambda: acme.request("DELETE", path),
            lambda: acme.add(user, "I moved to Munich."),
        ]
    )
    acme.wait(add)
    problems = consistency_problems(acme, memory["id"], user)
    for name, resp, fine in (("PATCH", patch, (200, 404, 409)), ("DELETE", delete, (200, 204, 404, 409))):
        if resp.status_code not in fine:
            problems.append(f"{name} {memory['id']} answered {resp.status_code}: {resp.text[:200]}")
    return (patch.status_code, delete.status_code), problems


def test_a_patch_racing_a_delete_and_an_extraction_keeps_versions_and_history_consistent(acme: Api) -> None:
    rounds = 6
    races = [race_once(acme, i) for i in range(rounds)]
    outcomes = [statuses for statuses, _ in races]
    broken = [problem for _, problems in races for problem in problems]
    record(
        "concurrency: PATCH racing DELETE and an extraction on one memory",
        rounds=rounds,
        server_errors=sum(code >= 500 for pair in outcomes for code in pair),
        inconsistent_histories=len(broken),
    )
    assert broken == []


def consistency_problems(acme: Api, memory_id: str, user: str) -> list[str]:
    """What is wrong with one memory's versions and history (nothing, when all is well)."""
    events = acme.history(memory_id)
    versions = [e["version"] for e in events]
    problems = []
    if versions != sorted(set(versions)):
        problems.append(f"{memory_id}: versions not strictly increasing: {versions}")
    if events[0]["event"] != "ADD" or versions[0] != 1:
        problems.append(f"{memory_id}: history does not start with its ADD: {events[0]}")
    for before, after in itertools.pairwise(events):
        if after["old_memory"] is not None and after["old_memory"] != before["new_memory"]:
            problems.append(f"{memory_id}: v{after['version']} changed {after['old_memory']!r}, not the last text")
    last = events[-1]
    got = acme.request("GET", f"/v1/memories/{memory_id}")
    current = {m["id"]: m for m in acme.memories(user)}
    if last["event"] == "DELETE":
        if got.status_code != 404 or memory_id in current:
            problems.append(f"{memory_id}: deleted last, but still served ({got.status_code})")
    elif got.status_code != 200 or got.json()["memory"] != last["new_memory"]:
        problems.append(f"{memory_id}: serves {got.text[:80]!r}, history ends with {last['new_memory']!r}")
    if last["event"] != "DELETE" and memory_id not in current:
        problems.append(f"{memory_id}: current by its history, missing from the list")
    if any(hit["id"] == memory_id for hit in acme.search(user, "where do I live")) and last["event"] == "DELETE":
        problems.append(f"{memory_id}: deleted, yet search still finds it")
    return problems
