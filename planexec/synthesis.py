"""Answer synthesis from all step results: templated, or written by the LLM and kept only when grounded.

A failed or partial run's answer is always templated from what happened; a model-written
answer is used only when every number in it is found in the run's results.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from planexec.asked import quantity_words
from planexec.errors import PlanexecError
from planexec.llm.base import LLM, Message
from planexec.models import StepResult
from planexec.serialize import summarize
from planexec.similarity import tokens

_TEXT_KEYS = ("answer", "report", "text")


def _fmt(value: Any) -> str:
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.2f}" if abs(value) >= 100 else f"{value:.4g}"
    return summarize(value, 120)


def _phrase(key: str, value: Any) -> str:
    """'n_cells', 6 -> '6 cells'; 'mean_revenue', 3674.5 -> 'mean revenue = 3,674.50'."""
    if key.startswith("n_") and isinstance(value, int) and not isinstance(value, bool):
        return f"{_fmt(value)} {key[2:].replace('_', ' ')}"
    return f"{key.replace('_', ' ')} = {_fmt(value)}"


def _unit(key: str, results: dict[str, Any]) -> str:
    """' events/frame (...)' for 'mean_event_rate' when the results hold 'event_rate_unit'."""
    for name, text in results.items():
        if name.endswith("_unit") and name != key and isinstance(text, str) and key.endswith(name[: -len("_unit")]):
            return f" {text}"
    return ""


def key_figures(request: str, results: dict[str, Any], limit: int = 6) -> list[tuple[str, Any]]:
    """Scalar results ranked by how many of their name's words the request mentions."""
    wanted = set(tokens(request))
    asked = quantity_words(request)  # "the maximum revenue" ranks max_revenue above mean_revenue
    scored = []
    for i, (key, value) in enumerate(results.items()):
        if not isinstance(value, (int, float, str)) or key in _TEXT_KEYS:
            continue
        if isinstance(value, str) and (len(value) > 80 or "/" in value):  # long text and paths are listed apart
            continue
        overlap = len(wanted & set(tokens(key.replace("_", " ")))) + len(asked & quantity_words(key))
        scored.append((-overlap, i, key, value))
    scored.sort()
    return [(k, v) for _, _, k, v in scored[:limit]]


def _how(step: StepResult) -> str:
    """Which tool ran a step, naming the stored capability when one was reused."""
    cap = step.step.args.get("capability_id")
    return f"reused capability {cap}" if cap and step.tool == "run_capability" else str(step.tool)


def _what(step: StepResult) -> str:
    """A step's summary without the capability name that `_how` already gives."""
    cap = step.step.args.get("capability_id")
    text = (step.summary or "done").strip().splitlines()[0]
    return text[len(cap) + 2:] if cap and text.startswith(f"{cap}: ") else text


def _scalar_outputs(step: StepResult, results: dict[str, Any]) -> bool:
    """Whether a step's declared outputs include a single value the key figures already state."""
    return any(isinstance(results.get(o), (int, float, str)) for o in step.step.outputs)


def input_notes(meta: Any) -> str:
    """What the answer must say about how the input was read: the time axis, when the file did not say it."""
    note = getattr(meta, "axes_note", "") or ""
    return f"\n\nInput: {note}." if note else ""


def _why_failed(step: StepResult) -> str:
    """Each attempt's reason, first tool first: a fallback's own failure must not hide why the tool failed."""
    reasons = [a.error or (a.verdict.reason if a.verdict else "") for a in step.attempts]
    return "; then ".join(dict.fromkeys(r for r in reasons if r)) or "no tool ran"


class TemplateSynthesizer:
    """A deterministic answer: the figures the request asks about, what each step found, what failed."""

    def synthesize(self, request: str, steps: Sequence[StepResult], results: dict[str, Any]) -> str:
        ok = [s for s in steps if s.ok]
        failed = [s for s in steps if s.status == "failed"]
        skipped = [s for s in steps if s.status == "skipped"]
        lines: list[str] = []
        figures = key_figures(request, results)
        if figures:
            lines.append("; ".join(_phrase(k, v) + _unit(k, results) for k, v in figures) + ".")
        lines += [f'"{s.step.serves}": {_what(s)}' for s in ok if s.step.serves and not _scalar_outputs(s, results)]
        for key in _TEXT_KEYS:
            text = results.get(key)
            if isinstance(text, str) and text.strip():
                lines += ["", text.strip()]
        if ok:
            lines += ["", "What was done:"]
            lines += [f"- Step {s.step.step_num}, {s.step.goal} ({_how(s)}): {_what(s)}" for s in ok]
        if failed or skipped:
            lines += ["", f"Partial result: {len(failed)} step(s) failed, {len(skipped)} skipped:"]
            for s in failed:
                lines.append(f"- Step {s.step.step_num} failed: {s.step.goal} ({_why_failed(s)})")
            lines += [f"- Step {s.step.step_num} skipped: {s.summary}" for s in skipped]
        if not lines:
            return "No step produced a result."
        return "\n".join(lines).strip()


