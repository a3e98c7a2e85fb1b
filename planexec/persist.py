"""After a run: record how reused capabilities fared, and save generated code that ran and verified."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from planexec.actions import CAPABILITY_TOOL
from planexec.context import capability_store
from planexec.errors import EnvironmentFailure
from planexec.models import StepResult
from planexec.state import RunState

CODER_TOOL = "python_coder"
log = logging.getLogger(__name__)


def bookkeep(run: RunState, steps: Sequence[StepResult], warnings: list[str]) -> bool:
    """Update the capability library after a finished run; a failure becomes a warning, never an error.

    Returns whether the report must be written again (something was saved, or a warning added).
    """
    try:
        persist_capabilities(run, steps)
    except Exception as exc:  # noqa: BLE001 - the analysis is done; no bookkeeping failure may lose it
        log.debug("capability library not updated", exc_info=True)
        fix = "" if isinstance(exc, (EnvironmentFailure, OSError)) else " Run `planexec doctor --repair` to fix the library."
        warnings.append(f"the capability library was not updated ({exc}); the analysis above is complete.{fix}")
        return True
    return bool(run.results.get("saved_capabilities"))


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
    store = run.services.store.get(lambda: capability_store(run.config, run.services.embedder))
    token = f"run {run.output_dir.name}" if run.output_dir is not None else None  # a resumed run counts once
    store.record_uses([(str(a.input["capability_id"]), a.ok, a.duration) for _, a in uses], token=token)
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
