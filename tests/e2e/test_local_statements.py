"""Through `make run` (offline, no LLM): every memory carries the statements it makes (issue 42, "One model
of a statement"), the API shows them, a correction of the text re-derives them, and an export imported
elsewhere brings them back (an older export, without them, has them read again)."""

from __future__ import annotations

import io
import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from engram_client import Engram
from engram_client.cli.export import export_user
from engram_client.cli.sources import read_units
from engram_client.cli.transfer import Importer, ImportState
from tests.e2e.conftest import ACME_KEY
from tests.e2e.stack_process import Api, StackProcess

pytestmark = pytest.mark.e2e

SAID = "I live in York and work at Soins Alpins"


def stated(memory: dict[str, Any]) -> set[tuple[str, str, str, str]]:
    return {(s["subject"], s["attribute"], s["value"], s["polarity"]) for s in memory["statements"]}


def kept(acme: Api, user: str, text: str) -> dict[str, Any]:
    task = acme.wait(acme.add(user, text, infer=False))
    assert task["status"] == "completed", task
    [memory] = acme.memories(user)
    return memory


def test_a_memory_shows_its_statements_and_a_new_text_states_anew(acme: Api) -> None:
    user = f"stmt-{uuid.uuid4().hex[:12]}"
    memory = kept(acme, user, SAID)
    got = acme.request("GET", f"/v1/memories/{memory['id']}").json()
    assert stated(got) == {("user", "home", "York", "asserted"), ("user", "employer", "Soins Alpins", "asserted")}
    home = next(s for s in got["statements"] if s["attribute"] == "home")
    assert home["single"] is True and home["outdated_by"] is None and "event_time" in home
    assert stated(acme.search(user, "where do I live?")[0]) == stated(got)

    tagged = acme.request("PATCH", f"/v1/memories/{memory['id']}", {"metadata": {"topic": "me"}})
    assert tagged.status_code == 200, tagged.text
    assert stated(tagged.json()) == stated(got)  # metadata only: what it states is unchanged

    moved = acme.request("PATCH", f"/v1/memories/{memory['id']}", {"text": "I live in Leeds"})
    assert moved.status_code == 200, moved.text
    assert stated(moved.json()) == {("user", "home", "Leeds", "asserted")}
    assert stated(acme.request("GET", f"/v1/memories/{memory['id']}").json()) == {("user", "home", "Leeds", "asserted")}


def test_an_export_imported_elsewhere_keeps_the_statements_and_an_older_one_reads_them(
    stack: StackProcess, acme: Api, tmp_path: Path
) -> None:
    user = f"stmt-{uuid.uuid4().hex[:12]}"
    before = stated(kept(acme, user, SAID))
    out = io.StringIO()
    with Engram(stack.url, ACME_KEY) as client:
        assert export_user(client, user, out) == 1
    exported = tmp_path / "export.jsonl"
    exported.write_text(out.getvalue(), encoding="utf-8")
    header, line, *_relations = out.getvalue().splitlines()  # the graph relations its statements made follow
    assert json.loads(header)["version"] == 5
    assert {(s["attribute"], s["value"]) for s in json.loads(line)["statements"]} == {
        ("home", "York"),
        ("employer", "Soins Alpins"),
    }
    # The same line as an export made before statements were exported.
    older = tmp_path / "older.jsonl"
    record = json.loads(line)
    del record["statements"]
    older.write_text(f"{header}\n{json.dumps(record)}\n", encoding="utf-8")

    for path, target in ((exported, f"{user}-copy"), (older, f"{user}-old")):
        with Engram(stack.url, ACME_KEY) as client:
            report = Importer(client).run(read_units(path, target, 20), ImportState.load(path, target))
        assert (report.added, report.failed) == (1, []), report
        [imported] = acme.memories(target)
        assert stated(imported) == before, path.name
