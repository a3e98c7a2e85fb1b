"""Guided ReAct execution of one step: each tool in order (primary, then fallback), each output verified.

Failures of a tool become observations recorded on the attempt; the first verified success
ends the step. A circuit breaker stops the run after N consecutive tool errors.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from planexec.errors import PlanexecError, RunAborted, UsageError
from planexec.events import AttemptFinished, AttemptStarted, StepFinished, StepStarted
from planexec.learning import ToolLearner
from planexec.models import PlanStep, StepResult, ToolAttempt, Verdict
from planexec.protocols import InputGenerator, Verifier
from planexec.records import ExecutionEntry
from planexec.serialize import summarize
from planexec.state import RunState
from planexec.tools.base import ToolOutput, validate_args

ToolApproval = Callable[[str, dict[str, Any]], bool]


class CircuitBreaker:
    """Counts consecutive tool errors across the run; the Nth raises RunAborted."""

    def __init__(self, limit: int) -> None:
        self.limit = limit

    def record(self, run: RunState, tool: str, error: bool) -> bool:
        """Update the count; return True when this success follows an error of the same tool (auto-fix)."""
        with run.lock:
            if not error:
                fixed = run.last_error_tool == tool
                run.consecutive_errors = 0
                run.last_error_tool = None if fixed else run.last_error_tool
                return fixed
            run.consecutive_errors += 1
            run.last_error_tool = tool
            if self.limit and run.consecutive_errors >= self.limit:
                raise RunAborted(
                    f"circuit breaker: {run.consecutive_errors} consecutive tool errors (last: {tool})"
                )
            return False


class GuidedExecutor:
    """Runs a step's tools in order until one's output is verified."""

    def __init__(
        self,
        inputs: InputGenerator,
        verifier: Verifier,
        breaker: CircuitBreaker,
        approve_tool: ToolApproval | None = None,
        learner: ToolLearner | None = None,
    ) -> None:
        self.inputs = inputs
        self.verifier = verifier
        self.breaker = breaker
        self.approve_tool = approve_tool
        self.learner = learner

    def execute(self, step: PlanStep, run: RunState) -> StepResult:
        tools = self.learner.order(step, run) if self.learner else step.tools
        run.bus.emit(StepStarted(step.step_num, step.goal, tools))
        started = time.perf_counter()
        attempts: list[ToolAttempt] = []
        winner: tuple[ToolAttempt, ToolOutput] | None = None
        for name in tools:
            if run.aborted:
                break
            try:
                attempt, output = self._attempt(step, name, run)
            except RunAborted as exc:
                # keep the attempt that tripped the breaker, and the step, in the run's record
                if isinstance(exc.payload, ToolAttempt):
                    attempts.append(exc.payload)
                stopped = StepResult(step, "failed", tuple(attempts), summary=f"stopped: {exc.reason}",
                                     duration=time.perf_counter() - started)
                run.record(stopped)
                run.bus.emit(StepFinished(step.step_num, "failed", name, stopped.summary[:300],
                                          stopped.duration, "abort"))
                raise
            attempts.append(attempt)
            if attempt.verdict is not None and attempt.verdict.ok and output is not None:
                winner = (attempt, output)
                run.apply_output(output)
                break
        duration = time.perf_counter() - started
        if self.learner is not None:
            self.learner.observe(step, tuple(attempts))
        if winner is None:
            return StepResult(step, "failed", tuple(attempts), summary="all tools failed", duration=duration)
        attempt, output = winner
        return StepResult(
            step,
            "succeeded",
            tuple(attempts),
            output=output.value,
            result_type=_result_type(output.value),
            summary=attempt.summary,
            tool=attempt.tool,
            duration=duration,
        )

    def _attempt(self, step: PlanStep, name: str, run: RunState) -> tuple[ToolAttempt, ToolOutput | None]:
        ctx = run.tool_context(step)
        started = time.perf_counter()
        args: dict[str, Any] = {}
        output: ToolOutput | None = None
        error: str | None = None
        try:
            tool = run.tools.get(name)
            args = validate_args(tool, self.inputs.generate(step, tool, ctx))
            run.bus.emit(AttemptStarted(step.step_num, name, args))
            if getattr(tool, "requires_approval", False):
                if self.approve_tool is None:
                    raise PlanexecError(f"{name} requires approval and no approver was given "
                                        "(pass approve_tool= to run(), or --approve in the CLI)")
                if not self.approve_tool(name, dict(args)):
                    raise PlanexecError(f"{name} was not approved to run (denied with arguments {args})")
            output = tool.run(args, ctx)
            if not output.ok:
                error = output.error or "the tool reported failure"
        except RunAborted:
            raise
        except UsageError as exc:
            error = str(exc)
        except Exception as exc:  # noqa: BLE001 - a tool's failure is an observation, never a crash
            error = f"{type(exc).__name__}: {exc}" if not isinstance(exc, PlanexecError) else str(exc)
        verdict = (
            self.verifier.verify(step, output, ctx)
            if output is not None and error is None
            else Verdict(False, error or "no output", "tool" if output is not None else "exception")
        )
        if error is None and not verdict.ok and verdict.decided_by == "heuristic" and step.serves:
            budget = getattr(ctx.llm, "budget", None)  # the library did not serve this clause after all:
            if budget is not None:                      # a configured model may now add (python_coder, a replan)
                budget.reopen()
        duration = time.perf_counter() - started
        tripped: RunAborted | None = None
        try:
            auto_fixed = self.breaker.record(run, name, error is not None)
        except RunAborted as exc:
            auto_fixed, tripped = False, exc
        attempt = ToolAttempt(
            tool=name,
            input=args,
            ok=error is None and verdict.ok,
            output=output.value if output is not None else None,
            summary=(output.summary or summarize(output.value)) if output is not None else "",
            error=error,
            verdict=verdict,
            duration=duration,
            artifacts=tuple(output.artifacts) if output is not None else (),
            auto_fixed=auto_fixed,
        )
        with run.lock:
            run.execution_sequence.append(ExecutionEntry(
                step.step_num, name, "success" if attempt.ok else "error",
                error or (None if verdict.ok else verdict.reason), auto_fixed, round(duration, 6),
            ))
        run.bus.emit(
            AttemptFinished(step.step_num, name, attempt.ok, attempt.summary[:300], error,
                            verdict.reason, verdict.decided_by, duration)
        )
        if tripped is not None:
            raise RunAborted(tripped.reason, payload=attempt)
        return attempt, output


def _result_type(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, (dict, list, tuple)):
        return "structured"
    if isinstance(value, str):
        return "text"
    if isinstance(value, (int, float, bool)):
        return "scalar"
    return type(value).__name__
