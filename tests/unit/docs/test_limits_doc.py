"""The limits the docs state against the code's constants: docs/api.md's "Limits" table, row by row, and the
body limit docs/errors.md gives for 413. A limit changed in the code (or a figure written by hand in a doc)
without the other fails here; so does a new row of the table that no check reads."""

from __future__ import annotations

import re
from pathlib import Path

from engram.domain import imports, limits
from engram.http.models import SearchBody
from engram.settings import Settings
from engram_tools.local.template import load_yaml

ROOT = Path(__file__).resolve().parents[3]
MIB, KIB = 1024 * 1024, 1024
TO = "\u2013"  # the en dash the docs write ranges with (1 to 256)


def figure(n: int | float) -> str:
    """A number as the docs write it: 100,000; 0.0."""
    return f"{n:,}" if isinstance(n, int) else str(n)


def mib(n: int) -> str:
    assert n % MIB == 0, n
    return f"{n // MIB} MiB"


def limits_table() -> dict[str, str]:
    """`what` -> `limit` of docs/api.md's Limits table."""
    text = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    section = text.split("\n## Limits\n", 1)[1].split("\n## ", 1)[0]
    return {m[0]: m[1] for m in re.findall(r"^\| (.+?) \| (.+?) \| .+ \|$", section, re.MULTILINE)[1:]}


def expected() -> dict[str, list[str]]:
    """`what` -> the figures its limit must state, each from the code."""
    search = SearchBody.model_json_schema()["properties"]
    parameters = load_yaml(ROOT / "template.yaml")["Parameters"]
    inline = Settings.model_fields["max_attachment_inline_bytes"].default
    return {
        "request body": [mib(limits.MAX_BODY_BYTES)],
        "JSON nesting": [f"{limits.MAX_JSON_DEPTH} levels"],
        "messages per add": [figure(limits.MAX_MESSAGES)],
        "memories per import": [figure(imports.MAX_IMPORT_MEMORIES)],
        "relations per import": [figure(imports.MAX_IMPORT_RELATIONS)],
        "characters per message": [figure(limits.MAX_MESSAGE_CHARS)],
        "`user_id`, `agent_id`, `run_id`": [f"1{TO}{figure(limits.MAX_ID_CHARS)} characters"],
        "metadata": [f"{limits.MAX_METADATA_BYTES // KIB} KiB", f"{limits.MAX_METADATA_DEPTH} levels"],
        "search `query` / `top_k`": [
            f"{figure(limits.MAX_QUERY_CHARS)} characters",
            f"{search['top_k']['minimum']}{TO}{search['top_k']['maximum']}",
        ],
        "list `limit`": [f"1{TO}1,000"],  # the list routes' Query(ge=1, le=1000), checked by the API tests
        "memory `importance` (`PATCH`)": [f"{limits.MIN_IMPORTANCE}{TO}{limits.MAX_IMPORTANCE}"],
        "attachment content": [mib(inline)],
        "text": [],  # valid UTF-8, no NUL: a rule, not a figure
        "requests per API key": [
            f"{figure(parameters['ThrottleRateLimit']['Default'])} a second",
            f"bursts of {figure(parameters['ThrottleBurstLimit']['Default'])}",
        ],
    }


def test_every_row_of_the_limits_table_states_the_code_s_figures() -> None:
    table, wanted = limits_table(), expected()
    assert sorted(table) == sorted(wanted), "a row of docs/api.md's Limits table has no check here, or lost one"
    wrong = {
        what: (table[what], figures) for what, figures in wanted.items() if not all(f in table[what] for f in figures)
    }
    assert not wrong, f"row: (what docs/api.md says, the figures of the code): {wrong}"


def test_the_errors_page_gives_the_body_limit_of_the_code() -> None:
    errors = (ROOT / "docs" / "errors.md").read_text(encoding="utf-8")
    row = next(line for line in errors.splitlines() if line.startswith("| 413 |"))
    assert re.findall(r"\d+ Mi?B", row) == [mib(limits.MAX_BODY_BYTES)], row
    assert "MAX_BODY_BYTES" in row


def test_the_openapi_example_of_a_413_gives_the_body_limit_of_the_code() -> None:
    from engram.http.openapi import ERROR_EXAMPLES

    assert f"the limit is {limits.MAX_BODY_BYTES} (MAX_BODY_BYTES)" in ERROR_EXAMPLES["413"][1]["message"]
