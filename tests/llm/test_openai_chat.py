"""OpenAIChat with the real openai SDK against the fake provider server."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from planexec.errors import ConfigError, LLMError, LLMUnreachable
from planexec.llm.base import Message, complete_json
from planexec.llm.openai_chat import OpenAIChat
from planexec.llm.retry import RetryPolicy
from tests.fakeprovider import FakeProvider, error, not_json, rate_limited, slow, text

HI = [Message("user", "hi")]
SCHEMA = {
    "title": "step list",
    "type": "object",
    "properties": {"steps": {"type": "array", "items": {"type": "string"}}},
    "required": ["steps"],
}


@pytest.fixture
def sleeps() -> list[float]:
    return []


@pytest.fixture
def make(sleeps: list[float]) -> Iterator:
    made: list[OpenAIChat] = []

    def factory(fake: FakeProvider, *, timeout: float = 2.0, max_retries: int = 3) -> OpenAIChat:
        policy = RetryPolicy(max_retries=max_retries, sleep=sleeps.append)
        llm = OpenAIChat("fake-model", "sk-test", fake.openai_url, timeout=timeout, retry=policy)
        made.append(llm)
        return llm

    yield factory
    for llm in made:
        llm.close()


def test_text_completion_sends_messages_and_accumulates_usage(make) -> None:
    with FakeProvider([text("hello", usage=(5, 2)), text("again", usage=(7, 3))]) as fake:
        llm = make(fake)
        first = llm.complete([Message("system", "be brief"), *HI], max_tokens=50, temperature=0)
        second = llm.complete(HI)
    assert (first.text, second.text) == ("hello", "again")
    assert first.finish_reason == "stop"
    assert (first.usage.prompt_tokens, first.usage.completion_tokens) == (5, 2)
    assert llm.usage.calls == 2
    assert (llm.usage.prompt_tokens, llm.usage.completion_tokens) == (12, 5)
    assert llm.usage.prompt_chars == len("be brief") + 2 * len("hi")
    sent = fake.requests[0]
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == "Bearer sk-test"
    assert sent.headers["x-stainless-retry-count"] == "0"
    assert sent.body["model"] == "fake-model"
    assert sent.body["messages"] == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "hi"},
    ]
    assert sent.body["max_tokens"] == 50 and sent.body["temperature"] == 0
    assert "response_format" not in sent.body


def test_usage_accumulates_across_threads(make) -> None:
    with FakeProvider(default=text("ok", usage=(3, 1))) as fake:
        llm = make(fake)
        with ThreadPoolExecutor(4) as pool:
            texts = list(pool.map(lambda _: llm.complete(HI).text, range(12)))
    assert texts == ["ok"] * 12
    assert (llm.usage.calls, llm.usage.prompt_tokens, llm.usage.completion_tokens) == (12, 36, 12)


def test_429_honours_retry_after_then_succeeds(make, sleeps) -> None:
    with FakeProvider([rate_limited(retry_after=2), "done"]) as fake:
        assert make(fake).complete(HI).text == "done"
        assert fake.count() == 2
    assert sleeps == [2.0]


def test_retry_after_ms_wins_and_huge_retry_after_is_capped(sleeps) -> None:
    policy = RetryPolicy(max_retries=2, retry_after_cap=5.0, sleep=sleeps.append)
    with FakeProvider([rate_limited(retry_after_ms=250), rate_limited(retry_after=3600), "ok"]) as fake:
        llm = OpenAIChat("m", "k", fake.openai_url, timeout=2, retry=policy)
        assert llm.complete(HI).text == "ok"
        llm.close()
    assert sleeps == [0.25, 5.0]


def test_500_then_success_backs_off(make, sleeps) -> None:
    with FakeProvider([error(500), error(503), "fine"]) as fake:
        assert make(fake).complete(HI).text == "fine"
        assert fake.count() == 3
    assert len(sleeps) == 2
    assert 0.25 <= sleeps[0] <= 0.5 and 0.5 <= sleeps[1] <= 1.0  # base 0.5, doubling, jitter


def test_timeout_then_success(make) -> None:
    with FakeProvider([slow(1.5), "in time"]) as fake:
        llm = make(fake, timeout=0.3)
        started = time.monotonic()
        assert llm.complete(HI).text == "in time"
        assert time.monotonic() - started < 1.5
        assert fake.count() == 2


def test_persistent_500_fails_after_bounded_retries(make, sleeps) -> None:
    with FakeProvider(default=error(500, "boom")) as fake:
        with pytest.raises(LLMError, match=r"HTTP 500 after 4 attempt\(s\): boom"):
            make(fake, max_retries=3).complete(HI)
        assert fake.count() == 4
    assert len(sleeps) == 3


@pytest.mark.parametrize(
    ("status", "kind", "words"),
    [
        (400, LLMError, "HTTP 400"),
        (401, ConfigError, "OPENAI_API_KEY"),
        (403, ConfigError, "OPENAI_API_KEY"),
        (404, ConfigError, "--model"),
        (422, LLMError, "HTTP 422"),
    ],
)
def test_client_errors_are_never_retried(make, sleeps, status, kind, words) -> None:
    with FakeProvider(default=error(status, "nope")) as fake:
        with pytest.raises(kind, match=words) as caught:
            make(fake).complete(HI)
        assert fake.count() == 1
    assert sleeps == []
    assert "nope" in str(caught.value)


def test_body_that_is_not_json_is_retried(make) -> None:
    with FakeProvider([not_json(), not_json("application/json"), "parsed"]) as fake:
        assert make(fake).complete(HI).text == "parsed"
        assert fake.count() == 3


def test_body_that_is_never_json_fails_clearly(make) -> None:
    with FakeProvider(default=not_json()) as fake:
        with pytest.raises(LLMError, match="not a valid reply"):
            make(fake, max_retries=1).complete(HI)
        assert fake.count() == 2


def _refused_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def test_connection_refused_is_unreachable_quickly() -> None:
    url = _refused_url()
    llm = OpenAIChat("m", "k", url, timeout=2, retry=RetryPolicy(max_retries=2, base=0.01))
    started = time.monotonic()
    with pytest.raises(LLMUnreachable) as caught:
        llm.complete(HI)
    assert time.monotonic() - started < 5
    message = str(caught.value)
    assert url in message and "--llm none" in message and "3 attempt" in message
    llm.close()


def test_llamacpp_json_schema_rejection_degrades_once_and_is_remembered(make, sleeps) -> None:
    answer = json.dumps({"steps": ["load", "mean"]})
    with FakeProvider([answer, answer], mode="llamacpp") as fake:
        llm = make(fake)
        assert json.loads(llm.complete(HI, json_schema=SCHEMA).text) == {"steps": ["load", "mean"]}
        assert fake.count() == 2
        rejected, accepted = (r.body["response_format"] for r in fake.requests)
        assert rejected["type"] == "json_schema"
        assert rejected["json_schema"] == {"name": "step_list", "schema": SCHEMA, "strict": False}
        assert accepted == {"type": "json_object", "schema": SCHEMA}
        assert llm.json_mode == "json_object_schema"

        llm.complete(HI, json_schema=SCHEMA)
        assert fake.count() == 3  # straight to the mode that works
        assert fake.requests[-1].body["response_format"]["type"] == "json_object"
    assert sleeps == []  # a refusal burns no retries
    assert llm.usage.calls == 2


def test_server_without_response_format_gets_the_schema_in_the_prompt(make, sleeps) -> None:
    with FakeProvider(['{"steps": []}', '{"steps": ["x"]}'], mode="plain") as fake:
        llm = make(fake)
        llm.complete([Message("system", "plan"), *HI], json_schema=SCHEMA)
        formats = [r.body.get("response_format", {}).get("type") for r in fake.requests]
        assert formats == ["json_schema", "json_object", "json_object", None]
        last = fake.requests[-1].body["messages"]
        assert last[0]["role"] == "system" and json.dumps(SCHEMA) in last[0]["content"]
        assert llm.json_mode == "prompt"
        llm.complete(HI, json_schema=SCHEMA)
        assert fake.count() == 5
        assert fake.requests[-1].body["messages"][0]["role"] == "system"
    assert sleeps == []


def test_unrelated_400_does_not_change_the_remembered_mode(make) -> None:
    with FakeProvider([error(400, "context too long")], mode="plain") as fake:
        llm = make(fake)
        with pytest.raises(LLMError, match="context too long"):
            llm.complete(HI, json_schema=SCHEMA)
        assert llm.json_mode == "json_schema"


def test_ordinary_500_with_response_format_is_retried_not_degraded(make) -> None:
    with FakeProvider([error(500, "upstream hiccup"), '{"steps": []}']) as fake:
        llm = make(fake)
        llm.complete(HI, json_schema=SCHEMA)
        assert [r.body["response_format"]["type"] for r in fake.requests] == ["json_schema"] * 2
        assert llm.json_mode == "json_schema"


def test_complete_json_reasks_once_after_invalid_json(make) -> None:
    with FakeProvider(["here is my plan: {steps: [load", '{"steps": ["load"]}']) as fake:
        value = complete_json(make(fake), HI, SCHEMA, what="plan")
        assert value == {"steps": ["load"]}
        reask = fake.requests[1].body["messages"]
        assert reask[-2] == {"role": "assistant", "content": "here is my plan: {steps: [load"}
        assert "not valid" in reask[-1]["content"]


def test_complete_json_fails_clearly_after_the_reask(make) -> None:
    with FakeProvider(['{"steps": 3}', "still not it"]) as fake:
        with pytest.raises(LLMError, match="after one re-ask"):
            complete_json(make(fake), HI, SCHEMA, what="plan")
        assert fake.count() == 2


def test_missing_key_without_base_url_is_a_config_error(monkeypatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        OpenAIChat("m")


def test_local_server_runs_without_a_key(monkeypatch, make) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with FakeProvider(["local"]) as fake:
        llm = OpenAIChat("m", base_url=fake.openai_url, retry=RetryPolicy(max_retries=0))
        assert llm.complete(HI).text == "local"
        assert fake.requests[0].headers["authorization"] == "Bearer not-needed"
        llm.close()
