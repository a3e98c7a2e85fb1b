"""What the OpenAI and Anthropic clients share: the key, the lazily made SDK client, retries, closing.

Each subclass names its SDK and writes `reply()`; `ask()` sends one request through the
shared retry policy (`planexec.llm.retry`) and turns the SDK's usage object into a `Reply`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, ClassVar

from planexec.errors import ConfigError
from planexec.llm.base import ChatModel, Reply
from planexec.llm.providers import Provider
from planexec.llm.retry import (
    MalformedReply,
    ProviderErrors,
    RetryPolicy,
    call_with_retries,
    sdk_client,
)

Parsed = tuple[str, str, Any, str]
"""Text, finish reason, the SDK's usage object and the model name of one answer."""


class SDKChat(ChatModel):
    """A client over an official SDK (`sdk_module`), with planexec's retries instead of the SDK's."""

    sdk_module = ""
    provider = ""
    client_class = ""
    spec: ClassVar[Provider | None] = None
    """The provider record a subclass names; its key and base-URL variables and defaults follow."""
    key_env = ""
    base_url_env = ""
    default_base_url = ""
    default_model = ""
    usage_fields = ("prompt_tokens", "completion_tokens")
    """The names of the SDK usage object's input and output token counts."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.spec is not None:
            cls.key_env, cls.base_url_env = cls.spec.key_env, cls.spec.base_url_env
            cls.default_base_url, cls.default_model = cls.spec.default_base_url, cls.spec.default_model

    def __init__(
        self,
        model: str | None = None,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = 60,
        max_retries: int = 4,
        *,
        retry: RetryPolicy | None = None,
    ) -> None:
        super().__init__(model or self.default_model)
        self.base_url = base_url or os.environ.get(self.base_url_env) or self.default_base_url
        key = api_key or os.environ.get(self.key_env) or self.keyless()
        if not key:
            raise ConfigError(self.missing_key())
        self._api_key = key
        self.timeout = timeout
        self.retry = retry or RetryPolicy(max_retries=max_retries)
        self._client: Any = None
        self._errors: ProviderErrors | None = None

    def keyless(self) -> str | None:
        """The key used when none is set (local servers ignore it), or None to require one."""
        return None

    def missing_key(self) -> str:
        return f"{self.provider} needs an API key: set {self.key_env} or use --llm none"

    def close(self) -> None:
        """Close the HTTP connections of the underlying SDK client, if one was made."""
        with self._lock:
            if self._client is not None:
                self._client.close()
                self._client = None

    def ask(self, create: Callable[[Any, ProviderErrors], Any], parse: Callable[[Any], Parsed],
            prompt_chars: int | None = None) -> Reply:
        """One answer: `create(client, errors)` sent with retries, its response parsed to a Reply."""
        client, errors = self._sdk()

        def once() -> Parsed:
            try:
                response = create(client, errors)
            except ValueError as exc:  # a JSON content type whose body does not parse
                raise MalformedReply(f"invalid JSON body ({exc})") from exc
            return parse(response)

        text, finish, usage, model = call_with_retries(once, self.retry, errors)
        if usage is None:  # the server sent no counts (e.g. a streamed reply): estimated from the text
            return Reply(text, finish, None, None, model, prompt_chars)
        tokens_in, tokens_out = (int(getattr(usage, name, 0) or 0) for name in self.usage_fields)
        return Reply(text, finish, tokens_in, tokens_out, model, prompt_chars)

    def _sdk(self) -> tuple[Any, ProviderErrors]:
        with self._lock:
            if self._client is None:
                import importlib

                sdk = importlib.import_module(self.sdk_module)
                self._client, self._errors = sdk_client(sdk, self.client_class, self.provider, self.key_env,
                                                        self._api_key, self.base_url, self.timeout)
            assert self._errors is not None
            return self._client, self._errors
