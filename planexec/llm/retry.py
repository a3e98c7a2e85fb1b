"""Retries for the provider clients: transient errors only, bounded backoff, clear final errors.

Both official SDKs (OpenAI and Anthropic) share one error shape: status errors carry
`status_code`, `response` (headers) and `body`; connection errors and timeouts carry
neither. The clients disable the SDKs' own retries and call `call_with_retries` instead,
so the policy (what is transient, how long to wait, what the user is told) lives here once.
"""

from __future__ import annotations

import email.utils
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

import tenacity

from planexec.errors import ConfigError, LLMError, LLMUnreachable, PlanexecError
from planexec.llm.budget import BudgetExhausted, current

T = TypeVar("T")

NEVER_RETRY = frozenset({400, 401, 403, 404, 413, 422})


class MalformedReply(Exception):
    """The server answered 2xx with a body that is not the expected JSON object."""


class RequestRejected(Exception):
    """The server refused this exact request (a validation error); asking again cannot help.

    Wraps the SDK error so the caller can degrade the request (e.g. drop `response_format`).
    """

    def __init__(self, cause: BaseException) -> None:
        super().__init__(str(cause))
        self.cause = cause


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to wait before asking a provider again."""

    max_retries: int = 4
    """Retries after the first attempt (so at most max_retries + 1 requests)."""
    base: float = 0.5
    """First backoff in seconds; doubles each retry."""
    cap: float = 20.0
    """Longest backoff between two attempts."""
    retry_after_cap: float = 60.0
    """Longest wait a server's Retry-After header may ask for."""
    sleep: Callable[[float], None] = field(default=time.sleep, compare=False)
    """How to wait; tests inject a recorder so they do not sleep."""

    def backoff(self, retry_number: int) -> float:
        """Exponential backoff with equal jitter: half fixed, half random, capped."""
        ceiling = min(self.cap, self.base * 2 ** max(0, retry_number - 1))
        return ceiling / 2 + random.uniform(0, ceiling / 2)

    def wait_for(self, state: tenacity.RetryCallState) -> float:
        """Seconds before the next attempt: the server's Retry-After if it gave one."""
        exc = state.outcome.exception() if state.outcome else None
        hinted = retry_after(_headers(exc)) if exc is not None else None
        wait = min(hinted, self.retry_after_cap) if hinted is not None else self.backoff(state.attempt_number)
        scope = current()
        if scope is not None:  # never sleep past the run's deadline: the next attempt reports it
            wait = max(0.0, min(wait, scope[0].remaining()))
        return wait


def retry_after(headers: Mapping[str, str] | None) -> float | None:
    """Seconds asked for by `retry-after-ms` or `retry-after` (seconds or an HTTP date)."""
    if not headers:
        return None
    lowered = {k.lower(): v for k, v in headers.items()}
    raw_ms = lowered.get("retry-after-ms")
    if raw_ms:
        try:
            return max(0.0, float(raw_ms) / 1000)
        except ValueError:
            pass
    raw = lowered.get("retry-after")
    if not raw:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _headers(exc: BaseException) -> Mapping[str, str] | None:
    response = getattr(exc, "response", None)
    return getattr(response, "headers", None)


def status_of(exc: BaseException) -> int | None:
    """The HTTP status of an SDK status error, None for connection errors and the rest."""
    status = getattr(exc, "status_code", None)
    return status if isinstance(status, int) else None


