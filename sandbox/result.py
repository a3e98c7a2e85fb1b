"""What one sandboxed run returns: always data, never an exception."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class ExecutionResult:
    """Outcome of one run: `results` the code left, PNG figures, output, and what went wrong.

    `error_type` is the exception name raised by the code, or one of the sandbox's own:
    PolicyViolation, SyntaxError, Timeout, WorkerCrashed, SerializationError, ResultError,
    OutputTooLarge, SandboxError, SandboxRefused (a required kernel layer is missing here).
    """

    ok: bool
    results: dict[str, Any] = field(default_factory=dict)
    figures: list[bytes] = field(default_factory=list)
    stdout: str = ""
    stderr: str = ""
    error: str | None = None
    error_type: str | None = None
    duration: float = 0.0
    line: int | None = None
    """Line of the code the error points at, when known."""
    layers: tuple[str, ...] = ()
    """Confinement layers the worker applied (policy, rlimits, capabilities, landlock, seccomp)."""

    @classmethod
    def failure(cls, error_type: str, error: str, *, line: int | None = None,
                duration: float = 0.0, layers: tuple[str, ...] = ()) -> ExecutionResult:
        return cls(ok=False, error=error, error_type=error_type, line=line, duration=duration,
                   layers=layers)

    def summary(self) -> str:
        """One line for prompts and display."""
        if not self.ok:
            return f"failed ({self.error_type}): {self.error}"
        keys = ", ".join(list(self.results)[:8])
        figs = f", {len(self.figures)} figure(s)" if self.figures else ""
        return f"ok in {self.duration:.2f} s; results: {keys or 'none'}{figs}"
