"""`python_code` and `python_coder`: run analysis code in the run's sandbox session.

Both share one sandbox session per run (`ctx.services.session`), opened with the
variables earlier steps published in `ctx.state.variables`, so later steps see what
earlier code computed.
"""

from __future__ import annotations

import re
from typing import Any

from planexec.context import background
from planexec.errors import ToolError
from planexec.llm.base import Message
from planexec.llm.providers import KEY_ENVS
from planexec.protocols import SandboxSession
from planexec.sandbox import ExecutionResult, Sandbox
from planexec.sandbox.handle import file_backed
from planexec.tools.base import ToolContext, ToolOutput
from planexec.tools.decorator import tool

STREAMED_MEMORY_MB = 8192
"""Memory cap of a session whose movie is streamed: working memory, whatever the movie's length."""
RUN_MAX_ARRAYS = 8192
"""Arrays one step may return: segment_cells' stat holds 3 per ROI, and a 512x512 field has hundreds of ROIs."""
_FENCE = re.compile(r"```(?:python|py)?\s*\n(.*?)```", re.DOTALL | re.IGNORECASE)

CODER_SYSTEM = """You write Python analysis code that runs in a sandbox.
Available without import: np (numpy), scipy, skimage, plt (matplotlib, Agg backend), and the
input variables listed below. You may import numpy, scipy, skimage, matplotlib, math,
statistics, collections, itertools, functools. No files, network, os, sys or subprocess.
Leave a dict named `results` with the key numbers (plain floats/ints/lists or numpy arrays),
and optionally `figure` (a matplotlib Figure). Answer with one ```python code block only."""


def session_for(ctx: ToolContext) -> SandboxSession:
    """The run's sandbox session; new variables from `ctx.state.variables` are passed in."""
    variables = dict(ctx.state.variables)

    def factory() -> SandboxSession:
        if ctx.services.sandbox is not None:
            return ctx.services.sandbox.session(variables)
        # Room for the run's image stack: a loaded one arrives memory-mapped, but analyses copy it;
        # a streamed one (a read-only map of the movie's file) is read a chunk at a time.
        images = variables.get("images")
        movie_mb = int(4 * getattr(images, "size", 0) / 2**20)  # as float32, what the analysis time scales with
        streamed = file_backed(images) is not None
        memory_mb = STREAMED_MEMORY_MB if streamed else max(1536, 4 * movie_mb + 512)
        sandbox = Sandbox(timeout=max(60.0, movie_mb / 5), memory_mb=memory_mb)
        sandbox.max_arrays = RUN_MAX_ARRAYS
        return sandbox.session(variables)

    session = ctx.services.session.get(factory)
    fresh = {k: v for k, v in variables.items() if k not in session.inputs}
    if fresh:
        session.update(fresh)
    return session


def _save_figures(result: ExecutionResult, ctx: ToolContext, stem: str) -> list[str]:
    paths = []
    for i, png in enumerate(result.figures, start=1):
        path = ctx.figures_dir / f"{stem}_{i}.png"
        path.write_bytes(png)
        paths.append(str(path))
    return paths


def _stem(ctx: ToolContext, name: str) -> str:
    return f"step{ctx.step.step_num}_{name}" if ctx.step is not None else name


def _outputs(session: SandboxSession, ctx: ToolContext) -> dict[str, Any]:
    """Variables named in the step's `outputs`, for later tools outside the sandbox."""
    names = [n for n in (ctx.step.outputs if ctx.step else ()) if n.isidentifier()]
    if not names:
        return {}
    try:
        found = session.get(names, missing_ok=True)
    except Exception:  # noqa: BLE001 - publishing outputs is best effort
        return {}
    return {"variables": {**ctx.state.variables, **found}} if found else {}


_NOT_RESULTS = ("_image", "_labels", "_mask", "images", "movie", "denoised")


def publishable(name: str, value: Any) -> bool:
    """Whether a produced variable belongs in the run's key results (not images, movies, figures)."""
    if name.endswith(_NOT_RESULTS) or name.startswith("fig"):
        return False
    return getattr(value, "ndim", 0) <= 2


