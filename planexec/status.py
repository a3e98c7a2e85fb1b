"""A run's status from its plan and step results: `succeeded` only when every clause was served.

A clause is served when a step that names it in `serves` succeeded (its verdict passed). A
failed step counts as recovered only when a replan added a substitute that passed the coverage
decision for the failed step's goal (`maybe_replan` records that) and the substitute succeeded.
"""

from __future__ import annotations

from collections.abc import Sequence

from planexec.models import Plan, StepResult
from planexec.records import ReplanRecord


def clauses_of(step_serves: str) -> list[str]:
    """The clauses a step serves (the planner joins several with '; ')."""
    return [c.strip() for c in step_serves.split(";") if c.strip()]


def unserved_clauses(plan: Plan | None, steps: Sequence[StepResult]) -> list[str]:
    """Clauses some step of the plan was meant to serve that no succeeded step served."""
    wanted: list[str] = []
    served: set[str] = set()
    for s in plan.steps if plan else ():
        wanted += [c for c in clauses_of(s.serves) if c not in wanted]
    for r in steps:
        if r.ok:
            served.update(clauses_of(r.step.serves))
    return [c for c in wanted if c not in served]


def recovered_steps(steps: Sequence[StepResult], replans: Sequence[ReplanRecord]) -> set[int]:
    """Failed steps whose substitutes passed the coverage decision for their goal and succeeded (or were recovered)."""
    good = {r.step.step_num for r in steps if r.ok}
    out: set[int] = set()
    changed = True
    while changed:  # a substitute that failed may itself have been replaced by a later replan
        changed = False
        for rec in replans:
            n = rec.failed_step
            if n not in out and rec.taken and all(x in good or x in out for x in rec.substitutes or ()):
                out.add(n)
                changed = True
    return out


def run_status(plan: Plan | None, steps: Sequence[StepResult], replans: Sequence[ReplanRecord]) -> str:
    """succeeded, partial or failed, for a run that was planned and not stopped."""
    if not steps or not any(s.ok for s in steps):
        return "failed"
    if unserved_clauses(plan, steps):
        return "partial"
    recovered = recovered_steps(steps, replans)
    if all(s.ok or s.step.step_num in recovered for s in steps) and plan and len(steps) >= len(plan.steps):
        return "succeeded"
    return "partial"
