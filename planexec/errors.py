"""Errors, sorted by who must act.

    PlanexecError
    ├── UsageError            the user must act: raised with the fix named (exit code 2 in the CLI)
    │   ├── ConfigError       missing API key, unknown backend, bad option
    │   ├── InputError        a file or image folder that does not exist or cannot be read
    │   ├── PlanValidationError   unknown tool, dangling or cyclic depends_on (carries .problems)
    │   └── UnknownNameError  unknown tool / capability id; lists what exists
    ├── LLMError              the provider failed after retries, or answered invalid JSON twice
    │   └── LLMUnreachable    base_url refused or timed out: check the server
    ├── ToolError             a tool failed; becomes a failed attempt (an observation), never a crash
    │   └── ToolInputError    arguments did not match the tool's schema
    ├── RunAborted            a signal with a payload: the circuit breaker or a critical evaluation
    └── NotCovered            a signal: clauses the library does not cover (or out of scope), refused
                              before any step ran; carries the per-clause `coverage` (exit code 5)
"""

from __future__ import annotations

from typing import Any


class PlanexecError(Exception):
    """Base of every error planexec raises on purpose."""


class UsageError(PlanexecError):
    """Something the user must fix; the message names the fix."""


class ConfigError(UsageError):
    """A configuration problem: missing key, unknown backend, bad option."""


class InputError(UsageError):
    """An input file or folder that is missing or unreadable."""


class PlanValidationError(UsageError):
    """A plan that cannot run; `problems` lists each one."""

    def __init__(self, message: str, problems: list[str] | None = None) -> None:
        super().__init__(message)
        self.problems = problems or [message]


class UnknownNameError(UsageError, KeyError):
    """An unknown tool or capability name; the message lists what exists."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class LLMError(PlanexecError):
    """The model could not give a usable answer."""


class LLMUnreachable(LLMError):
    """The provider's server could not be reached."""


class ToolError(PlanexecError):
    """A tool failed; the executor records it and tries the next tool."""


class ToolInputError(ToolError):
    """Tool arguments did not match the tool's input schema."""


class RunAborted(PlanexecError):
    """Stop the run; `reason` says why (breaker, critical evaluation, rejection)."""

    def __init__(self, reason: str, payload: Any = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.payload = payload


class NotCovered(PlanexecError):
    """The offline planner refuses: some clause is not covered or out of scope; `coverage` says which and why."""

    def __init__(self, coverage: Any) -> None:
        super().__init__(coverage.message())
        self.coverage = coverage
