"""Free mode: a plain Thought / Action / Observation loop with a step limit, for simple queries.

Unlike guided execution it resends its whole growing history on every call; the benchmark in
benchmarks/bench_guided_vs_react.py measures what that costs. Every model call, the loop's and
python_coder's, goes through the orchestrator's `BoundedLLM`: a reply length per purpose and
the run's one deadline and request/token budget; a spent budget ends the loop with what it has.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planexec.errors import ConfigError, PlanexecError
from planexec.llm.base import Message, complete_json
from planexec.llm.providers import KEY_ENVS
from planexec.models import PlanStep, RunResult, StepResult, ToolAttempt, Verdict
from planexec.serialize import summarize
from planexec.tools.base import ToolContext, merge_state, validate_args

if TYPE_CHECKING:
    from planexec.orchestrator import Orchestrator

_SCHEMA = {
    "type": "object",
    "required": ["thought"],
    "properties": {
        "thought": {"type": "string"},
        "action": {"type": "string"},
        "action_input": {"type": "object"},
        "final_answer": {"type": "string"},
    },
}

_SYSTEM = """Answer the request by thinking step by step and calling tools.
Each turn reply with JSON: {"thought": "...", "action": TOOL, "action_input": {...}} to call a tool,
or {"thought": "...", "final_answer": "..."} when you can answer. Tools:
"""


class ReactLoop:
    """Thought → Action → Observation until a final answer or the step limit."""

    def __init__(self, orchestrator: Orchestrator, max_steps: int) -> None:
        if orchestrator.llm is None:
            raise ConfigError(f"free ReAct mode needs an LLM: set {' or '.join(KEY_ENVS)}, or use run()")
        assert orchestrator.bounded is not None
        self.orch = orchestrator
        self.bounded = orchestrator.bounded
        self.llm = orchestrator.bounded.for_purpose("react")
        self.max_steps = max_steps

    def run(self, request: str, *, files: Sequence[str | Path] = ()) -> RunResult:
        started = time.perf_counter()
        usage_start = self.llm.usage.copy()
        budget = self.bounded.start_run()
        tools = self.orch.tools
        ctx = ToolContext(request=request, llm=self.bounded.for_purpose("code"), files=tuple(Path(f) for f in files),
                          config=self.orch.config)
        messages = [Message("system", _SYSTEM + tools.catalogue()), Message("user", request)]
        steps: list[StepResult] = []
        answer, errors = "", []
        for n in range(1, self.max_steps + 1):
            if budget.remaining() <= 0:
                errors.append(f"the run's deadline ({budget.timeout:g} s) passed after {n - 1} step(s); "
                              "raise --timeout or use a faster model")
                break
            try:
                turn: dict[str, Any] = complete_json(self.llm, messages, _SCHEMA, what="ReAct turn")
            except PlanexecError as exc:
                errors.append(str(exc))
                break
            messages.append(Message("assistant", json.dumps(turn)))
            if turn.get("final_answer"):
                answer = str(turn["final_answer"])
                break
            step = PlanStep(n, str(turn.get("thought", "")), (str(turn.get("action", "")),))
            attempt = self._act(step, turn, ctx)
            steps.append(StepResult(step, "succeeded" if attempt.ok else "failed", (attempt,),
                                    output=attempt.output, summary=attempt.summary, tool=attempt.tool,
                                    duration=attempt.duration))
            observation = attempt.summary if attempt.ok else f"tool {attempt.tool} failed: {attempt.error}; try another"
            messages.append(Message("user", f"Observation: {observation}"))
        else:
            errors.append(f"no final answer within {self.max_steps} steps")
        status = "succeeded" if answer else ("partial" if any(s.ok for s in steps) else "failed")
        return RunResult(request, None, steps, answer, status, usage=self.llm.usage.minus(usage_start),
                         errors=errors, timings={"total": time.perf_counter() - started})

    def _act(self, step: PlanStep, turn: dict[str, Any], ctx: ToolContext) -> ToolAttempt:
        started = time.perf_counter()
        name = str(turn.get("action", ""))
        args = turn.get("action_input") or {}
        try:
            tool = self.orch.tools.get(name)
            output = tool.run(validate_args(tool, args), ctx)
            merge_state(ctx.state, output.state)
            ok = output.ok
            return ToolAttempt(name, args, ok, output.value, output.summary or summarize(output.value),
                               None if ok else output.error, Verdict(ok, "tool result", "tool"),
                               time.perf_counter() - started)
        except Exception as exc:  # noqa: BLE001 - the observation tells the model to try another tool
            return ToolAttempt(name, args, False, error=str(exc), verdict=Verdict(False, str(exc), "exception"),
                               duration=time.perf_counter() - started)
