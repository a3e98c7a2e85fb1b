"""The LLM planner: offers the tools and capabilities retrieved for the request, asks for a JSON plan.

The plan schema enumerates the offered tool and capability ids, so a server that enforces
schemas (llama.cpp grammars, vLLM, Ollama, OpenAI strict mode) cannot name anything else.
Where only the prompt carries the schema, a name is accepted by exact normalisation (case,
spaces, hyphens, quotes) and never by similarity to another name.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from planexec.actions import CAPABILITY_TOOL, Action, actions_from, split_clauses
from planexec.errors import LLMError, PlanValidationError
from planexec.llm.base import LLM, Message, complete_json
from planexec.models import Plan
from planexec.protocols import PlanningContext
from planexec.similarity import Scorer

PER_CLAUSE = 4
"""Capabilities offered per clause of the request (plus the producers of their inputs)."""

_SYSTEM = """You plan work for a tool-using agent. Break the request into the fewest steps that each
achieve one clear goal with one of the offered tools or capabilities. For each step give: step_num
(from 1), goal, primary_tools (ids from the list, tried in order), fallback_tools, success_criteria
(the values or variables the step must produce), depends_on (step numbers whose results it needs),
and optionally inputs/outputs (variable names) and args (fixed tool arguments).
Use only the ids listed. Reply with JSON only: {"rationale": "...", "steps": [...]}."""


def normalise(name: str) -> str:
    """The form two names must share to be the same: lower case, quotes dropped, spaces and hyphens as _."""
    return re.sub(r"[\s\-]+", "_", name.strip().strip("`'\"").strip()).lower()


@dataclass(frozen=True)
class Offer:
    """What the plan prompt offers the model: tool names and capabilities, by id."""

    tools: tuple[str, ...]
    capabilities: tuple[Any, ...]

    @property
    def ids(self) -> tuple[str, ...]:
        return self.tools + tuple(c.id for c in self.capabilities)

    def resolve(self, name: str) -> str | None:
        """The offered id `name` denotes by exact normalisation, else None (no fuzzy matching)."""
        wanted = normalise(name)
        return next((i for i in self.ids if normalise(i) == wanted), None)


def plan_schema(offer: Offer) -> dict[str, Any]:
    """The plan's JSON schema with the offered ids as enums."""
    ids = list(offer.ids)
    step = {
        "type": "object",
        "required": ["step_num", "goal", "primary_tools"],
        "properties": {
            "step_num": {"type": "integer"},
            "goal": {"type": "string", "minLength": 1},
            "primary_tools": {"type": "array", "items": {"type": "string", "enum": ids}, "minItems": 1},
            "fallback_tools": {"type": "array", "items": {"type": "string", "enum": ids}},
            "success_criteria": {"type": "string"},
            "context": {"type": "string"},
            "depends_on": {"type": "array", "items": {"type": "integer"}},
            "inputs": {"type": "array", "items": {"type": "string"}},
            "outputs": {"type": "array", "items": {"type": "string"}},
            "args": {"type": "object"},
        },
    }
    return {"title": "plan", "type": "object", "required": ["steps"],
            "properties": {"rationale": {"type": "string"}, "steps": {"type": "array", "minItems": 1, "items": step}}}


