"""The retry policy: what is transient, how long to wait, what the user is told."""

from __future__ import annotations

import email.utils
import time

import httpx2
import openai
import pytest
from hypothesis import given
from hypothesis import strategies as st

from planexec.errors import ConfigError, LLMError, LLMUnreachable
from planexec.llm.retry import (
    MalformedReply,
    ProviderErrors,
    RequestRejected,
    RetryPolicy,
    call_with_retries,
    retry_after,
)

ERRORS = ProviderErrors(
    provider="OpenAI",
    key_env="OPENAI_API_KEY",
    base_url="http://127.0.0.1:9/v1",
    connection=openai.APIConnectionError,
    timeout=openai.APITimeoutError,
    status=openai.APIStatusError,
)
REQUEST = httpx2.Request("POST", "http://127.0.0.1:9/v1/chat/completions")


def status_error(status: int, headers: dict[str, str] | None = None) -> openai.APIStatusError:
    response = httpx2.Response(status, headers=headers or {}, request=REQUEST)
    return openai.APIStatusError(f"HTTP {status}", response=response, body={"error": {"message": "m"}})


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"Retry-After": "3"}, 3.0),
        ({"retry-after": "0.5"}, 0.5),
        ({"retry-after-ms": "1200", "retry-after": "9"}, 1.2),
        ({"retry-after": "soon"}, None),
        ({}, None),
        (None, None),
    ],
)
def test_retry_after_headers(headers, expected) -> None:
    assert retry_after(headers) == expected


def test_retry_after_http_date() -> None:
    when = email.utils.formatdate(time.time() + 30, usegmt=True)
    assert 25 <= retry_after({"Retry-After": when}) <= 31


@given(
    st.integers(min_value=1, max_value=60),
    st.floats(min_value=0.001, max_value=5),
    st.floats(min_value=0.01, max_value=30),
)
def test_backoff_is_bounded_and_grows(attempt, base, cap) -> None:
    policy = RetryPolicy(base=base, cap=cap)
    ceiling = min(cap, base * 2 ** (attempt - 1))
    wait = policy.backoff(attempt)
    assert ceiling / 2 <= wait <= ceiling <= cap


@pytest.mark.parametrize(
    ("exc", "transient"),
    [
        (status_error(429), True),
        (status_error(500), True),
        (status_error(503), True),
        (status_error(529), True),
        (status_error(400), False),
        (status_error(401), False),
        (status_error(403), False),
        (status_error(404), False),
        (openai.APIConnectionError(request=REQUEST), True),
        (openai.APITimeoutError(REQUEST), True),
        (MalformedReply("html"), True),
        (RequestRejected(status_error(500)), False),
        (ValueError("a bug"), False),
    ],
)
def test_what_is_transient(exc, transient) -> None:
    assert ERRORS.is_transient(exc) is transient


def test_call_with_retries_stops_after_max_attempts() -> None:
    calls, sleeps = [], []

    def failing() -> str:
        calls.append(1)
        raise status_error(502)

    with pytest.raises(LLMError, match="HTTP 502 after 3 attempt"):
        call_with_retries(failing, RetryPolicy(max_retries=2, sleep=sleeps.append), ERRORS)
    assert len(calls) == 3 and len(sleeps) == 2


def test_retry_after_is_used_for_the_wait() -> None:
    replies = iter([status_error(429, {"Retry-After": "7"}), "ok"])
    sleeps: list[float] = []

    def flaky() -> str:
        reply = next(replies)
        if isinstance(reply, Exception):
            raise reply
        return reply

    assert call_with_retries(flaky, RetryPolicy(sleep=sleeps.append), ERRORS) == "ok"
    assert sleeps == [7.0]


def test_rejections_pass_through_untouched() -> None:
    def refusing() -> str:
        raise RequestRejected(status_error(500))

    with pytest.raises(RequestRejected):
        call_with_retries(refusing, RetryPolicy(sleep=lambda _: None), ERRORS)


def test_translations_name_the_fix() -> None:
    assert isinstance(ERRORS.translate(status_error(401), 1), ConfigError)
    assert "OPENAI_API_KEY" in str(ERRORS.translate(status_error(401), 1))
    unreachable = ERRORS.translate(openai.APITimeoutError(REQUEST), 5)
    assert isinstance(unreachable, LLMUnreachable)
    assert "http://127.0.0.1:9/v1" in str(unreachable) and "--llm none" in str(unreachable)
    assert "5 attempt" in str(unreachable)
