"""AnthropicChat with the real anthropic SDK against the fake provider server."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator

import pytest

from planexec.errors import ConfigError, LLMError, LLMUnreachable
from planexec.llm.anthropic_chat import AnthropicChat
from planexec.llm.base import Message, complete_json
from planexec.llm.retry import RetryPolicy
from tests.fakeprovider import FakeProvider, error, not_json, rate_limited, slow, text

HI = [Message("user", "hi")]
SCHEMA = {"type": "object", "properties": {"mean": {"type": "number"}}, "required": ["mean"]}


@pytest.fixture
def sleeps() -> list[float]:
    return []


@pytest.fixture
def make(sleeps: list[float]) -> Iterator:
    made: list[AnthropicChat] = []

    def factory(fake: FakeProvider, *, timeout: float = 2.0, max_retries: int = 3) -> AnthropicChat:
        policy = RetryPolicy(max_retries=max_retries, sleep=sleeps.append)
        llm = AnthropicChat("claude-fake", "ak-test", fake.anthropic_url, timeout=timeout, retry=policy)
        made.append(llm)
        return llm

    yield factory
    for llm in made:
        llm.close()


def test_text_completion_moves_system_messages_and_counts_usage(make) -> None:
    with FakeProvider([text("hello", usage=(9, 4)), text("two", usage=(1, 1))]) as fake:
        llm = make(fake)
        first = llm.complete([Message("system", "be brief"), *HI], max_tokens=64, temperature=0.2)
        llm.complete(HI)
    assert first.text == "hello" and first.finish_reason == "end_turn"
    assert (llm.usage.calls, llm.usage.prompt_tokens, llm.usage.completion_tokens) == (2, 10, 5)
    assert llm.usage.prompt_chars == len("be brief") + 2 * len("hi")
    sent = fake.requests[0]
    assert sent.path == "/v1/messages"
    assert sent.body["system"] == "be brief"
    assert sent.body["messages"] == [{"role": "user", "content": "hi"}]
    assert (sent.body["max_tokens"], sent.body["temperature"]) == (64, 0.2)
    assert "system" not in fake.requests[1].body
    assert fake.requests[1].body["max_tokens"] == 4096  # the API requires one


def test_json_schema_is_stated_in_the_system_prompt(make) -> None:
    with FakeProvider(['{"mean": 2.5}']) as fake:
        llm = make(fake)
        out = llm.complete([Message("system", "analyst"), *HI], json_schema=SCHEMA)
        assert json.loads(out.text) == {"mean": 2.5}
        system = fake.requests[0].body["system"]
        assert system.startswith("analyst") and json.dumps(SCHEMA) in system


def test_only_system_text_still_sends_a_user_turn(make) -> None:
    with FakeProvider(["ok"]) as fake:
        make(fake).complete([Message("system", "say ok")])
        assert fake.requests[0].body["messages"] == [{"role": "user", "content": "say ok"}]


def test_429_with_retry_after_then_success(make, sleeps) -> None:
    with FakeProvider([rate_limited(retry_after=1), error(529, "overloaded"), "done"]) as fake:
        assert make(fake).complete(HI).text == "done"
        assert fake.count() == 3
    assert sleeps[0] == 1.0 and len(sleeps) == 2


def test_timeout_then_success(make) -> None:
    with FakeProvider([slow(1.5), "in time"]) as fake:
        assert make(fake, timeout=0.3).complete(HI).text == "in time"
        assert fake.count() == 2


def test_persistent_500_is_bounded(make) -> None:
    with FakeProvider(default=error(500)) as fake:
        with pytest.raises(LLMError, match="Anthropic .* HTTP 500 after 3 attempt"):
            make(fake, max_retries=2).complete(HI)
        assert fake.count() == 3


def test_401_names_the_key_and_is_not_retried(make, sleeps) -> None:
    with FakeProvider(default=error(401, "invalid x-api-key")) as fake:
        with pytest.raises(ConfigError, match="ANTHROPIC_API_KEY"):
            make(fake).complete(HI)
        assert fake.count() == 1
    assert sleeps == []


def test_400_is_not_retried(make) -> None:
    with FakeProvider(default=error(400, "messages: roles must alternate")) as fake:
        with pytest.raises(LLMError, match="roles must alternate"):
            make(fake).complete(HI)
        assert fake.count() == 1


def test_body_that_is_not_json_then_success(make) -> None:
    with FakeProvider([not_json(), "fine"]) as fake:
        assert make(fake).complete(HI).text == "fine"


def test_connection_refused_names_the_url() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{s.getsockname()[1]}"
    llm = AnthropicChat("m", "k", url, timeout=2, retry=RetryPolicy(max_retries=1, base=0.01))
    with pytest.raises(LLMUnreachable, match="--llm none") as caught:
        llm.complete(HI)
    assert url in str(caught.value)
    llm.close()


def test_complete_json_reasks_once(make) -> None:
    with FakeProvider(['{"mean": "two"}', '```json\n{"mean": 2.0}\n```']) as fake:
        assert complete_json(make(fake), HI, SCHEMA) == {"mean": 2.0}
        reask = fake.requests[1].body["messages"]
        assert [m["role"] for m in reask] == ["user", "assistant", "user"]
        assert "not valid" in reask[-1]["content"]


def test_missing_key_is_a_config_error(monkeypatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="ANTHROPIC_API_KEY"):
        AnthropicChat("m")
