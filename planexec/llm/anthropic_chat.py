"""Anthropic Messages client: the official SDK with planexec's retries and usage accounting.

System messages travel in `system=`; a requested JSON schema is stated in the system
prompt (the caller validates the answer locally, so no prefill is needed).
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Sequence
from typing import Any

from planexec.errors import ConfigError
from planexec.llm.base import Completion, Message, prompt_chars
from planexec.llm.retry import (
    MalformedReply,
    ProviderErrors,
    RetryPolicy,
    call_with_retries,
    sdk_client,
)
from planexec.models import Usage

DEFAULT_BASE_URL = "https://api.anthropic.com"
DEFAULT_MAX_TOKENS = 4096


class AnthropicChat:
    """An LLM backed by Anthropic's Messages API."""

    def __init__(
        self,
        model: str = "claude-3-5-haiku-latest",
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = 60,
        max_retries: int = 4,
        *,
        retry: RetryPolicy | None = None,
    ) -> None:
        self.model = model
        self.base_url = base_url or os.environ.get("ANTHROPIC_BASE_URL") or DEFAULT_BASE_URL
        key = api_key or os.environ.get("ANTHROPIC_API_KEY")
        if not key:
            raise ConfigError("Anthropic needs an API key: set ANTHROPIC_API_KEY or use --llm none")
        self._api_key = key
        self.timeout = timeout
        self.retry = retry or RetryPolicy(max_retries=max_retries)
        self.usage = Usage()
        self._client: Any = None
        self._errors: ProviderErrors | None = None
        self._lock = threading.Lock()

    def complete(
        self,
        messages: Sequence[Message],
        *,
        json_schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> Completion:
        """Ask the model; with `json_schema`, the schema is stated in the system prompt."""
        client, errors = self._sdk()
        system, turns = _split(messages, json_schema)
        kwargs: dict[str, Any] = {
            "model": self.model,
            "max_tokens": max_tokens or DEFAULT_MAX_TOKENS,
            "messages": turns,
        }
        if system:
            kwargs["system"] = system
        if temperature is not None:  # this SDK version dropped the parameter; the API takes it
            kwargs["extra_body"] = {"temperature": temperature}

        def once() -> Any:
            try:
                response = client.messages.create(**kwargs)
            except ValueError as exc:  # a JSON content type whose body does not parse
                raise MalformedReply(f"invalid JSON body ({exc})") from exc
            return _parse(response)

        text, finish, usage_obj, model = call_with_retries(once, self.retry, errors)
        sent_chars = len(system) + sum(len(t["content"]) for t in turns)
        usage = Usage(
            calls=1,
            prompt_tokens=int(getattr(usage_obj, "input_tokens", 0) or 0),
            completion_tokens=int(getattr(usage_obj, "output_tokens", 0) or 0),
            prompt_chars=sent_chars or prompt_chars(messages),
        )
        with self._lock:
            self.usage.add(usage)
        return Completion(text=text, usage=usage, model=model or self.model, finish_reason=finish)

    def close(self) -> None:
        """Close the HTTP connections of the underlying SDK client, if one was made."""
        with self._lock:
            if self._client is not None:
                self._client.close()
                self._client = None

    def _sdk(self) -> tuple[Any, ProviderErrors]:
        with self._lock:
            if self._client is None:
                import anthropic

                self._client, self._errors = sdk_client(
                    anthropic, "Anthropic", "Anthropic", "ANTHROPIC_API_KEY", self._api_key, self.base_url, self.timeout
                )
            assert self._errors is not None
            return self._client, self._errors


def _split(
    messages: Sequence[Message], json_schema: dict[str, Any] | None
) -> tuple[str, list[dict[str, str]]]:
    """System text (with the schema, if any) and the user/assistant turns."""
    system = [m.content for m in messages if m.role == "system"]
    if json_schema is not None:
        system.append(
            "Reply with only a JSON value matching this JSON schema, no prose:\n"
            + json.dumps(json_schema)
        )
    turns = [{"role": m.role, "content": m.content} for m in messages if m.role != "system"]
    if not turns:  # the API needs at least one user turn
        turns = [{"role": "user", "content": system.pop(0) if system else ""}]
    return "\n\n".join(system), turns


def _parse(response: Any) -> tuple[str, str, Any, str]:
    """Text, stop reason, usage and model of a message; MalformedReply otherwise."""
    content = getattr(response, "content", None)
    if not isinstance(content, list):
        shown = str(response)[:200] if isinstance(response, str) else type(response).__name__
        raise MalformedReply(f"expected a message with content blocks, got {shown!r}")
    text = "".join(
        str(getattr(block, "text", "") or "")
        for block in content
        if getattr(block, "type", "") == "text"
    )
    return text, str(getattr(response, "stop_reason", "") or ""), getattr(response, "usage", None), str(
        getattr(response, "model", "") or ""
    )
