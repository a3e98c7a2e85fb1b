"""Every model call of a run goes through `BoundedLLM`: a reply length per purpose, one deadline,
and a request/token budget that retries and re-asks count against. A reply is never asked to
be longer than the server's measured speed can deliver before the deadline (`Throughput`).

The orchestrator wraps its client once and calls `start_run()` at the start of each run;
each component gets a view for its purpose (`for_purpose("plan")`), so a call without an
explicit `max_tokens` is still bounded by what that purpose needs.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from planexec.config import Config
from planexec.llm.base import LLM, Completion, Message
from planexec.llm.budget import RunBudget, Throughput, active
from planexec.models import Usage


class BoundedLLM:
    """Wraps a client: bounds each call by the current run's budget and deadline.

    `for_purpose()` views share the root's client and budget; only the default reply length differs.
    """

    def __init__(self, llm: LLM, config: Config, purpose: str = "answer", root: BoundedLLM | None = None) -> None:
        config.max_tokens(purpose)  # an unknown purpose fails here, not at the first call
        self.inner = llm
        self.config = config
        self.purpose = purpose
        self._root = root or self
        self._budget = RunBudget.unbounded()
        self.speed = root.speed if root is not None else Throughput()
        """Reply tokens per second this client delivered, over all runs (shared by every view)."""

    @property
    def budget(self) -> RunBudget:
        """The current run's budget (the root's); unbounded until `start_run()`."""
        return self._root._budget

    @property
    def model(self) -> str:
        return self.inner.model

    @property
    def usage(self) -> Usage:
        return self.inner.usage

    def start_run(self) -> RunBudget:
        """A fresh deadline and budget for the run starting now."""
        c = self.config
        self._root._budget = RunBudget.starting_now(c.timeout, c.llm_max_calls, c.llm_max_tokens)
        return self._root._budget

    def for_purpose(self, purpose: str) -> BoundedLLM:
        """A view whose calls default to the reply length configured for `purpose`."""
        return BoundedLLM(self.inner, self.config, purpose, self._root)

    def complete(
        self,
        messages: Sequence[Message],
        *,
        json_schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> Completion:
        budget = self.budget
        where = f"the {self.purpose} request"
        budget.check(where)
        calls_before = budget.calls
        started = time.monotonic()
        with active(budget, where):
            completion = self.inner.complete(
                messages, json_schema=json_schema, temperature=temperature,
                max_tokens=self.speed.fit(max_tokens or self.config.max_tokens(self.purpose), budget, where))
        self.speed.observe(completion.usage.completion_tokens, time.monotonic() - started)
        if budget.calls == calls_before:  # a client without HTTP (scripted): one call is one request
            budget.count_request()
        budget.charge_tokens(completion.usage.prompt_tokens + completion.usage.completion_tokens)
        return completion

    def close(self) -> None:
        close = getattr(self.inner, "close", None)
        if close is not None:
            close()
