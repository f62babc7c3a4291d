"""The OpenAI LLM and embedder adapters against the local OpenAI-compatible stub, over real HTTP."""

from __future__ import annotations

import json
import math
import time
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import SecretStr

from engram.adapters.openai.embedder import OpenAIEmbedder, build_openai_client
from engram.adapters.openai.llm import OpenAILLM
from engram.bootstrap import Container
from engram.domain.errors import EngramError, LLMOutputError, TransientError
from engram.settings import Settings
from tests.support.openai_stub import OpenAIStub, embedding_for

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"facts": {"type": "array", "items": {"type": "string"}}},
    "required": ["facts"],
    "additionalProperties": False,
}


@pytest.fixture
def stub() -> Iterator[OpenAIStub]:
    with OpenAIStub() as running:
        yield running


def client_for(stub: OpenAIStub, max_retries: int = 0, timeout: float = 10.0, key: str | None = None) -> Any:
    settings = Settings(
        openai_base_url=stub.base_url,
        openai_api_key=SecretStr(key) if key else None,
        llm_max_retries=max_retries,
        llm_timeout_s=timeout,
    )
    return build_openai_client(settings)


def test_chat_request_asks_for_strict_json_schema_at_temperature_zero(stub: OpenAIStub) -> None:
    stub.script({"facts": ["Lives in Berlin"]})
    llm = OpenAILLM(client_for(stub), "gpt-4o-mini")

    reply = llm.complete_json("Extract facts.", "I live in Berlin", SCHEMA, "facts")

    assert json.loads(reply.content) == {"facts": ["Lives in Berlin"]}
    (request,) = stub.chat_requests
    assert request["model"] == "gpt-4o-mini"
    assert request["temperature"] == 0
    assert request["messages"] == [
        {"role": "system", "content": "Extract facts."},
        {"role": "user", "content": "I live in Berlin"},
    ]
    assert request["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "facts", "schema": SCHEMA, "strict": True},
    }
    assert "logit_bias" not in request  # only sent when tokens are banned


def test_banned_tokens_are_sent_as_a_logit_bias_that_keeps_them_out(stub: OpenAIStub) -> None:
    stub.script({"facts": ["Lives in Berlin"]})
    # as ENGRAM_LLM=local sets them, read from the environment's text by the container's wiring
    settings = Settings(
        openai_base_url=stub.base_url, llm_model="local-model", llm_banned_tokens="198, 271,", breaker_enabled=False
    )
    llm = Container(settings).models.llm
    assert llm is not None

    llm.complete_json("Extract facts.", "I live in Berlin", SCHEMA, "facts")

    (request,) = stub.chat_requests
    assert request["logit_bias"] == {"198": -100, "271": -100}


def test_usage_is_taken_from_the_response(stub: OpenAIStub) -> None:
    stub.script('{"facts": ["a b c"]}')
    reply = OpenAILLM(client_for(stub), "m").complete_json("one two", "three four five", SCHEMA, "facts")
    assert reply.usage.llm_calls == 1
    assert reply.usage.prompt_tokens == 5 == stub.prompt_tokens
    assert reply.usage.completion_tokens == 4 == stub.completion_tokens  # words of the answer


def test_missing_usage_counts_zero_tokens() -> None:
    with OpenAIStub(include_usage=False) as stub:
        reply = OpenAILLM(client_for(stub), "m").complete_json("s", "u", SCHEMA, "facts")
    assert (reply.usage.llm_calls, reply.usage.prompt_tokens, reply.usage.completion_tokens) == (1, 0, 0)


def test_falls_back_to_json_object_once_and_remembers() -> None:
    with OpenAIStub(accept_json_schema=False) as stub:
        stub.script({"facts": ["first"]}, {"facts": ["second"]})
        llm = OpenAILLM(client_for(stub), "local-model")

        first = llm.complete_json("Extract facts.", "hi", SCHEMA, "facts")
        second = llm.complete_json("Extract facts.", "again", SCHEMA, "facts")

        assert json.loads(first.content) == {"facts": ["first"]}
        assert json.loads(second.content) == {"facts": ["second"]}
        formats = [r["response_format"]["type"] for r in stub.chat_requests]
        # One rejected json_schema request, then JSON mode only.
        assert formats == ["json_schema", "json_object", "json_object"]
        fallback_system = stub.chat_requests[1]["messages"][0]["content"]
        assert fallback_system.startswith("Extract facts.")
        assert json.dumps(SCHEMA, separators=(",", ":")) in fallback_system


