"""`run_capability`: run a stored analysis capability in the run's sandbox session.

Every capability of a run shares one session, so variables flow from step to step inside the
worker; declared outputs small enough to matter come back to the run (never 3-D movies).
"""

from __future__ import annotations

from typing import Any

from planexec.config import Config
from planexec.context import capability_store
from planexec.errors import ToolError
from planexec.models import Evaluation, StepResult
from planexec.params import resolve as resolve_params
from planexec.protocols import SandboxSession, Store
from planexec.report_calcium import warm_report_imports
from planexec.rundata import CodeBlock
from planexec.serialize import summarize
from planexec.tools.base import ToolContext, ToolOutput
from planexec.tools.code import publishable, session_for


def _store(ctx: ToolContext) -> Store:
    return ctx.services.store.get(lambda: capability_store(ctx.config or Config.from_env(), ctx.services.embedder))


def run_params(ctx: ToolContext) -> dict[str, Any]:
    """The run's analysis parameters (defaults when the run set none), as the variable `params`."""
    params = ctx.state.variables.get("params")
    return params if isinstance(params, dict) else dict(resolve_params("").values)


def _figure_session(ctx: ToolContext, inputs: list[str]) -> SandboxSession | None:
    """A second worker for figure-only capabilities whose inputs the run already holds.

    Drawing then overlaps the analysis still running in the main session, on another core.
    """
    variables = ctx.state.variables
    if not inputs or not all(v in variables for v in inputs):
        return None

    def open_session() -> SandboxSession:
        from planexec.sandbox import Sandbox

        return (ctx.services.sandbox or Sandbox()).session({})

    session = ctx.services.figures.get(open_session)
    session.update({v: variables[v] for v in inputs})
    return session


class RunCapability:
    """Runs one stored capability by id; its declared outputs become run variables and key results."""

    name = "run_capability"
    type = "capability"
    description = "Run a stored, verified analysis capability (a small code snippet) in the sandbox."
    input_schema = {
        "type": "object",
        "properties": {"capability_id": {"type": "string", "minLength": 1}},
        "required": ["capability_id"],
    }
    requires_approval = False

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        warm_report_imports()  # the host only waits for the worker from here: load what the report needs later
        cap = _store(ctx).load(args["capability_id"])
        params = run_params(ctx)
        variables = {**ctx.state.variables, "params": params}
        figures = [o for o in cap.outputs if o.startswith("fig")]
        session = _figure_session(ctx, cap.inputs) if figures == cap.outputs else None
        session = session or session_for(ctx)
        if "params" not in session.inputs:
            session.update({"params": params})
        missing = [v for v in cap.inputs if v not in variables and v not in session.inputs]
        wanted = [o for o in cap.outputs if o not in figures]
        probe = ", ".join(f"{o!r}: list(np.shape({o}))" for o in wanted)
        code = cap.code + f"\nfigures = [{', '.join(figures)}]\nresults = {{{probe}}}\n"
        result = session.run(code)
        if not result.ok:
            hint = f" (inputs not produced by an earlier step: {', '.join(missing)})" if missing else ""
            where = f" at line {result.line}" if result.line else ""
            raise ToolError(f"capability {cap.id} failed{where}: {result.error_type}: {result.error}{hint}")
        shapes = result.results
        small = [o for o in wanted if len(shapes[o]) < 3]
        values = session.get(small) if small else {}
        artifacts = []
        step = ctx.step.step_num if ctx.step else 0
        for i, png in enumerate(result.figures):
            path = ctx.figures_dir / f"step{step:02d}_{cap.id}{'' if i == 0 else f'_{i}'}.png"
            path.write_bytes(png)
            artifacts.append(str(path))
        used = {k: params.get(k) for k in cap.metadata.get("parameters", ())}
        header = (f"Step {step}: {ctx.step.goal if ctx.step else cap.description}\n"
                  f"capability {cap.id} v{cap.version} ({cap.origin}): {cap.description}\n"
                  f"inputs {cap.inputs} -> outputs {cap.outputs}"
                  + (f"\nparameters {used}" if used else ""))
        blocks: list[CodeBlock] = []
        if not ctx.state.code_blocks and ctx.images is not None:
            blocks.append(CodeBlock(*ctx.services.image_loader.preamble(ctx.images, params)))
        blocks.append(CodeBlock(header, cap.code))
        published = {**values, **({} if "params" in ctx.state.variables else {"params": params})}
        results = {k: v for k, v in values.items() if publishable(k, v)}
        shown = ", ".join(f"{k}={summarize(v, 60)}" for k, v in values.items())
        summary = f"{cap.id}: {shown or 'done'}" + (f"; {len(artifacts)} figure(s)" if artifacts else "")
        large = {o: f"array{tuple(shapes[o])} kept in the sandbox session" for o in wanted if o not in values}
        value = {**values, **large, **dict(zip(figures, artifacts, strict=False)),
                 "capability_id": cap.id, "version": cap.version, "stdout": result.stdout,
                 **({"parameters": used} if used else {})}
        return ToolOutput(value=value, summary=summary, artifacts=artifacts, results=results,
                          state={"variables": published, "code_blocks": blocks})


def evaluate_capability(result: StepResult) -> Evaluation | None:
    """A concern when a capability reports that it found no cells."""
    value = result.output if isinstance(result.output, dict) else {}
    variables = value.get("variables") or {}
    if variables.get("n_cells") == 0:
        return Evaluation(concerns=("no cells were detected; check the images or the segmentation",))
    return None


TOOLS = [RunCapability()]
EVALUATORS = {"run_capability": evaluate_capability}
