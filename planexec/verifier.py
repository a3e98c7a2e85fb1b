"""Step verification: cheap heuristics decide the obvious cases; the LLM only when they cannot."""

from __future__ import annotations

import math
import re
from typing import Any

from planexec.actions import CAPABILITY_TOOL
from planexec.asked import asked_phrases, asks_for_member, names_a_member, unexplained
from planexec.errors import LLMError
from planexec.llm.base import LLM, Message, complete_json
from planexec.models import PlanStep, Verdict
from planexec.serialize import summarize
from planexec.tools.base import ToolContext, ToolOutput

_IDENT = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")
_QUANT = re.compile(r"\b(number|value|count|mean|average|median|total|sum|score|amount|figure)\b", re.I)
_VERDICT_SCHEMA = {
    "type": "object",
    "required": ["ok", "reason"],
    "properties": {"ok": {"type": "boolean"}, "reason": {"type": "string"}},
}


def _empty(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, (str, bytes, list, tuple, dict, set)):
        return len(value) == 0
    size = getattr(value, "size", None)
    return size == 0 if isinstance(size, int) else False


def _bad_number(value: Any) -> bool:
    if isinstance(value, float):
        return not math.isfinite(value)
    if type(value).__module__ == "numpy" and getattr(value, "dtype", None) is not None:
        import numpy as np

        return value.dtype.kind == "f" and value.size > 0 and not np.isfinite(value).any()
    return False


def produced(output: ToolOutput, ctx: ToolContext) -> dict[str, Any]:
    """Every named value an output makes visible: its dict value, results and state."""
    found: dict[str, Any] = {}
    for variables in (ctx.state.variables, output.state.get("variables")):
        if isinstance(variables, dict):
            found.update(variables)
    found.update(output.state)
    found.update(output.results)
    if isinstance(output.value, dict):
        found.update(output.value)
    return found


_ASKS_NUMBER = re.compile(r"\bhow (?:many|much|large|big|fast|often|long)\b|\bnumber of\b|\bwhat is the\b", re.I)
_FIGURE_FILES = (".png", ".svg", ".pdf", ".jpg")


_ASKS_COUNT = re.compile(r"\bhow many\b|\bnumber of\b", re.I)


def _scalar(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, (int, float)):
        return math.isfinite(value)
    return _numeric(value) and getattr(value, "size", 0) == 1


def _numeric(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, (int, float)):
        return math.isfinite(value)
    dtype = getattr(value, "dtype", None)
    return dtype is not None and dtype.kind in "iuf" and getattr(value, "size", 0) > 0


_BOOKKEEPING = frozenset({"capability_id", "version", "stdout", "parameters"})


def answers(step: PlanStep, output: ToolOutput, names: dict[str, Any]) -> dict[str, Any]:
    """The values that can answer the step's clause: its declared outputs, else what this output itself made.

    Neither the run's earlier variables (a diameter, a frame count) nor bookkeeping (a capability's
    version) answer "how many ROIs are active?". A built-in tool's own key figures (load_curves' n_curves)
    answer too; a capability's results may carry variables it was given, so only its outputs do.
    """
    if step.outputs:
        declared = {k: names[k] for k in step.outputs if k in names}
        if CAPABILITY_TOOL in step.primary_tools:
            return declared
        return {**{k: v for k, v in output.results.items() if k not in _BOOKKEEPING}, **declared}
    own: dict[str, Any] = {}
    if isinstance(output.state.get("variables"), dict):
        own.update(output.state["variables"])
    own.update(output.state)
    own.update(output.results)
    if isinstance(output.value, dict):
        own.update(output.value)
    return {k: v for k, v in own.items() if k not in _BOOKKEEPING}


def goal_verdict(step: PlanStep, output: ToolOutput, names: dict[str, Any],
                 ctx: ToolContext | None = None) -> Verdict | None:
    """The kind of result the served clause asks for (a number, a figure, a file, a named quantity)
    must be in the output."""
    if not step.serves:
        return None
    names = answers(step, output, names)
    from planexec.clause_kinds import the_ask
    from planexec.coverage_terms import without_purpose
    from planexec.knowledge.reuse import extract_terms

    asked = extract_terms(without_purpose(the_ask(step.serves))).groups  # "for a methods figure" asks no figure
    actions = asked.get("action", frozenset())
    files = [a for a in output.artifacts if isinstance(a, str)]
    if "plot" in actions and not any(f.lower().endswith(_FIGURE_FILES) for f in files):
        return Verdict(False, f'"{step.serves}" asks for a figure and the step wrote none', "heuristic")
    if "save" in actions and not files:
        return Verdict(False, f'"{step.serves}" asks for a file and the step wrote none', "heuristic")
    wants_number = "plot" not in actions and (_ASKS_NUMBER.search(step.serves) or "count" in asked.get("statistic", ()))
    if wants_number and _ASKS_COUNT.search(step.serves) and not any(_scalar(v) for v in names.values()):
        # "how many" is answered by one number; a per-ROI array (labels, iscell) is not a count.
        return Verdict(False, f'"{step.serves}" asks for a number (how many) and the output holds no single number', "heuristic")
    if wants_number and not any(_numeric(v) for v in names.values()) and not any(
            isinstance(v, list) and v and all(_numeric(x) for x in v) for v in names.values()):
        return Verdict(False, f'"{step.serves}" asks for a number and the output holds none', "heuristic")
    item = asks_for_member(step.serves)
    if item and not names_a_member(item, names, [output.summary, *(v for v in names.values() if isinstance(v, str))]):
        return Verdict(False, f'"{step.serves}" asks which {item}; the step\'s results ({", ".join(sorted(names)[:8]) or "none"}) '
                       f"name no {item} and no index", "heuristic")
    # what the step made and what its action says it computes; not the goal a planner wrote, which a model
    # fills with the request's own words ("compute-the-spectral-entropy" over a literature search), nor what a
    # summary quotes ("3 passages for 'spectral entropy'")
    said = [_QUOTED.sub(" ", output.summary), *_names_within(names), _self_description(step, ctx)]
    for phrase in asked_phrases(step.serves):
        missing = unexplained(phrase, said)
        if missing:
            shown = ", ".join(sorted(names)[:8]) or "none"
            return Verdict(False, f'"{step.serves}" asks for the {phrase}; this step computes no '
                           f'{" ".join(missing)} (its results: {shown})', "heuristic")
    return None