def _loose(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema without the enums: names are checked by `Offer.resolve`, so a near miss gets a precise re-ask."""
    text = json.dumps(schema)
    return json.loads(re.sub(r', "enum": \[[^\]]*\]', "", text))


def offer_for(ctx: PlanningContext, scorer: Scorer | None, per_clause: int = PER_CLAUSE) -> Offer:
    """Every tool (they are few and general), and the capabilities retrieved for each clause plus producers of their inputs.

    The library of capabilities grows without bound; the prompt must not. Without a scorer
    every capability is offered.
    """
    actions = actions_from(ctx.tools, ctx.capabilities)
    caps = [a for a in actions if a.type == "capability"]
    if scorer is None or len(caps) <= per_clause:
        chosen = caps
    else:
        texts = [(a, t) for a in caps for t in a.texts]
        picked: dict[str, Action] = {}
        for clause in split_clauses(ctx.request):
            scores = scorer.scores(clause, [t for _, t in texts])
            best: dict[str, float] = {}
            for (a, _), s in zip(texts, scores, strict=True):
                best[a.name] = max(best.get(a.name, -1.0), s)
            for a in sorted(caps, key=lambda a: -best.get(a.name, -1.0))[:per_clause]:
                picked.setdefault(a.name, a)
        chosen = _with_producers(list(picked.values()), actions, ctx.available())
    by_id = {c.id: c for c in ctx.capabilities}
    offered_caps = tuple(by_id[a.name] for a in chosen if a.type == "capability" and a.name in by_id)
    tools = [t.name for t in ctx.tools if t.name != CAPABILITY_TOOL or offered_caps]
    return Offer(tuple(tools), offered_caps)


def _with_producers(chosen: list[Action], actions: list[Action], have: set[str]) -> list[Action]:
    """Add, transitively, one producer of every input the chosen actions need and nothing gives."""
    out = list(chosen)
    made = set(have).union(*(a.outputs for a in out)) if out else set(have)
    pending = [v for a in out for v in a.inputs if v not in made]
    while pending:
        var = pending.pop()
        if var in made:
            continue
        producer = next((a for a in actions if var in a.outputs and a.default), None) or next(
            (a for a in actions if var in a.outputs), None)
        made.add(var)
        if producer is not None and producer not in out:
            out.append(producer)
            made.update(producer.outputs)
            pending += [v for v in producer.inputs if v not in made]
    return out


class LLMPlanner:
    """Asks the model for a plan over the offered ids; an unknown name or bad flow is re-asked once."""

    name = "llm"

    def __init__(self, llm: LLM, scorer: Scorer | None = None) -> None:
        self.llm = llm
        self.scorer = scorer

    def plan(self, ctx: PlanningContext) -> Plan:
        offer = offer_for(ctx, self.scorer)
        schema = plan_schema(offer)
        messages = [Message("system", _SYSTEM), Message("user", self.prompt(ctx, offer))]
        problems: list[str] = []
        for _ in range(2):
            data = complete_json(self.llm, messages, schema, what="plan", loose=_loose(schema))
            plan, problems = _resolve(data, offer)
            if plan is not None:
                problems = plan.problems(ctx.tools.names()) or plan.flow_problems(ctx.available(), ctx.variable_tools())
                if not problems:
                    return plan
            messages = messages + [
                Message("assistant", json.dumps(data)),
                Message("user", "That plan cannot run: " + "; ".join(problems)
                        + ". Use only these ids: " + ", ".join(offer.ids) + ". Reply with a corrected plan (JSON only)."),
            ]
        raise LLMError(
            "the model's plan was invalid after one re-ask (" + "; ".join(problems) + "); "
            "try a stronger model or --llm none"
        ) from PlanValidationError("; ".join(problems), problems)

    def prompt(self, ctx: PlanningContext, offer: Offer | None = None) -> str:
        """The user message of the plan request: the request, the offered ids, inputs and background."""
        offer = offer or offer_for(ctx, self.scorer)
        offered = set(offer.tools)
        lines = [t for t in ctx.tools.catalogue().splitlines() if t[2:].split(" ", 1)[0] in offered]
        parts = [f"Request: {ctx.request}", "", "Tools:", *lines]
        if ctx.files:
            parts += ["", "Files given: " + ", ".join(str(f) for f in ctx.files)]
        if ctx.images is not None:
            parts += ["", f"Image stack given: {ctx.images} (available as variable `images`)"]
        have = sorted(ctx.available() - {"images", "files"})
        if have:
            parts += ["", "Variables already available: " + ", ".join(have)]
        if offer.capabilities:
            parts += ["", "Stored capabilities (use the id as a tool):"]
            parts += [f"- {c.id}: {c.description} (inputs {list(c.inputs)} -> outputs {list(c.outputs)})"
                      for c in offer.capabilities]
        passages = ctx.passages()
        if passages:
            parts += ["", "Background from the knowledge base:"] + [f"> {c[:300]}" for c in passages[:2]]
        if ctx.completed:
            parts += ["", "Already done (do not repeat):"]
            parts += [f"- step {r.step.step_num} {r.status}: {r.step.goal} -> {r.summary[:200]}" for r in ctx.completed]
        if ctx.failure:
            parts += ["", f"The previous plan failed: {ctx.failure}. Plan only the remaining work."]
        return "\n".join(parts)


def _resolve(data: dict[str, Any], offer: Offer) -> tuple[Plan | None, list[str]]:
    """The plan with every name resolved to an offered id (a capability id becomes run_capability + its id)."""
    caps = {c.id for c in offer.capabilities}
    problems: list[str] = []
    steps = []
    for raw in data.get("steps") or []:
        step = dict(raw)
        for key in ("primary_tools", "fallback_tools"):
            names = []
            for name in step.get(key) or []:
                found = offer.resolve(str(name))
                if found is None:
                    problems.append(f"step {step.get('step_num', '?')} names {str(name)!r}, which is not an offered id")
                elif found in caps:
                    names.append(CAPABILITY_TOOL)
                    step["args"] = {**(step.get("args") or {}), "capability_id": found}
                else:
                    names.append(found)
            step[key] = list(dict.fromkeys(names))
        steps.append(step)
    if problems:
        return None, problems
    try:
        return Plan.from_dict({**data, "steps": steps, "planner": LLMPlanner.name}), []
    except PlanValidationError as exc:
        return None, exc.problems
