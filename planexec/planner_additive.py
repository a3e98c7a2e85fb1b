"""A model can only add: what the library covers is planned offline, the model plans only the rest.

With an LLM configured, the coverage decision (`planexec.coverage.assess`) splits the request:
covered clauses get exactly the offline plan, whatever the model would say; the uncovered
in-scope clauses go to the model. A model plan that cannot run leaves those clauses in
`Plan.unplanned` with the reason, and the covered part still runs. A request with a clause
out of scope is handled exactly as offline (refused there), never sent to the model.
"""

from __future__ import annotations

import dataclasses
import re

from planexec.actions import actions_from, makes_up_data, reachable
from planexec.coverage import INPUT, Coverage, assess
from planexec.errors import LLMError, NotCovered, PlanValidationError
from planexec.models import Plan, PlanStep
from planexec.planner_heuristic import HeuristicPlanner, _roots
from planexec.planner_llm import LLMPlanner
from planexec.protocols import PlanningContext
from planexec.request_paths import existing_paths_in, without_paths


class AdditivePlanner:
    """Covered clauses -> the offline plan; uncovered clauses -> the model; a model failure costs only its part."""

    name = "additive"

    def __init__(self, llm_planner: LLMPlanner, offline: HeuristicPlanner) -> None:
        self.llm_planner = llm_planner
        self.offline = offline

    def coverage(self, ctx: PlanningContext) -> Coverage:
        actions = reachable(actions_from(ctx.tools, ctx.capabilities), _roots(ctx))
        has_input = bool(ctx.files or ctx.images is not None or existing_paths_in(ctx.request))
        return assess(without_paths(ctx.request), actions, self.offline.scorer, has_input=has_input)

    def plan(self, ctx: PlanningContext) -> Plan:
        offline_actions = reachable(actions_from(ctx.tools, ctx.capabilities), _roots(ctx))
        if ctx.failure or not offline_actions:  # a replan, or only code tools: nothing offline to keep
            plan = self.llm_planner.plan(ctx)
            _no_substitute(plan, ctx)  # a replan must not swap the named data for generated data either
            return plan
        try:  # what the offline planner plans is served exactly as offline
            return self.offline.plan(ctx)
        except NotCovered as exc:
            cov = exc.coverage
        except PlanValidationError:  # the tools cannot be chained from the inputs offline: the model may
            plan = _serving(self.llm_planner.plan(ctx), [ctx.request])
            try:
                _no_substitute(plan, ctx)
            except SubstitutePlan as exc:
                raise NotCovered(_refused(self.coverage(ctx), exc)) from exc
            return plan
        if cov.out_of_scope or not cov.uncovered:  # refused offline, refused here: never sent to the model
            raise NotCovered(cov)
        computed = [c.clause for c in cov.covered if c.served_by != INPUT]
        wanted = [c.clause for c in cov.uncovered]
        try:
            base = self.offline.plan(dataclasses.replace(ctx, request="; ".join(computed))) if computed else Plan(())
        except (PlanValidationError, NotCovered):  # the covered part cannot be planned alone: the model plans it all
            base, wanted = Plan(()), [c.clause for c in cov.clauses]
        made = {v for s in base.steps for v in s.outputs}
        variables = ctx.variables + tuple(sorted(made))
        try:
            added = self.llm_planner.plan(dataclasses.replace(ctx, request="; ".join(wanted), variables=variables))
            _no_substitute(added, ctx)
        except (LLMError, PlanValidationError) as exc:
            why = str(exc).splitlines()[0]
            if not base.steps:
                if isinstance(exc, SubstitutePlan):  # the model added nothing: the run ends as offline
                    raise NotCovered(_refused(cov, exc)) from exc
                raise
            return Plan(base.steps, "covered clauses planned offline; the model could not plan the rest",
                        planner=self.name, unplanned=tuple(f'"{c}": {why}' for c in wanted))
        added = _serving(added, wanted)
        if not base.steps:  # nothing computed is covered: the model's plan is the plan
            return added
        return Plan(base.steps + _shifted(added.steps, base.steps), "covered clauses planned offline; the model "
                    f"planned {', '.join(repr(c) for c in wanted)} ({added.rationale})", planner=self.name)


def _serving(added: Plan, wanted: list[str]) -> Plan:
    """The model's plan with its last step serving the clauses it was asked for, unless a step names them:
    a run is `succeeded` only when each clause was served by a verified step, so a model plan whose steps
    serve nothing in particular (a literature search, code with no result) cannot end `succeeded`."""
    if not added.steps or any(st.serves for st in added.steps):
        return added
    last = dataclasses.replace(added.steps[-1], serves="; ".join(wanted))
    return dataclasses.replace(added, steps=(*added.steps[:-1], last))


def _refused(cov: Coverage, exc: Exception) -> Coverage:
    """The coverage, saying the model was asked and why its plan was refused."""
    return dataclasses.replace(cov, model_refused=str(exc).splitlines()[0].rstrip("."))


class SubstitutePlan(PlanValidationError):
    """A model plan that answers with generated data where the request names its data: a substitute."""


_NAMED_FILE = re.compile(r"[\w./~-]+\.(?:csv|tsv|txt|json|npy|npz|h5|hdf5|tif|tiff|png|xlsx?)\b", re.IGNORECASE)


def _no_substitute(added: Plan, ctx: PlanningContext) -> None:
    """Refuse a model plan that answers a request naming its data with generated data instead.

    A generator (a data action that needs no input) in place of the user's file is a substitute,
    never an answer: asked for "revenue per region in data/examples/sales.csv", a model planned
    generate_ensemble_curves, and 30 sine curves "succeeded". The replanner holds the same rule.
    """
    if not (ctx.files or ctx.images is not None or _NAMED_FILE.search(ctx.request)):
        return
    made_up = sorted({n for st in added.steps for n in (*st.primary_tools, *st.fallback_tools)
                      if makes_up_data(ctx.tools, n)})
    if made_up:
        raise SubstitutePlan(f"the model planned generated data ({', '.join(made_up)}) instead of the data the "
                             "request names")


def _shifted(steps: tuple[PlanStep, ...], before: tuple[PlanStep, ...]) -> tuple[PlanStep, ...]:
    """The model's steps numbered after `before`, depending on the earlier steps that make their inputs."""
    offset = max((s.step_num for s in before), default=0)
    producer = {v: s.step_num for s in before for v in s.outputs}
    return tuple(
        dataclasses.replace(
            s, step_num=s.step_num + offset,
            depends_on=tuple(sorted({d + offset for d in s.depends_on} | {producer[v] for v in s.inputs if v in producer})),
        )
        for s in steps
    )
