"""Reuse before asking: with an LLM configured, a request the capability library fully covers is
planned offline (no model call); anything else goes to the LLM planner."""

from __future__ import annotations

from planexec.actions import split_clauses
from planexec.errors import NotCovered
from planexec.models import Plan
from planexec.planner_heuristic import HeuristicPlanner
from planexec.planner_llm import LLMPlanner
from planexec.protocols import PlanningContext


class ReuseFirstPlanner:
    """Every clause matched by a reusable capability -> the backward-chaining plan; else the LLM plans."""

    name = "reuse-first"

    def __init__(self, llm_planner: LLMPlanner, offline: HeuristicPlanner) -> None:
        self.llm_planner = llm_planner
        self.offline = offline

    def covered(self, ctx: PlanningContext) -> bool:
        """Whether the store would reuse a capability for every clause of the request."""
        store = ctx.store
        if store is None or not ctx.capabilities or ctx.failure:
            return False
        return all(store.find_reusable(clause) is not None for clause in split_clauses(ctx.request))

    def plan(self, ctx: PlanningContext) -> Plan:
        if self.covered(ctx):
            try:
                plan = self.offline.plan(ctx)
            except NotCovered:  # the store would reuse, but the coverage decision says no: the model plans
                return self.llm_planner.plan(ctx)
            return Plan(plan.steps, "every subtask reuses a stored capability", planner="reuse")
        return self.llm_planner.plan(ctx)
