"""A run's bounds on model use: one deadline, a budget of requests and of tokens.

The orchestrator opens one `RunBudget` per run; `BoundedLLM` makes it current (a context
variable, per thread) around every model call, so the retry loop and the HTTP transport
below it see the same deadline without any argument threading through the SDKs. Retries
and re-asks are requests like any other and count against the same budget.
"""

from __future__ import annotations

import contextvars
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from planexec.errors import LLMError


class BudgetExhausted(LLMError):
    """A run's deadline, request budget or token budget is spent; `which` names it."""

    def __init__(self, message: str, which: str) -> None:
        super().__init__(message)
        self.which = which


@dataclass
class RunBudget:
    """The deadline (monotonic seconds) and the request/token allowance of one run; thread-safe."""

    deadline: float
    max_calls: int
    max_tokens: int
    timeout: float = 0.0
    """The run's whole allowance in seconds, for messages."""
    calls: int = 0
    tokens: int = 0
    closed: str = ""
    """Why this run may make no model call at all (e.g. the library covers every clause)."""
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @classmethod
    def unbounded(cls) -> RunBudget:
        """No deadline and no limits: the state before a run starts."""
        return cls(float("inf"), 1 << 62, 1 << 62, float("inf"))

    @classmethod
    def starting_now(cls, timeout: float, max_calls: int, max_tokens: int) -> RunBudget:
        return cls(time.monotonic() + timeout, max_calls, max_tokens, timeout)

    def remaining(self) -> float:
        """Seconds left before the deadline (negative once it passed)."""
        return self.deadline - time.monotonic()

    def close(self, reason: str) -> None:
        """Refuse every further model call of this run, saying why."""
        self.closed = reason

    def reopen(self) -> None:
        """Allow model calls again (a clause the library was judged to cover turned out not to be served)."""
        self.closed = ""

    def check(self, where: str) -> None:
        """Raise BudgetExhausted naming the spent budget and `where` the run was."""
        if self.closed:
            raise BudgetExhausted(f"no model call for {where}: {self.closed}", "closed")
        if self.remaining() <= 0:
            raise BudgetExhausted(
                f"the run's deadline ({self.timeout:g} s) passed during {where}; "
                "raise --timeout or use a faster model", "deadline")
        with self._lock:
            if self.calls >= self.max_calls:
                raise BudgetExhausted(
                    f"the run's budget of {self.max_calls} model requests is spent ({where}); "
                    "raise PLANEXEC_LLM_MAX_CALLS", "calls")
            if self.tokens >= self.max_tokens:
                raise BudgetExhausted(
                    f"the run's budget of {self.max_tokens} model tokens is spent ({self.tokens} used, {where}); "
                    "raise PLANEXEC_LLM_MAX_TOKENS", "tokens")

    def charge_request(self, where: str) -> None:
        """Count one HTTP request (a first try, a retry or a re-ask) after checking the budget allows it."""
        self.check(where)
        with self._lock:
            self.calls += 1

    def count_request(self) -> None:
        """Count a request made by a client without HTTP (scripted), after it ran."""
        with self._lock:
            self.calls += 1

    def charge_tokens(self, n: int) -> None:
        with self._lock:
            self.tokens += max(0, int(n))


MIN_REPLY_TOKENS = 32
"""A reply the deadline leaves less room for than this is not asked for at all."""


@dataclass
class Throughput:
    """Reply tokens per second a client has delivered, so no reply is asked for that cannot end by the deadline.

    A request cut at the deadline is wasted twice: its answer is lost, and a server that does
    not cancel abandoned requests (llama-cpp-python) keeps writing it while later requests wait.
    The time measured includes reading the prompt, so the estimate errs on the slow side.
    """

    tokens: int = 0
    seconds: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def observe(self, completion_tokens: int, seconds: float) -> None:
        if completion_tokens > 0 and seconds > 0:
            with self._lock:
                self.tokens += completion_tokens
                self.seconds += seconds

    def fit(self, wanted: int, budget: RunBudget, where: str) -> int:
        """`wanted`, or fewer tokens when the speed measured so far cannot write them before the deadline."""
        with self._lock:
            if self.tokens < MIN_REPLY_TOKENS or self.seconds <= 0:
                return wanted  # nothing measured yet: the purpose's reply length
            rate = self.tokens / self.seconds
        left = budget.remaining()
        fits = int(left * rate)
        if fits >= wanted:
            return wanted
        if fits < MIN_REPLY_TOKENS:
            raise BudgetExhausted(
                f"the run's deadline ({budget.timeout:g} s) leaves {max(left, 0):.0f} s, about {fits} tokens at the "
                f"{rate:.1f} tokens/s measured so far: too little for {where}; raise --timeout or use a faster model",
                "deadline")
        return fits


_CURRENT: contextvars.ContextVar[tuple[RunBudget, str] | None] = contextvars.ContextVar(
    "planexec_run_budget", default=None)


@contextmanager
def active(budget: RunBudget, where: str) -> Iterator[RunBudget]:
    """Make `budget` current in this thread while one model call (for `where`) runs."""
    token = _CURRENT.set((budget, where))
    try:
        yield budget
    finally:
        _CURRENT.reset(token)


def current() -> tuple[RunBudget, str] | None:
    """The budget of the model call running in this thread, and what the call is for."""
    return _CURRENT.get()
