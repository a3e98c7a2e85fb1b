"""Human approval of a plan before it runs: keep it, edit it, or reject it."""

from __future__ import annotations

from collections.abc import Callable

from planexec.errors import RunAborted, UsageError
from planexec.events import PlanApproved
from planexec.models import Plan
from planexec.state import RunState


def review_plan(run: RunState, approve: Callable[[Plan], Plan | None] | None) -> Plan:
    """Pass the plan to `approve`; None rejects the run, another Plan replaces it (validated).

    A rejection raises RunAborted after marking the run rejected, so no tool runs.
    """
    assert run.plan is not None
    if approve is None:
        return run.plan
    decided = approve(run.plan)
    if decided is None:
        run.rejected = True
        raise RunAborted("the plan was rejected")
    if not isinstance(decided, Plan):
        raise UsageError(
            f"approve_plan must return the Plan to run (possibly edited) or None to reject, "
            f"not {type(decided).__name__}"
        )
    edited = decided != run.plan
    if edited:
        decided.validate(run.tools.names())
    run.bus.emit(PlanApproved(edited=edited))
    return decided
