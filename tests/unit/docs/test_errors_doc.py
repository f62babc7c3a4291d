"""docs/errors.md's table of statuses and `error` codes against what answers them: the API function's one
mapping place (shared/engram/http/errors.py) and API Gateway's own answers (template.yaml's GatewayResponses,
which the local stack renders too). A code answered with a status the table does not say, or a code the table
leaves out, fails here."""

from __future__ import annotations

import json
import re
from pathlib import Path

from engram.domain import chat, errors
from engram.http.errors import INTERNAL_ERROR, REQUEST_ERRORS, status_of
from engram_tools.local.template import load_yaml

ROOT = Path(__file__).resolve().parents[3]
ROW = re.compile(r"^\| ([\d /]+) \| (`\w+`(?:, `\w+`)*) \|", re.MULTILINE)


def documented() -> dict[str, set[int]]:
    """`error` code -> the statuses docs/errors.md gives it."""
    table: dict[str, set[int]] = {}
    for statuses, codes in ROW.findall((ROOT / "docs" / "errors.md").read_text(encoding="utf-8")):
        for code in re.findall(r"`(\w+)`", codes):
            table.setdefault(code, set()).update(int(s) for s in statuses.split("/"))
    return table


def domain_errors() -> dict[str, int]:
    """Every domain error the API function can raise -> its status. UpstreamError is the chat proxy's model
    server answering an error, relayed as that server sent it (docs/errors.md, the chat proxy)."""
    found: dict[str, int] = {}
    pending = [errors.EngramError]
    while pending:
        kind = pending.pop()
        pending.extend(kind.__subclasses__())
        if kind not in (errors.EngramError, chat.UpstreamError):
            found[kind.__name__] = status_of(kind)
    return found


def gateway_answers() -> dict[str, int]:
    """API Gateway's own answers with a fixed status (DEFAULT_4XX/5XX pass the status through)."""
    template = load_yaml(ROOT / "template.yaml")
    api = next(r for r in template["Resources"].values() if r["Type"] == "AWS::Serverless::Api")
    found: dict[str, int] = {}
    for answer in api["Properties"]["GatewayResponses"].values():
        if "StatusCode" in answer:
            body = answer["ResponseTemplates"]["application/json"]
            body = body["Fn::Sub"] if isinstance(body, dict) else body
            found[json.loads(re.sub(r"\$\{\w+\}", "0", body))["error"]] = int(answer["StatusCode"])
    return found


def test_every_code_the_api_function_answers_has_the_status_the_doc_gives_it() -> None:
    doc = documented()
    answered = {**domain_errors(), **REQUEST_ERRORS, INTERNAL_ERROR: 500}
    wrong = {code: (status, doc.get(code)) for code, status in answered.items() if doc.get(code) != {status}}
    assert not wrong, f"code: (status the code answers, statuses docs/errors.md gives): {wrong}"


def test_every_answer_of_api_gateway_itself_is_in_the_doc_with_its_status() -> None:
    doc = documented()
    wrong = {
        code: (status, doc.get(code)) for code, status in gateway_answers().items() if status not in doc.get(code, ())
    }
    assert not wrong, f"code: (status API Gateway answers, statuses docs/errors.md gives): {wrong}"


def test_the_doc_names_no_code_that_nothing_answers() -> None:
    answered = {*domain_errors(), *REQUEST_ERRORS, INTERNAL_ERROR, *gateway_answers()}
    assert set(documented()) - answered == set()


def test_a_body_that_is_not_utf8_is_refused_as_not_json_with_the_mapped_status() -> None:
    from engram.http.screen import screen

    refused = screen({"body": "eyJhIjogIv8ifQ==", "isBase64Encoded": True, "headers": {}})  # {"a": "\xff"}
    assert refused is not None
    body = json.loads(refused["body"])
    assert (refused["statusCode"], body["error"]) == (400, "InvalidJSONError")
    assert documented()["InvalidJSONError"] == {400}
    assert "UTF-8" in body["message"]
