"""The run's growing state: the only mutable object of a run, shared by the loop and its helpers."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from planexec.config import Config
from planexec.events import EventBus
from planexec.llm.base import LLM
from planexec.models import Plan, PlanStep, StepResult, Usage
from planexec.params import Params
from planexec.protocols import PlanningContext
from planexec.records import ExecutionEntry, ReplanRecord
from planexec.rundata import RunData
from planexec.tools.base import Services, ToolContext, ToolOutput, merge_state
from planexec.tools.registry import ToolRegistry

HOST_RESULT_KEYS = frozenset({"saved_capabilities"})
"""Keys of `results` the host itself writes; a tool's result of the same name is kept as `step.<key>`."""


@dataclass
class RunState:
    """Everything a run has gathered so far; thread-safe where parallel steps touch it."""

    request: str
    config: Config
    tools: ToolRegistry
    bus: EventBus
    llm: LLM | None = None
    files: tuple[Path, ...] = ()
    images: Path | None = None
    output_dir: Path | None = None
    plan: Plan | None = None
    step_results: dict[int, StepResult] = field(default_factory=dict)
    results: dict[str, Any] = field(default_factory=dict)
    state: RunData = field(default_factory=RunData)
    """What tools share: variables, code blocks, input metadata, passages and tools' own keys."""
    services: Services = field(default_factory=Services)
    errors: list[str] = field(default_factory=list)
    artifacts: list[str] = field(default_factory=list)
    replans: list[ReplanRecord] = field(default_factory=list)
    execution_sequence: list[ExecutionEntry] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    consecutive_errors: int = 0
    last_error_tool: str | None = None
    aborted: str | None = None
    rejected: bool = False
    stopped_at_deadline: bool = False
    """Steps were left unrun because the run's deadline passed (the checkpoint stays resumable)."""
    not_covered: Any = None
    """The coverage of a request refused before any step ran (planexec.coverage.Coverage)."""
    started: float = field(default_factory=time.perf_counter)
    usage_start: Usage = field(default_factory=Usage)
    capabilities: tuple[Any, ...] = ()
    params: Params = field(default_factory=Params)
    """Analysis parameters (diameter, fs, tau, ...), resolved from the request and the caller."""
    running: set[int] = field(default_factory=set)
    """Steps being executed right now (kept by the scheduler; a replan keeps them)."""
    lock: threading.RLock = field(default_factory=threading.RLock)

    def tool_context(self, step: PlanStep | None) -> ToolContext:
        """A context sharing this run's data and services."""
        return ToolContext(
            request=self.request,
            step=step,
            llm=self.llm,
            files=self.files,
            images=self.images,
            output_dir=self.output_dir,
            state=self.state,
            services=self.services,
            config=self.config,
        )

    def planning_context(self, failure: str = "") -> PlanningContext:
        return PlanningContext(
            request=self.request,
            tools=self.tools,
            files=self.files,
            images=self.images,
            rag_chunks=tuple(self.state.rag_chunks),
            background=background.chunks if (background := self.services.background.peek()) is not None else None,
            capabilities=self.capabilities,
            completed=tuple(r for r in self.ordered_results() if r.status != "pending"),
            failure=failure,
            variables=tuple(self.state.variables),
            store=self.services.store.peek(),
        )

    def apply_output(self, output: ToolOutput) -> None:
        """Merge a verified output's state and key figures into the run."""
        with self.lock:
            merge_state(self.state, output.state)
            self.results.update({f"step.{k}" if k in HOST_RESULT_KEYS else k: v
                                 for k, v in output.results.items()})
            self.artifacts.extend(a for a in output.artifacts if a not in self.artifacts)

    def ready_steps(self, running: set[int]) -> list[PlanStep]:
        """Steps not yet finished or running whose dependencies have all finished.

        A step whose dependency did not succeed is recorded as skipped on the way.
        """
        assert self.plan is not None
        ready: list[PlanStep] = []
        with self.lock:
            for step in self.plan.steps:
                n = step.step_num
                if n in self.step_results or n in running:
                    continue
                deps = [self.step_results.get(d) for d in step.depends_on]
                if any(d is None for d in deps):
                    continue
                blocked = [d.step.step_num for d in deps if d is not None and not d.ok]
                if blocked:
                    self.step_results[n] = StepResult(
                        step, "skipped", summary=f"skipped: depends on step(s) {blocked}, which did not succeed"
                    )
                    return self.ready_steps(running)
                ready.append(step)
        return ready

    def record(self, result: StepResult) -> None:
        with self.lock:
            self.step_results[result.step.step_num] = result

    def ordered_results(self) -> list[StepResult]:
        """Step results by step number (replans number their new steps after the old ones)."""
        with self.lock:
            return [self.step_results[n] for n in sorted(self.step_results)]

    def elapsed(self) -> float:
        return time.perf_counter() - self.started
