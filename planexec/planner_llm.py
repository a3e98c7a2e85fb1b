"""The LLM planner: shows the tool catalogue (and capabilities) and asks for a JSON plan."""

from __future__ import annotations

import json

from planexec.actions import CAPABILITY_TOOL
from planexec.errors import LLMError, PlanValidationError
from planexec.llm.base import LLM, Message, complete_json
from planexec.models import Plan
from planexec.protocols import PlanningContext

_STEP_SCHEMA = {
    "type": "object",
    "required": ["step_num", "goal", "primary_tools"],
    "properties": {
        "step_num": {"type": "integer"},
        "goal": {"type": "string", "minLength": 1},
        "primary_tools": {"type": "array", "items": {"type": "string"}, "minItems": 1},
        "fallback_tools": {"type": "array", "items": {"type": "string"}},
        "success_criteria": {"type": "string"},
        "context": {"type": "string"},
        "depends_on": {"type": "array", "items": {"type": "integer"}},
        "inputs": {"type": "array", "items": {"type": "string"}},
        "outputs": {"type": "array", "items": {"type": "string"}},
        "args": {"type": "object"},
    },
}
PLAN_SCHEMA = {
    "type": "object",
    "required": ["steps"],
    "properties": {
        "rationale": {"type": "string"},
        "steps": {"type": "array", "minItems": 1, "items": _STEP_SCHEMA},
    },
}

_SYSTEM = """You plan work for a tool-using agent. Break the request into the fewest steps that each
achieve one clear goal with one of the available tools. For each step give: step_num, goal,
primary_tools (tried in order), fallback_tools (tried if the primary ones fail), success_criteria
(checkable: name the values or variables the step must produce), context (hints for the tool),
depends_on (step numbers whose results this step needs; independent steps may run in parallel),
and optionally inputs/outputs (variable names) and args (fixed tool arguments).
Use only the tools listed. Reply with JSON only: {"rationale": "...", "steps": [...]}."""


class LLMPlanner:
    """Asks the model for a plan; a plan naming unknown tools or bad dependencies is re-asked once."""

    name = "llm"

    def __init__(self, llm: LLM) -> None:
        self.llm = llm

    def plan(self, ctx: PlanningContext) -> Plan:
        messages = [Message("system", _SYSTEM), Message("user", self._prompt(ctx))]
        problems: list[str] = []
        for _ in range(2):
            data = complete_json(self.llm, messages, PLAN_SCHEMA, what="plan")
            plan = Plan.from_dict({**data, "planner": self.name})
            problems = plan.problems(ctx.tools.names()) or plan.flow_problems(ctx.available(), ctx.variable_tools())
            if not problems:
                return plan
            messages = messages + [
                Message("assistant", json.dumps(data)),
                Message("user", "That plan cannot run: " + "; ".join(problems) + ". Reply with a corrected plan (JSON only)."),
            ]
        raise LLMError(
            "the model's plan was invalid after one re-ask (" + "; ".join(problems) + "); "
            "try a stronger model or --llm none"
        ) from PlanValidationError("; ".join(problems), problems)

    def _prompt(self, ctx: PlanningContext) -> str:
        parts = [f"Request: {ctx.request}", "", "Tools:", ctx.tools.catalogue()]
        if ctx.files:
            parts += ["", "Files given: " + ", ".join(str(f) for f in ctx.files)]
        if ctx.images is not None:
            parts += ["", f"Image stack given: {ctx.images} (available as variable `images`)"]
        if ctx.capabilities and CAPABILITY_TOOL in ctx.tools:
            parts += ["", f"Stored capabilities (run with {CAPABILITY_TOOL}, args {{\"capability_id\": ID}}):"]
            parts += [
                f"- {c.id}: {c.description} (inputs {list(c.inputs)} -> outputs {list(c.outputs)})"
                for c in ctx.capabilities
            ]
        passages = ctx.passages()
        if passages:
            parts += ["", "Background from the knowledge base:"] + [f"> {c[:400]}" for c in passages]
        if ctx.completed:
            parts += ["", "Already done (do not repeat):"]
            parts += [f"- step {r.step.step_num} {r.status}: {r.step.goal} -> {r.summary[:200]}" for r in ctx.completed]
        if ctx.failure:
            parts += ["", f"The previous plan failed: {ctx.failure}. Plan only the remaining work."]
        return "\n".join(parts)