_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")


def _names_within(names: dict[str, Any]) -> list[str]:
    """Result names, and the field names of tables (lists of records) among them."""
    out = list(names)
    for value in names.values():
        if isinstance(value, list) and value and isinstance(value[0], dict):
            out.extend(str(k) for k in value[0])
    return out


def _self_description(step: PlanStep, ctx: ToolContext | None) -> str:
    """A stored capability's own description, tags and examples: what it says it computes."""
    cap_id = step.args.get("capability_id") if isinstance(step.args, dict) else None
    if not cap_id or ctx is None:
        return ""
    try:
        cap = ctx.services.store.get().load(str(cap_id))
    except Exception:  # noqa: BLE001 - no store in this run, or the id is gone: judge on the results alone
        return ""
    return " ".join([cap.description, *(getattr(cap, "tags", ()) or ()), *(getattr(cap, "examples", ()) or ())])


def heuristic_verdict(step: PlanStep, output: ToolOutput, ctx: ToolContext) -> Verdict:
    """Decide from the output alone; `undecided=True` when only judgement can tell.

    Beyond "outputs exist", the result must be of the kind the served clause asks for.
    """
    if not output.ok:
        return Verdict(False, output.error or "the tool reported failure", "tool")
    if _empty(output.value) and not output.results:
        return Verdict(False, "the tool returned an empty result", "heuristic")
    names = produced(output, ctx)
    wrong_kind = goal_verdict(step, output, names, ctx)
    if wrong_kind is not None:
        return wrong_kind
    missing = [v for v in step.outputs if v not in names or names[v] is None]
    if missing:
        return Verdict(False, f"declared outputs not produced: {', '.join(missing)}", "heuristic")
    insane = [v for v in step.outputs if _bad_number(names[v])]
    if insane:
        return Verdict(False, f"outputs with no finite value: {', '.join(insane)}", "heuristic")
    named = [n for n in _IDENT.findall(step.success_criteria) if n not in step.outputs]
    absent = [n for n in named if n not in names]
    if named and absent and len(absent) == len(named):
        return Verdict(False, f"success criteria name {', '.join(absent)}, which the output lacks", "heuristic")
    if step.outputs or named:
        return Verdict(True, "produced " + ", ".join(list(step.outputs) + named), "heuristic")
    if not step.success_criteria.strip():
        return Verdict(True, "the tool succeeded with a non-empty result", "heuristic")
    text = output.summary or summarize(output.value)
    if _QUANT.search(step.success_criteria) and re.search(r"\d", text):
        return Verdict(True, "the criteria ask for a value and the output reports numbers", "heuristic")
    return Verdict(True, "no contrary evidence", "heuristic", undecided=True)


class StepVerifier:
    """Heuristics first; when they are undecided and an LLM is configured, the LLM judges."""

    def __init__(self, llm: LLM | None = None, use_llm: bool = True) -> None:
        self.llm = llm
        self.use_llm = use_llm

    def verify(self, step: PlanStep, output: ToolOutput, ctx: ToolContext) -> Verdict:
        verdict = heuristic_verdict(step, output, ctx)
        if not verdict.undecided or self.llm is None or not self.use_llm:
            return verdict
        prompt = (
            f"Step goal: {step.goal}\nSuccess criteria: {step.success_criteria}\n"
            f"Tool output: {output.summary or summarize(output.value, 1500)}\n"
            'Did the output achieve the goal? Reply with JSON {"ok": true|false, "reason": "..."}.'
        )
        try:
            data = complete_json(self.llm, [Message("user", prompt)], _VERDICT_SCHEMA, what="verdict")
        except LLMError:  # a model can only add: when it fails, the offline verdict stands
            return verdict
        return Verdict(bool(data["ok"]), str(data["reason"]), "llm")
