"""After a run: record how reused capabilities fared, and save generated code that ran and verified."""

from __future__ import annotations

from collections.abc import Sequence

from planexec.actions import CAPABILITY_TOOL
from planexec.context import capability_store
from planexec.models import StepResult
from planexec.state import RunState

CODER_TOOL = "python_coder"


def persist_capabilities(run: RunState, steps: Sequence[StepResult]) -> None:
    """One store commit for the run's reuse records and one per new capability; nothing when no step touched code."""
    uses = [
        (r, a) for r in steps for a in r.attempts
        if a.tool == CAPABILITY_TOOL and a.input.get("capability_id")
    ]
    generated = [
        r for r in steps
        if r.ok and r.tool == CODER_TOOL and r.step.outputs and isinstance(r.output, dict) and r.output.get("code")
    ]
    if not uses and not generated:
        return
    store = run.services.get("capability_store", lambda: capability_store(run.config))
    store.record_uses([(str(a.input["capability_id"]), a.ok, a.duration) for _, a in uses])
    for r in generated:
        cap_id = store.save(
            name=r.step.goal[:60],
            description=r.step.goal,
            inputs=list(r.step.inputs),
            outputs=list(r.step.outputs),
            code=str(r.output["code"]),
            origin="generated",
        )
        run.results.setdefault("saved_capabilities", []).append(cap_id)
