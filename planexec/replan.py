"""Bounded replanning: after a step fails, ask the planner for the remaining work, at most N times.

The revised plan keeps every finished step and every step still running; the planner's new
steps are numbered after all existing ones. A revision is taken only when one of its new steps
passes the coverage decision for the failed step's goal; otherwise the step stays failed. A new step that repeats a step which already
succeeded (same tools, same arguments) is dropped and its dependants point at the old one.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from planexec.actions import actions_from
from planexec.checkpoint import save_checkpoint
from planexec.coverage import Judge
from planexec.errors import PlanexecError
from planexec.events import Replanned
from planexec.models import Plan, PlanStep, StepResult
from planexec.protocols import Planner
from planexec.records import ReplanRecord
from planexec.similarity import KeywordScorer, Scorer
from planexec.state import RunState


def failed_actions(result: StepResult) -> set[str]:
    """Names of what failed in a step (tools and capability ids), for the planner to avoid."""
    avoid = {a.tool for a in result.attempts if not a.ok}
    cap = result.step.args.get("capability_id")
    if cap:
        avoid.add(str(cap))
    return avoid


def replans_left(run: RunState) -> int:
    return max(0, run.config.max_replans - len(run.replans))


def reads_user_input(run: RunState, failed: StepResult) -> bool:
    """Whether the failed step was reading the user's own data (a data tool given one of their files).

    Replanning such a step would swap the user's data for whatever else can produce the same
    variables (a synthetic generator, say), and answer about data they never gave.
    """
    inputs = {str(p) for p in run.files} | ({str(run.images)} if run.images else set())
    for a in failed.attempts:
        tool = run.tools.get(a.tool) if a.tool in run.tools else None
        named = {str(v) for v in a.input.values() if isinstance(v, str)}
        if tool is not None and tool.type == "data" and (named & inputs or (inputs and not named)):
            return True
    return False


def maybe_replan(run: RunState, failed: StepResult, planner: Planner) -> bool:
    """Replace the unfinished part of the plan with a revised one; False when the budget is spent."""
    if run.plan is None or replans_left(run) == 0:
        return False
    step = failed.step
    reasons = "; ".join(failed.evaluation.concerns) if failed.evaluation else failed.summary
    reason = f"step {step.step_num} ({step.goal}) failed: {reasons or failed.summary}"
    if reads_user_input(run, failed):
        with run.lock:
            run.replans.append(ReplanRecord(step.step_num, reason, skipped="the input data could not be used; "
                                                                         "fix it rather than analyse other data"))
        return False
    ctx = dataclasses.replace(run.planning_context(failure=reason), avoid=frozenset(failed_actions(failed)))
    record = ReplanRecord(step.step_num, reason, avoid=tuple(sorted(ctx.avoid)))
    try:
        new = planner.plan(ctx)
        with run.lock:
            revised, added = merge_plan(run, new, reason)
            revised.validate(run.tools.names())
    except PlanexecError as exc:
        with run.lock:
            run.replans.append(dataclasses.replace(record, error=str(exc)))
        return False
    subs, why = substitutes(run, step, added, planner)
    if not subs:  # a step that does something else is not a replacement: the step stays failed
        with run.lock:
            run.replans.append(dataclasses.replace(record, rejected=why))
        return False
    with run.lock:
        run.plan = revised
        run.replans.append(dataclasses.replace(record, new_steps=tuple(added), substitutes=tuple(subs)))
    run.bus.emit(Replanned(step.step_num, reason, revised))
    save_checkpoint(run)  # a run killed now resumes with the revised plan
    return True


def substitutes(run: RunState, failed: PlanStep, added: list[PlanStep], planner: Planner) -> tuple[list[int], str]:
    """New steps that pass the coverage decision for the failed step's goal, and the reason when none does.

    The goal is the clause the failed step served (else its goal); a new step is judged by what its
    tool or capability does (its description and phrasings), never by the goal text the planner wrote.
    """
    goal = failed.serves or failed.goal
    judge = Judge.for_scorer(_scorer(planner))
    actions = {a.name: a for a in actions_from(run.tools, run.capabilities)}
    passed: list[int] = []
    notes: list[str] = []
    for s in added:
        names = [str(s.args["capability_id"])] if s.args.get("capability_id") else list(s.tools)
        cands = [actions[n] for n in names if n in actions]
        if not cands:
            continue
        best = judge.candidates(goal, cands, rivals=list(actions.values()))[0]
        if best.accepted:
            passed.append(s.step_num)
        else:
            notes.append(f"{best.name} ({best.reason})")
    why = f'no new step passes the coverage decision for "{goal}"' + (f": {'; '.join(notes)}" if notes else "")
    return passed, why


def _scorer(planner: Planner) -> Scorer:
    """The planner's scorer (the offline planner's inside a reuse-first planner), else keywords."""
    for p in (planner, getattr(planner, "offline", None)):
        scorer = getattr(p, "scorer", None)
        if scorer is not None:
            return scorer
    return KeywordScorer()


def merge_plan(run: RunState, new: Plan, reason: str) -> tuple[Plan, list[PlanStep]]:
    """The kept steps of the current plan followed by the planner's new steps, renumbered."""
    assert run.plan is not None
    keep = set(run.step_results) | set(run.running)
    kept = [s for s in run.plan.steps if s.step_num in keep]
    offset = max([s.step_num for s in run.plan.steps] + list(run.step_results) + [0])
    succeeded = {(r.step.tools, _key(r.step.args)): n for n, r in run.step_results.items() if r.ok}
    renumber: dict[int, int] = {}
    fresh: list[PlanStep] = []
    for s in new.steps:
        same = succeeded.get((s.tools, _key(s.args)))
        if same is not None:
            renumber[s.step_num] = same
        else:
            renumber[s.step_num] = offset + 1 + len(fresh)
            fresh.append(s)
    added = [
        PlanStep(**{
            **_fields(s),
            "step_num": renumber[s.step_num],
            # a number the new plan defines means its own step; otherwise a kept step of the old plan
            "depends_on": tuple(dict.fromkeys(
                renumber.get(d, d) for d in s.depends_on if d in renumber or d in keep
            )),
        })
        for s in fresh
    ]
    if not added:
        raise PlanexecError("the revised plan only repeats steps that already succeeded")
    rationale = f"replanned after {reason}" + (f": {new.rationale}" if new.rationale else "")
    return Plan(tuple(kept + added), rationale=rationale, planner=new.planner), added


def _key(args: dict[str, Any]) -> str:
    return repr(sorted((str(k), repr(v)) for k, v in args.items()))


def _fields(step: PlanStep) -> dict[str, Any]:
    return {f: getattr(step, f) for f in step.__dataclass_fields__}
