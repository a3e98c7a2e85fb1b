"""make_llm: which backend a configuration and the environment select, and key errors."""

from __future__ import annotations

import pytest

from planexec.config import Config
from planexec.errors import ConfigError
from planexec.llm.anthropic_chat import AnthropicChat
from planexec.llm.factory import choose_backend, make_llm
from planexec.llm.openai_chat import OpenAIChat

OPENAI = {"OPENAI_API_KEY": "sk-o"}
ANTHROPIC = {"ANTHROPIC_API_KEY": "sk-a"}


def cfg(**kw) -> Config:
    return Config.from_env({}, **kw)


def test_none_is_offline() -> None:
    assert make_llm(cfg(llm="none"), {**OPENAI, **ANTHROPIC}) is None


@pytest.mark.parametrize(
    ("env", "base_url", "expected"),
    [
        ({}, None, "none"),
        (OPENAI, None, "openai"),
        (ANTHROPIC, None, "anthropic"),
        ({**OPENAI, **ANTHROPIC}, None, "openai"),
        ({}, "http://localhost:11434/v1", "openai"),
        (ANTHROPIC, "http://proxy:1", "anthropic"),
    ],
)
def test_auto_picks_by_keys(env, base_url, expected) -> None:
    assert choose_backend(cfg(base_url=base_url), env) == expected


def test_auto_without_keys_runs_offline() -> None:
    assert make_llm(cfg(), {}) is None


def test_auto_with_openai_key_makes_openai_with_defaults() -> None:
    llm = make_llm(cfg(llm_timeout=12.0, llm_max_retries=2), OPENAI)
    assert isinstance(llm, OpenAIChat)
    assert (llm.model, llm.timeout, llm.retry.max_retries) == ("gpt-4o-mini", 12.0, 2)


def test_auto_with_anthropic_key_and_model_override() -> None:
    llm = make_llm(cfg(model="claude-x"), ANTHROPIC)
    assert isinstance(llm, AnthropicChat) and llm.model == "claude-x"


def test_anthropic_default_model() -> None:
    llm = make_llm(cfg(llm="anthropic"), ANTHROPIC)
    assert isinstance(llm, AnthropicChat) and llm.model == "claude-3-5-haiku-latest"


@pytest.mark.parametrize(("backend", "env_var"), [("openai", "OPENAI_API_KEY"), ("anthropic", "ANTHROPIC_API_KEY")])
def test_explicit_backend_without_key_names_the_fix(backend, env_var) -> None:
    with pytest.raises(ConfigError, match=rf"{env_var}.*--llm none"):
        make_llm(cfg(llm=backend), {})


def test_openai_base_url_runs_without_a_key() -> None:
    llm = make_llm(cfg(llm="openai", base_url="http://127.0.0.1:8080/v1"), {})
    assert isinstance(llm, OpenAIChat)
    assert llm.base_url == "http://127.0.0.1:8080/v1" and llm._api_key == "not-needed"


def test_model_from_planexec_env() -> None:
    config = Config.from_env({"PLANEXEC_MODEL": "gpt-x", "PLANEXEC_LLM": "openai"})
    llm = make_llm(config, OPENAI)
    assert isinstance(llm, OpenAIChat) and llm.model == "gpt-x"


def test_base_url_from_provider_env() -> None:
    llm = make_llm(cfg(llm="openai"), {"OPENAI_BASE_URL": "http://10.0.0.2:8000/v1"})
    assert isinstance(llm, OpenAIChat) and llm.base_url == "http://10.0.0.2:8000/v1"
