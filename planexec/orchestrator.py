"""The orchestrator: context → plan → approve → steps (verified, evaluated) → answer → report.

`_drive()` is the whole loop, readable top to bottom; each part it calls lives in its own module.
`iter()` streams a run's events (planexec.stream) from the same loop, which `run()` and
`resume()` drive in the calling thread.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from planexec.approval import review_plan
from planexec.checkpoint import load_checkpoint, restore, save_checkpoint
from planexec.components import Components
from planexec.config import Config
from planexec.context import ContextBuilder, check_inputs
from planexec.deadline import skip_the_rest
from planexec.errors import LLMError, NotCovered, PlanexecError, RunAborted, ToolError, UsageError
from planexec.events import (
    EventBus,
    PlanCreated,
    RunAbortedEvent,
    RunFinished,
    RunStarted,
    StepFinished,
    Subscriber,
)
from planexec.executor import CircuitBreaker, GuidedExecutor, ToolApproval
from planexec.learning import tool_learner
from planexec.llm.base import LLM
from planexec.llm.bounded import BoundedLLM
from planexec.models import Plan, PlanStep, RunResult, StepResult
from planexec.params import resolve as resolve_params
from planexec.persist import bookkeep
from planexec.planner_heuristic import HeuristicPlanner
from planexec.protocols import Embedder, Sandbox, Store
from planexec.react import ReactLoop
from planexec.replan import maybe_replan
from planexec.report import RunLog, discard_stub, new_run_dir, write_reports
from planexec.sandbox.forkserver import prewarm
from planexec.scheduler import Scheduler
from planexec.state import RunState
from planexec.status import run_status
from planexec.stream import Handoff, RunStream
from planexec.synthesis import TemplateSynthesizer, input_notes, not_done
from planexec.tools import ToolRegistry, default_registry

PlanApproval = Callable[[Plan], Plan | None]


class Orchestrator:
    """Runs requests as verified plans. With `llm=None` every decision is deterministic and offline."""

    def __init__(
        self,
        llm: LLM | None = None,
        tools: ToolRegistry | None = None,
        config: Config | None = None,
        components: Components | None = None,
        *,
        store: Store | None = None,
        sandbox: Sandbox | None = None,
        embedder: Embedder | None = None,
    ) -> None:
        """`store` replaces the capability store under the configured home, `sandbox` the confined
        worker analysis code runs in (in tests: MemoryStore, InProcessSandbox), `embedder` the
        model `config.embedder` names."""
        self.config = config or Config.from_env()
        self.store = store
        self.sandbox = sandbox
        self.embedder = embedder
        self.llm = llm
        self.bounded = BoundedLLM(llm, self.config) if llm is not None else None
        """The client as every part of a run uses it: bounded by the run's deadline and budget."""
        self.tools = tools if tools is not None else default_registry()
        self.parts = components or Components.defaults(self.bounded, self.config, embedder)
        self.context = ContextBuilder()

    @classmethod
    def from_config(cls, config: Config | None = None, tools: ToolRegistry | None = None) -> Orchestrator:
        """An orchestrator whose LLM backend comes from the configuration (auto: a key picks it)."""
        from planexec.llm.factory import make_llm

        config = config or Config.from_env()
        return cls(make_llm(config), tools, config)

    def run(
        self,
        request: str,
        *,
        plan: Plan | None = None,
        files: Sequence[str | Path] = (),
        images: str | Path | None = None,
        on_event: Subscriber | None = None,
        approve_plan: PlanApproval | None = None,
        approve_tool: ToolApproval | None = None,
        params: Mapping[str, Any] | None = None,
    ) -> RunResult:
        """Plan (unless `plan` is given), run every step with fallback and verification, answer.

        `params` sets analysis parameters (`diameter`, `fs`, `tau`, `neuropil_coefficient`, ...;
        see `planexec.params`); they override values stated in the request text. `on_event` sees
        the events `iter()` yields, as they happen. The loop runs in the calling thread, so Ctrl-C
        stops the step that is running at once (`iter()` can only stop at the next event).
        """
        return self._run_new(request, plan, files, images, on_event, approve_plan, approve_tool, params)

    def _run_new(self, request: str, plan: Plan | None, files: Sequence[str | Path],
                 images: str | Path | None, on_event: Subscriber | None,
                 approve_plan: PlanApproval | None, approve_tool: ToolApproval | None,
                 params: Mapping[str, Any] | None) -> RunResult:
        if images is not None and self.sandbox is None:
            prewarm()  # image runs use the sandbox: its imports overlap context and planning
        run = self._start(request, files, images, on_event, params=params)
        return self._drive(run, lambda: self._plan(run, plan), approve_plan, approve_tool)

    def iter(
        self,
        request: str,
        *,
        plan: Plan | None = None,
        files: Sequence[str | Path] = (),
        images: str | Path | None = None,
        approve_plan: PlanApproval | None = None,
        approve_tool: ToolApproval | None = None,
        params: Mapping[str, Any] | None = None,
    ) -> RunStream:
        """The run of `run()` as a stream of its events; the stream's `result` is the RunResult.

        The run starts at the first `next()`; closing the stream early cancels it (see planexec.stream).
        """

        def body(handoff: Handoff) -> RunResult:
            return self._run_new(request, plan, files, images, handoff.emit,
                                 handoff.in_consumer(approve_plan), handoff.in_consumer(approve_tool), params)

        return RunStream(body)

    def resume(self, run_dir: str | Path, *, on_event: Subscriber | None = None,
               approve_tool: ToolApproval | None = None) -> RunResult:
        """Continue a checkpointed run from its last finished step, without re-running finished steps."""
        data = load_checkpoint(run_dir)
        run = self._start(data["request"], data["files"], data["images"], on_event, Path(run_dir),
                          data.get("params"))
        return self._drive(run, lambda: restore(run, data), None, approve_tool)

    def _drive(self, run: RunState, make_plan: Callable[[], Plan], approve_plan: PlanApproval | None,
               approve_tool: ToolApproval | None) -> RunResult:
        """The loop: context, plan, approval, then every ready step as evaluate(execute(step))."""
        try:
            try:
                self._timed(run, "context", lambda: self.context.prepare(run))
                run.plan = self._timed(run, "plan", make_plan)
                run.plan = review_plan(run, approve_plan)
                save_checkpoint(run)  # resumable even when killed during the first step
                executor = self._executor(approve_tool)
                Scheduler(self.config.max_parallel).run(
                    run,
                    work=lambda step: self._evaluate(executor.execute(step, run)),
                    on_result=lambda result: self._after_step(run, result),
                )
                skip_the_rest(run)
            except NotCovered as exc:  # refused before any step ran
                run.not_covered = exc.coverage
            except RunAborted as exc:
                run.aborted = exc.reason
                run.bus.emit(RunAbortedEvent(exc.reason))
            except (LLMError, ToolError) as exc:
                run.errors.append(str(exc))
            return self._finish(run)
        except UsageError:
            if run.plan is None:
                discard_stub(run.output_dir)  # a rejected input leaves no outputs/<timestamp>/ behind
            raise
        finally:  # also when a usage error (an invalid plan) escapes: run.log and services close
            run.services.close()

    # -- the parts of the loop ------------------------------------------------------------

    def _start(self, request: str, files: Sequence[str | Path], images: str | Path | None,
               on_event: Subscriber | None, output_dir: Path | None = None,
               params: Mapping[str, Any] | None = None) -> RunState:
        if not request or not request.strip():
            raise PlanexecError("the request is empty; say what you want done")
        paths, img = check_inputs(files, images)
        resolved = resolve_params(request, params)
        bus = EventBus([on_event] if on_event else [])
        out = output_dir or (new_run_dir(self.config.output_root) if self.config.write_outputs else None)
        if self.bounded is not None:
            self.bounded.start_run()
        code_llm = self.bounded.for_purpose("code") if self.bounded is not None else None
        run = RunState(request.strip(), self.config, self.tools, bus, code_llm, paths, img, out, params=resolved)
        run.state.variables = {"params": dict(resolved.values)}
        if self.store is not None:
            run.services.store.set(self.store, owned=False)
        run.services.sandbox, run.services.embedder = self.sandbox, self.embedder
        if self.llm is not None:
            run.usage_start = self.llm.usage.copy()
        if out is not None:
            log = RunLog(out / "run.log")
            bus.subscribe(log)
            run.services.run_log.set(log)
        bus.emit(RunStarted(run.request, str(out) if out else None))
        return run

    def _plan(self, run: RunState, given: Plan | None) -> Plan:
        ctx = run.planning_context()
        plan = given if given is not None else self.parts.planner.plan(ctx)
        if self.bounded is not None and given is None and plan.planner == HeuristicPlanner.name:
            self.bounded.budget.close("the library covers every clause, so the run is exactly the offline one")
        plan.validate(run.tools.names(), ctx.available(), ctx.variable_tools())
        run.bus.emit(PlanCreated(plan, plan.planner or ("caller" if given else "")))
        return plan

    def _executor(self, approve_tool: ToolApproval | None) -> GuidedExecutor:
        return GuidedExecutor(
            self.parts.inputs,
            self.parts.verifier,
            CircuitBreaker(self.config.max_consecutive_errors),
            approve_tool,
            tool_learner(self.config, self.embedder),
        )

    def _evaluate(self, result: StepResult) -> StepResult:
        return dataclasses.replace(result, evaluation=self.parts.evaluator.evaluate(result))

    def _after_step(self, run: RunState, result: StepResult) -> None:
        run.record(result)
        evaluation = result.evaluation
        run.bus.emit(StepFinished(result.step.step_num, result.status, result.tool, result.summary[:300],
                                  result.duration, evaluation.decision if evaluation else "continue"))
        save_checkpoint(run)
        if evaluation and evaluation.decision == "abort":
            raise RunAborted(f"step {result.step.step_num} failed critically: " + "; ".join(evaluation.concerns))
        if evaluation and evaluation.decision == "replan":
            maybe_replan(run, result, self.parts.planner)

    def _finish(self, run: RunState) -> RunResult:
        steps = run.ordered_results()
        started = time.perf_counter()
        # A run that needed no model call keeps needing none: its answer is templated.
        needed_llm = run.llm is not None and run.llm.usage.calls > run.usage_start.calls
        status = _status(run, steps)  # a run that did not succeed gets the templated account of what happened
        synthesizer = self.parts.synthesizer if (needed_llm or run.llm is None) and status == "succeeded" else TemplateSynthesizer()
        try:
            answer = (run.not_covered.message() if run.not_covered is not None
                      else synthesizer.synthesize(run.request, steps, run.results))
        except PlanexecError as exc:
            run.errors.append(f"synthesis failed, templated answer given instead: {exc}")
            answer = TemplateSynthesizer().synthesize(run.request, steps, run.results)
        answer += not_done(run.plan, run.errors) if status != "succeeded" else ""
        answer += input_notes(run.state.stack_meta) if steps else ""
        run.timings["synthesis"] = time.perf_counter() - started
        run.timings["total"] = run.elapsed()
        result = RunResult(
            request=run.request, plan=run.plan, steps=steps, answer=answer, status=status,
            results=run.results, usage=run.llm.usage.minus(run.usage_start) if run.llm else run.usage_start,
            errors=run.errors + ([run.aborted] if run.aborted else []), artifacts=run.artifacts,
            output_dir=str(run.output_dir) if run.output_dir else None, timings=run.timings,
            replans=[r.to_dict() for r in run.replans], params=run.params.to_dict(),
            execution_sequence=[e.to_dict() for e in run.execution_sequence],
        )
        run.bus.emit(RunFinished(result.status, answer, result.output_dir, run.timings["total"]))
        result.events = [e.to_dict() for e in run.bus.history]
        write_reports(result, run.state)  # the finished analysis is on disk before any bookkeeping
        if bookkeep(run, steps, result.warnings):
            write_reports(result, run.state)
        save_checkpoint(run, finished=not run.stopped_at_deadline)  # a run cut by its deadline can be resumed
        return result

    def _timed(self, run: RunState, name: str, fn: Callable[[], Any]) -> Any:
        started = time.perf_counter()
        try:
            return fn()
        finally:
            run.timings[name] = time.perf_counter() - started

    def react(self, request: str, *, files: Sequence[str | Path] = (), max_steps: int | None = None) -> RunResult:
        """Free mode: a plain Thought/Action/Observation loop for simple queries (needs an LLM)."""
        return ReactLoop(self, max_steps or self.config.react_max_steps).run(request, files=files)


def _status(run: RunState, steps: list[StepResult]) -> str:
    if run.not_covered is not None:
        return "not_covered"
    if run.rejected:
        return "rejected"
    if run.aborted:
        return "aborted"
    status = run_status(run.plan, steps, run.replans)
    if status == "succeeded" and run.plan and run.plan.unplanned:  # a part of the request no step served
        return "partial"
    return status


__all__ = ["Components", "Orchestrator", "PlanStep"]
