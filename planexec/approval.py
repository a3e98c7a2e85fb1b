"""Human approval of a plan before it runs: keep it, edit it, or reject it."""

from __future__ import annotations

from collections.abc import Callable

from planexec.errors import RunAborted
from planexec.events import PlanApproved
from planexec.models import Plan
from planexec.state import RunState


def review_plan(run: RunState, approve: Callable[[Plan], Plan | None] | None) -> Plan:
    """Pass the plan to `approve`; None rejects the run, another Plan replaces it (validated)."""
    assert run.plan is not None
    if approve is None:
        return run.plan
    decided = approve(run.plan)
    if decided is None:
        run.rejected = True
        raise RunAborted("the plan was rejected")
    edited = decided != run.plan
    if edited:
        decided.validate(run.tools.names())
    run.bus.emit(PlanApproved(edited=edited))
    return decided
