"""Every error the local stack gives, whichever part gives it (its API Gateway front, the authorizer, the
API function), has the one shape of docs/errors.md; the gateway's answers are the template's."""

from __future__ import annotations

import httpx
import pytest

from engram.domain.limits import MAX_BODY_BYTES
from engram_client import Engram
from engram_client.openai import chat_client
from tests.e2e.conftest import ACME_KEY
from tests.e2e.stack_process import StackProcess
from tests.support.error_shape import CHAT, Probe, check_probe, check_shape, probes

PROBES = probes(ACME_KEY)


@pytest.mark.parametrize("probe", PROBES, ids=[p.id for p in PROBES])
def test_every_route_answers_each_error_in_the_one_shape(stack: StackProcess, probe: Probe) -> None:
    resp = httpx.request(probe.method, stack.url + probe.path, headers=probe.headers, content=probe.body, timeout=30)

    check_probe(probe, resp.status_code, resp.content)


def test_a_json_body_without_a_content_type_is_read_as_json(stack: StackProcess) -> None:
    """curl -d without -H 'content-type: application/json' sends application/x-www-form-urlencoded."""
    body = b'{"user_id": "alice", "messages": [{"role": "user", "content": "I like tea"}]}'
    for content_type in (None, "application/x-www-form-urlencoded", "text/plain"):
        headers = {"x-api-key": ACME_KEY} | ({"content-type": content_type} if content_type else {})
        resp = httpx.post(stack.url + "/v1/memories", headers=headers, content=body, timeout=30)
        assert resp.status_code == 202, (content_type, resp.text)

    missing = httpx.post(stack.url + "/v1/memories", headers={"x-api-key": ACME_KEY}, content=b'{"user_id": "a"}')
    payload = check_shape(missing.status_code, missing.content, "/v1/memories")
    assert missing.status_code == 422 and payload["field"] == "messages", payload
    assert [d["field"] for d in payload["detail"]] == ["messages"]  # no "extra input" quoting the body


def test_a_body_over_the_limit_is_413_in_the_shape(stack: StackProcess) -> None:
    headers = {"x-api-key": ACME_KEY, "content-type": "application/json"}
    resp = httpx.post(stack.url + "/v1/memories", headers=headers, content=b" " * (MAX_BODY_BYTES + 1), timeout=60)

    payload = check_shape(resp.status_code, resp.content, "/v1/memories")
    assert resp.status_code == 413 and payload["code"] == "PayloadTooLargeError"


def test_the_chat_proxy_without_an_llm_is_a_503_in_openai_shape_not_to_retry(stack: StackProcess) -> None:
    body = {"user": "alice", "messages": [{"role": "user", "content": "hi"}]}
    resp = httpx.post(stack.url + CHAT, headers={"x-api-key": ACME_KEY}, json=body, timeout=30)

    payload = check_shape(resp.status_code, resp.content, CHAT)
    assert resp.status_code == 503 and resp.headers["x-should-retry"] == "false"
    assert payload["error"]["code"] == "ConfigurationError" and "ENGRAM_OPENAI_API_KEY" in payload["error"]["message"]


def test_the_openai_client_shows_the_proxy_errors_and_does_not_retry_what_will_not_change(
    stack: StackProcess,
) -> None:
    openai = pytest.importorskip("openai")
    sent: list[httpx.Request] = []
    http = httpx.Client(event_hooks={"request": [sent.append]})
    chat = chat_client(Engram(stack.url, ACME_KEY), user_id="alice", http_client=http)  # default retries (2)

    with pytest.raises(openai.InternalServerError) as no_llm:
        chat.chat.completions.create(model="any", messages=[{"role": "user", "content": "hi"}])

    assert no_llm.value.status_code == 503 and len(sent) == 1  # not retried: no LLM is configured
    assert "ENGRAM_OPENAI_API_KEY" in str(no_llm.value) and no_llm.value.code == "ConfigurationError"
    anonymous = openai.OpenAI(base_url=f"{stack.url}/v1", api_key=ACME_KEY, default_headers={"x-api-key": ACME_KEY})
    with pytest.raises(openai.UnprocessableEntityError) as no_user:
        anonymous.chat.completions.create(model="any", messages=[{"role": "user", "content": "hi"}])
    assert no_user.value.param == "user" and "x-engram-user-id" in no_user.value.message
