"""Every model call of a run goes through `BoundedLLM`: a reply length per purpose, one deadline,
and a request/token budget that retries and re-asks count against.

The orchestrator wraps its client once and calls `start_run()` at the start of each run;
each component gets a view for its purpose (`for_purpose("plan")`), so a call without an
explicit `max_tokens` is still bounded by what that purpose needs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from planexec.config import Config
from planexec.llm.base import LLM, Completion, Message
from planexec.llm.budget import RunBudget, active
from planexec.models import Usage


class BoundedLLM:
    """Wraps a client: bounds each call by the current run's budget and deadline."""

    def __init__(self, llm: LLM, config: Config) -> None:
        self.inner = llm
        self.config = config
        self.budget = RunBudget.unbounded()
        """The current run's budget; unbounded until `start_run()`."""

    @property
    def model(self) -> str:
        return self.inner.model

    @property
    def usage(self) -> Usage:
        return self.inner.usage

    def start_run(self) -> RunBudget:
        """A fresh deadline and budget for the run starting now."""
        c = self.config
        self.budget = RunBudget.starting_now(c.timeout, c.llm_max_calls, c.llm_max_tokens)
        return self.budget

    def for_purpose(self, purpose: str) -> PurposeLLM:
        """A view whose calls default to the reply length configured for `purpose`."""
        return PurposeLLM(self, purpose)

    def complete(
        self,
        messages: Sequence[Message],
        *,
        json_schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        purpose: str = "answer",
    ) -> Completion:
        budget = self.budget
        where = f"the {purpose} request"
        budget.check(where)
        calls_before = budget.calls
        with active(budget, where):
            completion = self.inner.complete(
                messages, json_schema=json_schema,
                max_tokens=max_tokens or self.config.max_tokens(purpose), temperature=temperature)
        if budget.calls == calls_before:  # a client without HTTP (scripted): one call is one request
            budget.count_request()
        budget.charge_tokens(completion.usage.prompt_tokens + completion.usage.completion_tokens)
        return completion

    def close(self) -> None:
        close = getattr(self.inner, "close", None)
        if close is not None:
            close()


class PurposeLLM:
    """A BoundedLLM seen by one component: same budget, its own default reply length."""

    def __init__(self, bounded: BoundedLLM, purpose: str) -> None:
        bounded.config.max_tokens(purpose)  # an unknown purpose fails here, not at the first call
        self.bounded = bounded
        self.purpose = purpose

    @property
    def model(self) -> str:
        return self.bounded.model

    @property
    def usage(self) -> Usage:
        return self.bounded.usage

    def complete(
        self,
        messages: Sequence[Message],
        *,
        json_schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> Completion:
        return self.bounded.complete(messages, json_schema=json_schema, max_tokens=max_tokens,
                                     temperature=temperature, purpose=self.purpose)