def test_a_single_response_format_rejection_also_falls_back(stub: OpenAIStub) -> None:
    stub.fail_next(1, status=400, message="Invalid parameter: 'response_format' of type 'json_schema'")
    stub.script({"facts": []})
    reply = OpenAILLM(client_for(stub), "m").complete_json("s", "u", SCHEMA, "facts")
    assert json.loads(reply.content) == {"facts": []}
    assert [r["response_format"]["type"] for r in stub.chat_requests] == ["json_schema", "json_object"]


@pytest.mark.parametrize(
    "message",
    [
        "Invalid value for 'messages': expected an array",
        "Invalid schema for response_format 'facts': 'additionalProperties' is required to be false",
    ],
)
def test_other_bad_requests_are_errors_without_fallback(stub: OpenAIStub, message: str) -> None:
    stub.fail_next(1, status=400, message=message)
    with pytest.raises(EngramError, match="400") as caught:
        OpenAILLM(client_for(stub), "m").complete_json("s", "u", SCHEMA, "facts")
    assert not isinstance(caught.value, TransientError)
    assert message[:20] in str(caught.value)
    assert len(stub.chat_requests) == 1


def test_rate_limit_then_success_is_retried_by_the_client(stub: OpenAIStub) -> None:
    stub.fail_next(1, status=429)
    stub.script({"facts": ["ok"]})
    reply = OpenAILLM(client_for(stub, max_retries=2), "m").complete_json("s", "u", SCHEMA, "facts")
    assert json.loads(reply.content) == {"facts": ["ok"]}
    assert [r.status for r in stub.requests] == [429, 200]


@pytest.mark.parametrize("status", [429, 500, 503])
def test_exhausted_retries_become_transient_errors(stub: OpenAIStub, status: int) -> None:
    stub.fail_next(10, status=status)
    with pytest.raises(TransientError, match=str(status)):
        OpenAILLM(client_for(stub, max_retries=1), "m").complete_json("s", "u", SCHEMA, "facts")
    assert len(stub.chat_requests) == 2  # the first try and one retry


def test_wrong_api_key_is_a_permanent_error() -> None:
    with OpenAIStub(api_key="right-key") as stub:
        with pytest.raises(EngramError, match="401") as caught:
            OpenAILLM(client_for(stub, max_retries=2, key="wrong-key"), "m").complete_json("s", "u", SCHEMA, "facts")
        assert not isinstance(caught.value, TransientError)
        assert len(stub.requests) == 1  # not retried


def test_unreachable_server_is_transient() -> None:
    with OpenAIStub() as stub:
        client = client_for(stub)
    # The stub has stopped: nothing listens on that port any more.
    with pytest.raises(TransientError, match="cannot reach"):
        OpenAILLM(client, "m").complete_json("s", "u", SCHEMA, "facts")


def test_timeout_is_transient() -> None:
    def slow(request: dict[str, Any]) -> str:
        time.sleep(1.0)
        return "{}"

    with OpenAIStub(responder=slow) as stub:
        with pytest.raises(TransientError):
            OpenAILLM(client_for(stub, timeout=0.2), "m").complete_json("s", "u", SCHEMA, "facts")


def test_empty_answer_is_an_llm_output_error() -> None:
    with OpenAIStub(responder=lambda request: "") as stub:
        with pytest.raises(LLMOutputError):
            OpenAILLM(client_for(stub), "m").complete_json("s", "u", SCHEMA, "facts")


def test_stub_defaults_to_empty_facts_or_memory(stub: OpenAIStub) -> None:
    llm = OpenAILLM(client_for(stub), "m")
    memory_schema = {"type": "object", "properties": {"memory": {"type": "array"}}}
    assert json.loads(llm.complete_json("s", "u", SCHEMA, "facts").content) == {"facts": []}
    assert json.loads(llm.complete_json("s", "u", memory_schema, "decisions").content) == {"memory": []}


# --- embeddings ---------------------------------------------------------------------------


