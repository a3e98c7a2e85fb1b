"""A run's folder: `outputs/<timestamp>/` with report.json, report.md, run.log and generated code."""

from __future__ import annotations

import json
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from planexec.events import Event
from planexec.models import RunResult
from planexec.serialize import summarize, to_jsonable


def new_run_dir(root: Path) -> Path:
    """A fresh, uniquely named folder under `root` (timestamp to the microsecond)."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S-%f")
    path = Path(root) / stamp
    path.mkdir(parents=True, exist_ok=False)
    return path


class RunLog:
    """Appends one line per event to run.log as it happens, so a crash leaves the log behind."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._fh = path.open("a", encoding="utf-8")

    def __call__(self, event: Event) -> None:
        data = event.to_dict()
        data.pop("time", None)
        kind = data.pop("kind")
        if kind == "plan_created":
            data = {"steps": len((data.get("plan") or {}).get("steps", [])), "planner": data.get("planner")}
        fields = " ".join(f"{k}={summarize(v, 200)}" for k, v in data.items() if v not in (None, "", [], {}))
        stamp = time.strftime("%H:%M:%S", time.localtime(event.time))
        with self._lock:
            self._fh.write(f"{stamp} {kind} {fields}\n")
            self._fh.flush()

    def close(self) -> None:
        with self._lock:
            if not self._fh.closed:
                self._fh.close()


def write_reports(result: RunResult, state: dict[str, Any]) -> None:
    """Write report.json, report.md and (when steps ran code) generated_code.py into result.output_dir."""
    if not result.output_dir:
        return
    out = Path(result.output_dir)
    (out / "report.json").write_text(json.dumps(result.to_dict()), encoding="utf-8")
    (out / "report.md").write_text(markdown(result), encoding="utf-8")
    blocks = state.get("code_blocks") or []
    if blocks:
        parts = ['"""Every step of this run that ran code, in order; runnable with the run\'s inputs."""', ""]
        for header, code in blocks:
            parts += ["# " + "=" * 76, *(f"# {line}" for line in header.splitlines()), "# " + "=" * 76, code.rstrip(), ""]
        (out / "generated_code.py").write_text("\n".join(parts), encoding="utf-8")


def markdown(result: RunResult) -> str:
    """A human-readable report of the run."""
    lines = [f"# planexec run: {result.request}", "", f"**Status:** {result.status}", "", "## Answer", "", result.answer, ""]
    if result.plan:
        lines += ["## Plan", "", "| step | goal | tools | depends on | status |", "|---|---|---|---|---|"]
        status = {s.step.step_num: s.status for s in result.steps}
        for s in result.plan.steps:
            tools = " → ".join(s.tools)
            deps = ", ".join(map(str, s.depends_on)) or "—"
            lines.append(f"| {s.step_num} | {s.goal} | {tools} | {deps} | {status.get(s.step_num, 'pending')} |")
        lines.append("")
    lines += ["## Steps", ""]
    for s in result.steps:
        lines.append(f"### Step {s.step.step_num}: {s.step.goal} ({s.status})")
        for a in s.attempts:
            mark = "✓" if a.ok else "✗"
            why = a.error or (a.verdict.reason if a.verdict else "")
            lines.append(f"- {mark} `{a.tool}` in {a.duration:.2f}s: {a.summary[:300] or why}"
                         + (f" — {why}" if why and a.summary else ""))
        if s.evaluation and s.evaluation.concerns:
            lines += [f"  - concern: {c}" for c in s.evaluation.concerns]
        lines.append("")
    lines += _params_table(result.params)
    scalars = {k: v for k, v in to_jsonable(result.results).items() if isinstance(v, (int, float, str, bool))}
    if scalars:
        lines += ["## Key results", "", "| name | value |", "|---|---|"]
        lines += [f"| {k} | {summarize(v, 120)} |" for k, v in scalars.items()]
        lines.append("")
    if result.artifacts:
        lines += ["## Artifacts", ""] + [f"- {a}" for a in result.artifacts] + [""]
    if result.errors:
        lines += ["## Errors", ""] + [f"- {e}" for e in result.errors] + [""]
    u = result.usage
    lines += ["## Usage", "", f"LLM calls: {u.calls}, prompt tokens: {u.prompt_tokens}, completion tokens: {u.completion_tokens}",
              "", "Timings: " + ", ".join(f"{k} {v:.2f}s" for k, v in result.timings.items()), ""]
    return "\n".join(lines)


def _params_table(params: dict[str, Any]) -> list[str]:
    """The analysis parameters and where each came from (a default, the request text, the caller)."""
    values, sources = params.get("values") or {}, params.get("sources") or {}
    if not values:
        return []
    rows = [f"| {k} | {'auto' if v is None else summarize(v, 60)} | {sources.get(k, '')} |" for k, v in values.items()]
    return ["## Parameters", "", "| name | value | from |", "|---|---|---|", *rows, ""]
