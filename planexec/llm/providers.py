"""The hosted LLM providers planexec knows: backend name, API-key and base-URL variables, defaults.

The one place these names are written; the factory (which backend `auto` picks, which key it
reads) and the SDK clients (which key a client falls back to) both read them from here.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Provider:
    """One provider as the configuration and its client see it."""

    backend: str
    """The `--llm` / `PLANEXEC_LLM` value that selects it."""
    key_env: str
    """The environment variable holding the API key."""
    base_url_env: str
    """The environment variable that points the client at another server."""
    default_base_url: str
    default_model: str


OPENAI = Provider("openai", "OPENAI_API_KEY", "OPENAI_BASE_URL", "https://api.openai.com/v1", "gpt-4o-mini")
ANTHROPIC = Provider("anthropic", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "https://api.anthropic.com",
                     "claude-3-5-haiku-latest")
PROVIDERS = {p.backend: p for p in (OPENAI, ANTHROPIC)}
"""By backend name, in the order `--llm auto` tries their keys."""
KEY_ENVS = tuple(p.key_env for p in PROVIDERS.values())
"""Every API-key variable, for messages naming them and for `planexec doctor`."""

__all__ = ["ANTHROPIC", "KEY_ENVS", "OPENAI", "PROVIDERS", "Provider"]
