"""Answer synthesis from all step results: templated offline, written by the LLM when one is set."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

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


def key_figures(request: str, results: dict[str, Any], limit: int = 6) -> list[tuple[str, Any]]:
    """Scalar results ranked by how many of their name's words the request mentions."""
    wanted = set(tokens(request))
    scored = []
    for i, (key, value) in enumerate(results.items()):
        if not isinstance(value, (int, float, str)) or key in _TEXT_KEYS:
            continue
        if isinstance(value, str) and (len(value) > 80 or "/" in value):  # long text and paths are listed apart
            continue
        overlap = len(wanted & set(tokens(key.replace("_", " "))))
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


class TemplateSynthesizer:
    """A deterministic answer: the figures the request asks about, what each step found, what failed."""

    def synthesize(self, request: str, steps: Sequence[StepResult], results: dict[str, Any]) -> str:
        ok = [s for s in steps if s.ok]
        failed = [s for s in steps if s.status == "failed"]
        skipped = [s for s in steps if s.status == "skipped"]
        lines: list[str] = []
        figures = key_figures(request, results)
        if figures:
            lines.append("; ".join(_phrase(k, v) for k, v in figures) + ".")
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
                why = s.attempts[-1].error or (s.attempts[-1].verdict.reason if s.attempts[-1].verdict else "") if s.attempts else "no tool ran"
                lines.append(f"- Step {s.step.step_num} failed: {s.step.goal} ({why})")
            lines += [f"- Step {s.step.step_num} skipped: {s.summary}" for s in skipped]
        if not lines:
            return "No step produced a result."
        return "\n".join(lines).strip()


class LLMSynthesizer:
    """The model writes the answer from the step summaries and key figures (never from truncated data)."""

    def __init__(self, llm: LLM) -> None:
        self.llm = llm

    def synthesize(self, request: str, steps: Sequence[StepResult], results: dict[str, Any]) -> str:
        lines = [f"Request: {request}", "", "Step results:"]
        for s in steps:
            lines.append(f"- step {s.step.step_num} [{s.status}] {s.step.goal}: {s.summary}")
        scalars = {k: v for k, v in results.items() if isinstance(v, (int, float, str, bool))}
        lines += ["", "Key figures: " + json.dumps(scalars, default=str)[:4000], ""]
        lines.append(
            "Answer the request from these results only, concisely, with the numbers. "
            "If some steps failed, say what is missing."
        )
        return self.llm.complete([Message("user", "\n".join(lines))]).text.strip()
