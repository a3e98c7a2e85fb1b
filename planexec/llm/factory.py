"""Pick the LLM client a configuration asks for, or None for the offline (heuristic) mode."""

from __future__ import annotations

import os
from collections.abc import Mapping

from planexec.config import Config
from planexec.errors import ConfigError
from planexec.llm.base import LLM
from planexec.llm.providers import PROVIDERS


def choose_backend(config: Config, env: Mapping[str, str] | None = None) -> str:
    """The backend `config.llm` resolves to: openai, anthropic or none.

    `auto` takes the first provider whose API key is set (OPENAI_API_KEY, then
    ANTHROPIC_API_KEY), else an OpenAI-compatible local server when a base_url is given, else none.
    """
    env = os.environ if env is None else env
    if config.llm != "auto":
        return config.llm
    for provider in PROVIDERS.values():
        if env.get(provider.key_env):
            return provider.backend
    if config.base_url:
        return "openai"
    return "none"


def make_llm(config: Config, env: Mapping[str, str] | None = None) -> LLM | None:
    """The client for `config` (model, base_url, timeout, retries), or None to run offline."""
    env = os.environ if env is None else env
    backend = choose_backend(config, env)
    if backend == "none":
        return None
    provider = PROVIDERS.get(backend)
    if provider is None:
        raise ConfigError(
            f"unknown LLM backend {backend!r}; choose one of auto, none, {', '.join(PROVIDERS)}"
        )
    key = env.get(provider.key_env) or None
    base_url = config.base_url or env.get(provider.base_url_env) or None
    if key is None and backend == "openai" and base_url:
        key = "not-needed"  # a local OpenAI-compatible server ignores the key
    if key is None:
        hint = " or pass --base-url for a local server" if backend == "openai" else ""
        raise ConfigError(
            f"--llm {backend} needs an API key: set {provider.key_env}{hint}, or use --llm none"
        )
    model = config.model or provider.default_model
    if backend == "openai":
        from planexec.llm.openai_chat import OpenAIChat

        client = OpenAIChat(model, key, base_url, config.llm_timeout, config.llm_max_retries)
        client.stream = config.llm_stream
        return client
    from planexec.llm.anthropic_chat import AnthropicChat

    return AnthropicChat(model, key, base_url, config.llm_timeout, config.llm_max_retries)