class UngroundedAnswer(PlanexecError):
    """The model's answer states something the run's results do not hold; the templated answer is used."""


_NUMBER = re.compile(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?%?")


def numbers_in(text: str) -> list[tuple[float, float, bool]]:
    """Each number written in `text`: its value, the rounding its digits allow, and whether it is a percentage."""
    out = []
    for raw in _NUMBER.findall(text):
        pct = raw.endswith("%")
        body = raw.rstrip("%").replace(",", "")
        try:
            value = float(body)
        except ValueError:
            continue
        mantissa = re.split(r"[eE]", body)[0]
        decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
        out.append((value, 0.5 * 10 ** -decimals * (10 ** int(re.split(r"[eE]", body)[1]) if "e" in body.lower() else 1), pct))
    return out


def _facts(request: str, steps: Sequence[StepResult], results: dict[str, Any], limit: int = 5000) -> list[float]:
    """Every number the run can vouch for: its results (nested), step summaries and goals, and the request."""
    pool: list[float] = [float(n) for n in range(len(steps) + 1)]
    stack: list[Any] = [results]
    while stack and len(pool) < limit:
        v = stack.pop()
        if isinstance(v, bool):
            continue
        if isinstance(v, (int, float)):
            pool.append(float(v))
        elif isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, (list, tuple)):
            stack.extend(v[:500])
        elif isinstance(v, str):
            pool += [x for x, _, _ in numbers_in(v[:2000])]
        elif hasattr(v, "tolist") and getattr(v, "size", 10**9) <= 500:
            stack.append(v.tolist())
    for text in [request, *(s.summary for s in steps), *(s.step.goal for s in steps)]:
        pool += [x for x, _, _ in numbers_in(text or "")]
    return pool


def ungrounded(text: str, request: str, steps: Sequence[StepResult], results: dict[str, Any]) -> str:
    """Why `text` may not be a run's answer ('' when every number in it is found in the results)."""
    if not text.strip():
        return "the model's answer was empty"
    if "```" in text or text.lstrip()[:1] in "{[":
        return "the model's answer is code or JSON, not an answer"
    pool = _facts(request, steps, results)
    for value, tol, pct in numbers_in(text):
        candidates = [value / 100, value] if pct else [value]
        if not any(abs(c - p) <= max(tol / (100 if pct and c != value else 1), 1e-9) + 5e-3 * abs(p)
                   for c in candidates for p in pool):
            return f"the model's answer states {value:g}{'%' if pct else ''}, which no result of the run holds"
    return ""


def not_done(plan: Any, errors: Sequence[str]) -> str:
    """The lines a run that did not succeed adds to its answer: parts no step served, and what went wrong."""
    lines = [f"- not done: {u}" for u in (getattr(plan, "unplanned", ()) or ())]
    lines += [f"- {e.splitlines()[0]}" for e in errors if e.strip()]
    return ("\n\nNot done:\n" + "\n".join(lines)) if lines else ""


class LLMSynthesizer:
    """The model writes the answer from the step summaries and key figures; it is kept only if grounded.

    Every number in the model's text must be found in the run's results (or its steps' summaries,
    or the request); otherwise `UngroundedAnswer` says which, and the orchestrator gives the templated answer.
    """

    def __init__(self, llm: LLM) -> None:
        self.llm = llm

    def synthesize(self, request: str, steps: Sequence[StepResult], results: dict[str, Any]) -> str:
        if not steps or not all(s.ok for s in steps):  # a failed or partial run: what happened, templated
            return TemplateSynthesizer().synthesize(request, steps, results)
        lines = [f"Request: {request}", "", "Step results:"]
        for s in steps:
            lines.append(f"- step {s.step.step_num} [{s.status}] {s.step.goal}: {s.summary}")
        scalars = {k: v for k, v in results.items() if isinstance(v, (int, float, str, bool))}
        lines += ["", "Key figures: " + json.dumps(scalars, default=str)[:4000], ""]
        lines.append(
            "Answer the request from these results only, concisely, with the numbers as given. "
            "State nothing the results do not hold."
        )
        text = self.llm.complete([Message("user", "\n".join(lines))]).text.strip()
        why = ungrounded(text, request, steps, results)
        if why:
            raise UngroundedAnswer(why)
        return text