def test_embeddings_come_in_one_call_with_dimensions(stub: OpenAIStub) -> None:
    embedder = OpenAIEmbedder(client_for(stub), "text-embedding-3-small", 256)
    texts = ["I live in Berlin", "I like sushi", "I live in Berlin", "My dog is Rex"]

    vectors = embedder.embed(texts)

    (request,) = stub.embedding_requests
    assert request["model"] == "text-embedding-3-small"
    assert request["input"] == texts
    assert request["dimensions"] == 256
    assert embedder.dimensions == 256
    assert [len(v) for v in vectors] == [256] * 4
    assert vectors[0] == vectors[2]
    for text, vector in zip(texts, vectors, strict=True):
        assert vector == pytest.approx(embedding_for(text, 256), abs=1e-6)  # order kept


def test_embeddings_are_renormalised() -> None:
    with OpenAIStub() as stub:
        stub.embedding_scale = 7.5  # a server whose vectors are not unit length
        vectors = OpenAIEmbedder(client_for(stub), "other-model", 64).embed(["a", "b"])
    for vector in vectors:
        assert math.isclose(math.sqrt(sum(x * x for x in vector)), 1.0, rel_tol=1e-9)


def test_dimensions_are_omitted_when_not_given(stub: OpenAIStub) -> None:
    embedder = OpenAIEmbedder(client_for(stub), "text-embedding-3-small", None)
    assert embedder.dimensions == 1536
    vectors = embedder.embed(["hello"])
    assert "dimensions" not in stub.embedding_requests[0]
    assert len(vectors[0]) == 1536


def test_unknown_model_learns_its_dimensions_from_the_first_answer() -> None:
    with OpenAIStub(embedding_dimensions=768) as stub:
        embedder = OpenAIEmbedder(client_for(stub), "nomic-embed-text", None)
        assert len(embedder.embed(["hello"])[0]) == 768
        assert embedder.dimensions == 768


def test_no_texts_make_no_request(stub: OpenAIStub) -> None:
    assert OpenAIEmbedder(client_for(stub), "text-embedding-3-small", 8).embed([]) == []
    assert stub.requests == []


def test_embedding_errors_are_translated(stub: OpenAIStub) -> None:
    embedder = OpenAIEmbedder(client_for(stub), "text-embedding-3-small", 8)
    stub.fail_next(1, status=500, path="/v1/embeddings")
    with pytest.raises(TransientError):
        embedder.embed(["x"])
    stub.fail_next(1, status=400, message="dimensions must be at most 1536", path="/v1/embeddings")
    with pytest.raises(EngramError, match="dimensions must be at most 1536") as caught:
        embedder.embed(["x"])
    assert not isinstance(caught.value, TransientError)


# --- the client -----------------------------------------------------------------------------


def test_base_url_without_api_key_uses_a_placeholder_key(stub: OpenAIStub) -> None:
    client = build_openai_client(Settings(openai_base_url=stub.base_url))
    vectors = OpenAIEmbedder(client, "text-embedding-3-small", 16).embed(["hi"])
    assert len(vectors[0]) == 16
    assert stub.requests[0].headers["authorization"] == "Bearer engram-no-key"


def test_client_honours_key_timeout_and_retries(stub: OpenAIStub) -> None:
    settings = Settings(
        openai_base_url=stub.base_url,
        openai_api_key=SecretStr("sk-test"),
        llm_timeout_s=12.5,
        llm_max_retries=4,
    )
    client = build_openai_client(settings)
    assert client.max_retries == 4
    assert client.timeout == 12.5
    OpenAIEmbedder(client, "text-embedding-3-small", 8).embed(["hi"])
    assert stub.requests[0].headers["authorization"] == "Bearer sk-test"


def test_unconfigured_client_is_a_clear_error() -> None:
    with pytest.raises(EngramError, match="ENGRAM_OPENAI_API_KEY"):
        build_openai_client(Settings())


def test_ping_lists_models_and_costs_no_completion(stub: OpenAIStub) -> None:
    OpenAILLM(client_for(stub), "gpt-4o-mini").ping()
    assert [r.path for r in stub.requests] == ["/v1/models"] and not stub.chat_requests


def test_ping_reports_a_server_that_is_down(stub: OpenAIStub) -> None:
    stub.fail_next(1, status=503)
    with pytest.raises(TransientError):
        OpenAILLM(client_for(stub, max_retries=2), "gpt-4o-mini").ping()
    assert len(stub.requests) == 1  # no retries: health wants an answer now