def _as_output(result: ExecutionResult, ctx: ToolContext, session: SandboxSession, name: str,
               code: str, extra: dict[str, Any] | None = None) -> ToolOutput:
    artifacts = _save_figures(result, ctx, _stem(ctx, name)) if result.figures else []
    state = _outputs(session, ctx) if result.ok else {}
    declared = set(ctx.step.outputs) if ctx.step else set()
    published = {k: v for k, v in (state.get("variables") or {}).items() if k in declared and publishable(k, v)}
    value = {"results": result.results, "stdout": result.stdout, "code": code, **(extra or {})}
    if not result.ok:
        value["stderr"] = result.stderr
        value["error_type"] = result.error_type
    return ToolOutput(
        value=value, summary=result.summary(), artifacts=artifacts, ok=result.ok,
        error=None if result.ok else f"{result.error_type}: {result.error}",
        results={**published, **result.results} if result.ok else {},
        state=state,
    )


@tool(type="code")
def python_code(code: str, ctx: ToolContext) -> ToolOutput:
    """Run Python analysis code in the sandbox; earlier variables (e.g. images) are available, and the code leaves `results` (dict) and optionally `figure`."""
    session = session_for(ctx)
    result = session.run(code)
    return _as_output(result, ctx, session, "python_code", code)


def extract_code(text: str) -> str:
    """The first fenced code block of an answer, or the whole answer when there is none."""
    match = _FENCE.search(text)
    return (match.group(1) if match else text).strip()


def describe_variables(variables: dict[str, Any]) -> str:
    lines = []
    for name, value in variables.items():
        shape = getattr(value, "shape", None)
        if shape is not None:
            lines.append(f"- {name}: array shape {tuple(shape)} dtype {getattr(value, 'dtype', '?')}")
        else:
            text = repr(value)
            lines.append(f"- {name}: {type(value).__name__} {text[:80]}")
    return "\n".join(lines) or "- (none)"


def coder_prompt(ctx: ToolContext, variables: dict[str, Any]) -> str:
    step = ctx.step
    parts = [f"Request: {ctx.request}"] if ctx.request else []
    if step is not None:
        parts.append(f"Goal: {step.goal}")
        if step.context:
            parts.append(f"Context: {step.context}")
        if step.success_criteria:
            parts.append(f"Success criteria: {step.success_criteria}")
        if step.inputs:
            parts.append(f"Use inputs: {', '.join(step.inputs)}")
        if step.outputs:
            parts.append(f"Define variables: {', '.join(step.outputs)} (and put key numbers in results)")
    parts.append("Input variables:\n" + describe_variables(variables))
    chunks = list(background(ctx.services, ctx.state))[:5]
    if chunks:
        parts.append("Relevant literature:\n" + "\n---\n".join(c[:1500] for c in chunks))
    return "\n\n".join(parts)


@tool(type="code")
def python_coder(ctx: ToolContext) -> ToolOutput:
    """Ask the LLM to write Python analysis code for the step's goal, run it in the sandbox, and retry once with the error if it fails."""
    if ctx.llm is None:
        raise ToolError(
            f"python_coder needs an LLM; set {'/'.join(KEY_ENVS)} or use a capability"
        )
    session = session_for(ctx)
    messages = [Message("system", CODER_SYSTEM),
                Message("user", coder_prompt(ctx, dict(session.inputs)))]
    attempts: list[dict[str, Any]] = []
    result: ExecutionResult | None = None
    code = ""
    for _ in range(2):
        answer = ctx.llm.complete(messages).text
        code = extract_code(answer)
        result = session.run(code)
        attempts.append({"code": code, "ok": result.ok, "error": result.error})
        if result.ok:
            break
        messages += [
            Message("assistant", f"```python\n{code}\n```"),
            Message("user", f"That code failed: {result.error}\n{result.stderr[-1500:]}\n"
                            "Fix it and answer with the whole corrected code block."),
        ]
    assert result is not None
    return _as_output(result, ctx, session, "python_coder", code, {"attempts": attempts})


TOOLS = [python_code, python_coder]
