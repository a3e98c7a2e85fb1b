"""The seams between planexec's parts, as small Protocols (the LLM and Tool seams live beside their code)."""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    import numpy as np

    from planexec.knowledge.capability import Capability, Match
    from planexec.models import Evaluation, Plan, PlanStep, StepResult, Verdict
    from planexec.sandbox.result import ExecutionResult
    from planexec.state import RunState
    from planexec.tools.base import Tool, ToolContext, ToolOutput
    from planexec.tools.registry import ToolRegistry


@dataclass
class PlanningContext:
    """What a planner may look at: the tools, the inputs, retrieved knowledge, and on a replan what happened."""

    request: str
    tools: ToolRegistry
    files: tuple[Path, ...] = ()
    images: Path | None = None
    rag_chunks: tuple[str, ...] = ()
    background: Callable[[], tuple[str, ...]] | None = None
    """Retrieves background passages on demand (when `rag_chunks` is empty); only LLM planners call it."""
    capabilities: tuple[Any, ...] = ()
    completed: tuple[StepResult, ...] = ()
    failure: str = ""
    variables: tuple[str, ...] = ()
    """Names of the run's variables that exist before planning (beyond images and files)."""
    store: Store | None = None
    """The run's capability store, when one is open (the reuse-first planner asks it)."""
    avoid: frozenset[str] = frozenset()
    """On a replan: tools and capability ids that already failed, for the planner to leave out."""

    def passages(self) -> tuple[str, ...]:
        """Background passages for the request: given, or retrieved now."""
        return self.rag_chunks or (self.background() if self.background else ())

    def available(self) -> set[str]:
        """Variables that exist before any new step runs: the run's inputs and finished steps' outputs."""
        have = {"images"} if self.images is not None else set()
        if self.files:
            have.add("files")
        for r in self.completed:
            if r.ok:
                have.update(r.step.outputs)
        return have | set(self.variables)

    def variable_tools(self) -> set[str]:
        """Tools whose steps work on named variables (code and capabilities)."""
        return {t.name for t in self.tools if t.type in ("code", "capability")}


@runtime_checkable
class Planner(Protocol):
    """Turns a request into a validated plan."""

    name: str

    def plan(self, ctx: PlanningContext) -> Plan: ...


@runtime_checkable
class InputGenerator(Protocol):
    """Produces a tool's arguments for a step."""

    def generate(self, step: PlanStep, tool: Tool, ctx: ToolContext) -> dict[str, Any]: ...


@runtime_checkable
class Verifier(Protocol):
    """Decides whether a tool's output achieved the step (heuristics first, LLM when undecided)."""

    def verify(self, step: PlanStep, output: ToolOutput, ctx: ToolContext) -> Verdict: ...


@runtime_checkable
class StepEvaluator(Protocol):
    """Judges a finished step: continue, replan or abort."""

    def evaluate(self, result: StepResult) -> Evaluation: ...


@runtime_checkable
class Synthesizer(Protocol):
    """Writes the answer from all step results (partial success is still an answer)."""

    def synthesize(self, request: str, steps: Sequence[StepResult], results: dict[str, Any]) -> str: ...


@runtime_checkable
class Embedder(Protocol):
    """Text to L2-normalised float32 vectors of shape (n, dim)."""

    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


@runtime_checkable
class ImageLoader(Protocol):
    """How a domain turns the run's --images input into run variables, and into a script's first lines.

    The built-in one (planexec.tools.calcium_inputs.CalciumImages) loads calcium-imaging movies.
    """

    def load(self, run: RunState) -> None: ...

    def preamble(self, images: object, params: dict[str, Any]) -> tuple[str, str]:
        """The first block of a generated script (title, code): imports, loading `images`, `params`."""
        ...


@runtime_checkable
class SandboxSession(Protocol):
    """Runs that share one namespace; failures come back as data in the ExecutionResult."""

    inputs: dict[str, Any]
    closed: bool

    def run(self, code: str, timeout: float | None = None) -> ExecutionResult: ...

    def get(self, names: builtins.list[str] | tuple[str, ...], missing_ok: bool = False) -> dict[str, Any]: ...

    def update(self, values: dict[str, Any]) -> None: ...

    def close(self) -> None: ...


@runtime_checkable
class Sandbox(Protocol):
    """Where analysis code runs. Real: `planexec.sandbox.Sandbox` (a confined worker process);
    fake: `planexec.sandbox.inprocess.InProcessSandbox` (exec in this process, for tests)."""

    def session(self, inputs: dict[str, Any] | None = None) -> SandboxSession: ...


@runtime_checkable
class Store(Protocol):
    """The library of reusable capabilities a run reads and adds to.

    Real: `planexec.knowledge.CapabilityStore` (git-versioned, on disk); fake:
    `planexec.knowledge.MemoryStore` (a dict, for offline tests).
    """

    def list(self) -> builtins.list[Capability]: ...

    def load(self, cap_id: str) -> Capability: ...

    def find_reusable(
        self, description: str, inputs: Sequence[str] | None = None, outputs: Sequence[str] | None = None
    ) -> Match | None: ...

    def save(self, capability: Capability | None = None, /, **fields: Any) -> str: ...

    def record_uses(self, uses: Sequence[tuple[str, bool, float]], token: str | None = None) -> None: ...

    def close(self) -> None: ...


__all__ = [
    "Embedder",
    "ImageLoader",
    "InputGenerator",
    "Planner",
    "PlanningContext",
    "Sandbox",
    "SandboxSession",
    "StepEvaluator",
    "Store",
    "Synthesizer",
    "Verifier",
]
