"""Bounded replanning: after a step fails, ask the planner for the remaining work, at most N times."""

from __future__ import annotations

from planexec.errors import PlanexecError
from planexec.events import Replanned
from planexec.models import Plan, PlanStep, StepResult
from planexec.protocols import Planner
from planexec.state import RunState


def failed_actions(result: StepResult) -> set[str]:
    """Names of what failed in a step (tools and capability ids), for the planner to avoid."""
    avoid = {a.tool for a in result.attempts if not a.ok}
    cap = result.step.args.get("capability_id")
    if cap:
        avoid.add(str(cap))
    return avoid


def maybe_replan(run: RunState, failed: StepResult, planner: Planner) -> bool:
    """Replace the unfinished part of the plan with a revised one; False when the budget is spent."""
    if run.plan is None or len(run.replans) >= run.config.max_replans:
        return False
    step = failed.step
    reasons = "; ".join(failed.evaluation.concerns) if failed.evaluation else failed.summary
    reason = f"step {step.step_num} ({step.goal}) failed: {reasons}"
    ctx = run.planning_context(failure=reason)
    ctx.extra["avoid"] = failed_actions(failed)
    record: dict[str, object] = {"failed_step": step.step_num, "reason": reason}
    try:
        new = planner.plan(ctx)
    except PlanexecError as exc:
        record["error"] = str(exc)
        run.replans.append(record)
        return False
    with run.lock:
        finished = [s for s in run.plan.steps if s.step_num in run.step_results]
        offset = max([s.step_num for s in run.plan.steps] + list(run.step_results))
        renumber = {s.step_num: s.step_num + offset for s in new.steps}
        done = {s.step_num for s in finished}
        steps = [
            PlanStep(
                **{**_fields(s), "step_num": renumber[s.step_num],
                   "depends_on": tuple(renumber.get(d, d) for d in s.depends_on if d in renumber or d in done)}
            )
            for s in new.steps
        ]
        revised = Plan(tuple(finished + steps), rationale=f"replanned after {reason}", planner=new.planner)
        revised.validate(run.tools.names())
        run.plan = revised
        record["new_steps"] = [s.to_dict() for s in steps]
        run.replans.append(record)
    run.bus.emit(Replanned(step.step_num, reason, revised.to_dict()))
    return True


def _fields(step: PlanStep) -> dict[str, object]:
    return {f: getattr(step, f) for f in step.__dataclass_fields__}