def error_text(exc: BaseException) -> str:
    """The server's own words about an error (its body), falling back to the SDK message."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])
        return str(body)
    if body:
        return str(body)
    return str(getattr(exc, "message", "") or exc)


@dataclass(frozen=True)
class ProviderErrors:
    """One SDK's error classes and the words the user needs when a call finally fails."""

    provider: str
    key_env: str
    base_url: str
    connection: type[BaseException]
    """The SDK's connection error class (its timeout class derives from it)."""
    timeout: type[BaseException]
    status: type[BaseException]

    def is_transient(self, exc: BaseException) -> bool:
        """429, 5xx, timeouts, connection errors and malformed bodies are worth another try."""
        if isinstance(exc, MalformedReply | self.connection):
            return True
        status = status_of(exc) if isinstance(exc, self.status) else None
        if status is None or status in NEVER_RETRY:
            return False
        return status in (408, 409, 429) or status >= 500

    def translate(self, exc: BaseException, attempts: int) -> PlanexecError:
        """The planexec error (with the fix named) for an error that ended the call."""
        where = f"{self.provider} at {self.base_url}"
        tries = f" after {attempts} attempt(s)" if attempts > 1 else ""
        if isinstance(exc, self.timeout):
            cause = f" ({exc.__cause__})" if exc.__cause__ and str(exc.__cause__) else ""
            return LLMUnreachable(
                f"{where} did not answer in time{tries}{cause}; check the server is running and "
                "responsive, raise PLANEXEC_LLM_TIMEOUT, or use --llm none"
            )
        if isinstance(exc, self.connection):
            return LLMUnreachable(
                f"cannot reach {where}{tries} ({exc.__cause__ or exc}); check the server or "
                "the --base-url, or use --llm none"
            )
        if isinstance(exc, MalformedReply):
            return LLMError(f"{where} answered with a body that is not a valid reply{tries}: {exc}")
        if isinstance(exc, RequestRejected):
            exc = exc.cause
        status = status_of(exc)
        detail = error_text(exc)
        if status == 401:
            return ConfigError(
                f"{self.provider} rejected the API key (401: {detail}); set a valid "
                f"{self.key_env} or use --llm none"
            )
        if status == 403:
            return ConfigError(
                f"{self.provider} denied access (403: {detail}); check that {self.key_env} "
                "may use this model, or use --llm none"
            )
        if status == 404:
            return ConfigError(
                f"{where} answered 404 ({detail}); check --model and --base-url"
            )
        if status is not None:
            return LLMError(f"{where} failed with HTTP {status}{tries}: {detail}")
        return LLMError(f"{where} failed{tries}: {exc}")


def call_with_retries(
    fn: Callable[[], T], policy: RetryPolicy, errors: ProviderErrors
) -> T:
    """Run `fn`, retrying transient errors per `policy`; anything else fails at once.

    `RequestRejected` is re-raised untouched so the caller can degrade its request;
    every other failure becomes a planexec error with the fix named.
    """
    retrying = tenacity.Retrying(
        sleep=policy.sleep,
        stop=tenacity.stop_after_attempt(policy.max_retries + 1),
        wait=policy.wait_for,
        retry=tenacity.retry_if_exception(errors.is_transient),
        reraise=True,
    )
    attempts = 0
    last: BaseException | None = None

    def counted() -> T:
        nonlocal attempts, last
        scope = current()
        if scope is not None:
            try:
                scope[0].charge_request(scope[1])
            except BudgetExhausted as spent:
                if last is not None:  # say what the retries were about, in the same line
                    raise BudgetExhausted(f"{spent}; last error from {errors.provider} at {errors.base_url} "
                                          f"after {attempts} attempt(s): {errors.translate(last, attempts)}",
                                          spent.which) from last
                raise BudgetExhausted(f"{spent} (before asking {errors.provider} at {errors.base_url})",
                                      spent.which) from None
        attempts += 1
        try:
            return fn()
        except Exception as exc:
            last = exc
            raise

    try:
        return retrying(counted)
    except RequestRejected:
        raise
    except PlanexecError:
        raise
    except Exception as exc:
        raise errors.translate(exc, attempts) from exc



def sdk_client(sdk: Any, client_class: str, provider: str, key_env: str, api_key: str | None,
               base_url: str, timeout: float) -> tuple[Any, ProviderErrors]:
    """An official SDK client with its own retries off (ours apply), and its error classes.

    The openai and anthropic SDKs share this shape: a client class taking api_key, base_url,
    timeout and max_retries, and APIConnectionError / APITimeoutError / APIStatusError.
    """
    import httpx2

    from planexec.llm.transport import DeadlineTransport

    http = httpx2.Client(transport=DeadlineTransport(timeout), timeout=timeout)
    client = getattr(sdk, client_class)(api_key=api_key, base_url=base_url, timeout=timeout, max_retries=0,
                                        http_client=http)
    errors = ProviderErrors(
        provider=provider,
        key_env=key_env,
        base_url=base_url,
        connection=sdk.APIConnectionError,
        timeout=sdk.APITimeoutError,
        status=sdk.APIStatusError,
    )
    return client, errors
