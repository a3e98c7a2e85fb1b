"""Run configuration as data: arguments > environment (PLANEXEC_*) > these defaults."""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from planexec.errors import ConfigError

BACKENDS = ("auto", "none", "openai", "anthropic")
DEPRECATED_ALIASES = {"PLANEXEC_PAPERS": "PLANEXEC_PAPERS_DIR"}
"""Old variable names still read when the new one is not set."""


def default_home(env: dict[str, str] | None = None) -> Path:
    """$PLANEXEC_HOME, else ~/.planexec: the one place the home's default is computed."""
    env = os.environ if env is None else env
    return Path(env.get("PLANEXEC_HOME", Path.home() / ".planexec"))


PURPOSES = ("plan", "arguments", "verification", "code", "answer", "react")


@dataclass(frozen=True)
class Config:
    """Settings of one orchestrator; every field can be set from `PLANEXEC_<FIELD>`."""

    llm: str = "auto"
    """LLM backend: auto (a key in the environment picks it, else offline), none, openai, anthropic."""
    model: str | None = None
    """Model name; defaults per backend (gpt-4o-mini, claude-3-5-haiku-latest)."""
    base_url: str | None = None
    """OpenAI-compatible server URL (Ollama, vLLM, llama.cpp) or Anthropic endpoint override."""
    llm_timeout: float = 60.0
    """Seconds before one LLM request times out."""
    llm_stream: bool = False
    """Stream replies from an OpenAI-compatible server, so a reply cut at the deadline stops being written
    (llama-cpp-python keeps writing a non-streamed one, and the next request waits for it)."""
    llm_max_retries: int = 4
    """Retries of a transient LLM error (429, 5xx, timeout, connection)."""
    timeout: float = 600.0
    """Deadline of a whole run in seconds: model calls, retries and steps stop when it passes."""
    llm_max_calls: int = 40
    """Most model requests one run may send, retries and re-asks included."""
    llm_max_tokens: int = 60_000
    """Most model tokens (prompt + completion) one run may spend."""
    max_tokens_plan: int = 1024
    """Longest model reply when writing a plan."""
    max_tokens_arguments: int = 384
    """Longest model reply when filling a tool's arguments."""
    max_tokens_verification: int = 160
    """Longest model reply when judging a step's output."""
    max_tokens_code: int = 1536
    """Longest model reply when writing code."""
    max_tokens_answer: int = 512
    """Longest model reply when writing the answer."""
    max_tokens_react: int = 512
    """Longest model reply for one turn of free ReAct mode (a thought and an action, or the final answer)."""
    max_consecutive_errors: int = 3
    """Circuit breaker: this many tool errors in a row (in the order they happen) abort the run; 0 never."""
    max_parallel: int = 4
    """Most steps run at once when their dependencies are met."""
    max_replans: int = 1
    """How often a failed step may ask the planner for a revised plan."""
    verify_with_llm: bool = True
    """Ask the LLM when the heuristic verifier is undecided (only when an LLM is configured)."""
    react_max_steps: int = 8
    """Step limit of free ReAct mode."""
    output_root: Path = Path("outputs")
    """Where each run's folder `<timestamp>/` is written."""
    write_outputs: bool = True
    """Write report.json, report.md, run.log (and figures) for each run."""
    home: Path = field(default_factory=default_home)
    """Where the capability store, knowledge index and caches live."""
    embedder: str = "auto"
    """Embedding model: auto (the packaged all-MiniLM-L6-v2), a local path or a model name; 'none' uses keywords."""
    rag: bool = True
    """Retrieve background chunks from the papers folder before planning."""
    papers_dir: Path | None = None
    """Folder of papers for RAG; defaults to the packaged data/papers (PLANEXEC_PAPERS: old name)."""
    tool_learning: bool = True
    """Reorder a step's primary tools by their record on similar goals."""
    checkpoint: bool = True
    """Save the run state after every step so `resume` can continue it."""

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None, **overrides: Any) -> Config:
        """Defaults, then PLANEXEC_* variables, then `overrides` (None values ignored)."""
        env = dict(os.environ if env is None else env)
        for old, new in DEPRECATED_ALIASES.items():
            if old in env and new not in env:
                env[new] = env[old]
        values: dict[str, Any] = {}
        for f in fields(cls):
            raw = env.get(f"PLANEXEC_{f.name.upper()}")
            if raw is not None:
                values[f.name] = _coerce(f, raw)
        values.update({k: v for k, v in overrides.items() if v is not None})
        unknown = set(values) - {f.name for f in fields(cls)}
        if unknown:
            raise ConfigError(f"unknown setting(s) {sorted(unknown)}")
        cfg = cls(**values)
        if cfg.timeout <= 0:
            raise ConfigError(f"timeout must be a positive number of seconds, got {cfg.timeout}")
        if cfg.llm not in BACKENDS:
            raise ConfigError(f"unknown LLM backend {cfg.llm!r}; choose one of {', '.join(BACKENDS)}")
        return cfg

    def max_tokens(self, purpose: str) -> int:
        """The reply length for one purpose: plan, arguments, verification, code or answer."""
        try:
            return int(getattr(self, f"max_tokens_{purpose}"))
        except AttributeError:
            raise ConfigError(f"unknown model purpose {purpose!r}; use one of {', '.join(PURPOSES)}") from None

    def papers(self) -> Path:
        """The papers folder RAG reads: `papers_dir`, else the packaged data/papers."""
        from planexec.datafiles import shipped

        return Path(self.papers_dir) if self.papers_dir else shipped("papers")

    def replace(self, **changes: Any) -> Config:
        return dataclasses.replace(self, **changes)


def _coerce(f: dataclasses.Field[Any], raw: str) -> Any:
    kind = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", str(f.type))
    try:
        if kind.startswith("bool"):
            return raw.strip().lower() in ("1", "true", "yes", "on")
        if kind.startswith("int"):
            return int(raw)
        if kind.startswith("float"):
            return float(raw)
        if kind.startswith("Path"):
            return Path(raw)
    except ValueError:
        raise ConfigError(f"PLANEXEC_{f.name.upper()}={raw!r} is not a valid {kind}") from None
    return raw
