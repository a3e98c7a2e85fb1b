"""A run's folder: `outputs/<timestamp>/` with report.json, report.md, report.html, run.log,
generated_code.py and, for calcium runs, a suite2p-style folder and an NWB file."""

from __future__ import annotations

import dataclasses
import json
import shutil
import threading
import time
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from planexec.events import Event
from planexec.models import RunResult
from planexec.report_calcium import calcium_outputs
from planexec.report_code import standalone_script, time_axis_of
from planexec.report_html import assumed_rate_note, html, scalar_results
from planexec.report_json import ArrayStore, arrays_to_files, externalize
from planexec.rundata import RunData
from planexec.serialize import summarize


def new_run_dir(root: Path) -> Path:
    """A fresh, uniquely named folder under `root` (timestamp to the microsecond)."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S-%f")
    path = Path(root) / stamp
    path.mkdir(parents=True, exist_ok=False)
    return path


def discard_stub(path: Path | None) -> None:
    """Remove a run folder that holds nothing but its run.log (the run was refused before it began)."""
    if path is not None and path.is_dir() and {p.name for p in path.iterdir()} <= {"run.log"}:
        shutil.rmtree(path, ignore_errors=True)


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


def run_record(result: RunResult, state: Mapping[str, Any]) -> dict[str, Any]:
    """What was analysed and by what: the input (path, shape, dtype, fs, pixel size) and the version.

    The parameters (every value with where it came from) are the RunResult's own `params`."""
    import planexec

    meta = RunData.of(state).stack_meta
    inputs = meta.describe() if meta is not None and hasattr(meta, "describe") else {}
    return {"version": planexec.__version__, "inputs": inputs}


def write_reports(result: RunResult, state: Mapping[str, Any]) -> None:
    """Write into result.output_dir: field-format outputs (suite2p folder, NWB), report figures,
    report.json (arrays in arrays/*.npy), report.md, report.html and generated_code.py."""
    if not result.output_dir:
        return
    state = RunData.of(state)
    out = Path(result.output_dir)
    record = run_record(result, state)
    calcium = calcium_outputs(out, state, record["version"])
    record["outputs"] = calcium.outputs
    code = _code(result, state, record)
    if code:
        (out / "generated_code.py").write_text(code, encoding="utf-8")
        record["outputs"]["generated_code"] = "generated_code.py"
    record["outputs"]["report_html"] = "report.html"
    store = ArrayStore(out)
    report = externalize({**arrays_to_files(result, store).to_dict(), **record}, store)
    (out / "report.json").write_text(json.dumps(report), encoding="utf-8")
    figures = calcium.figures + [Path(a) for a in result.artifacts if a.endswith(".png") and Path(a).is_file()]
    (out / "report.md").write_text(markdown(result, record, figures, calcium.cells), encoding="utf-8")
    (out / "report.html").write_text(html(result, record, figures, calcium.cells, code), encoding="utf-8")


def _code(result: RunResult, state: RunData, record: dict[str, Any]) -> str:
    if not state.code_blocks:
        return ""
    params = dict(state.variables.get("params") or (result.params or {}).get("values") or {})
    return standalone_script(result.request, state.code_blocks, record["version"], params,
                             time_axis_of(state.stack_meta))


def markdown(result: RunResult, record: dict[str, Any] | None = None, figures: list[Path] | None = None,
             cells: list[Any] | None = None) -> str:
    """A human-readable report of the run: input, parameters, plan, steps, figures shown inline, cells."""
    lines = [f"# planexec run: {result.request}", "", f"**Status:** {result.status}", "", "## Answer", "", result.answer, ""]
    record = record or {}
    note = assumed_rate_note(record.get("inputs") or {})
    lines += [f"> **Frame rate assumed.** {note}", ""] if note else []
    if record.get("inputs"):
        lines += ["## Input", "", "| field | value |", "|---|---|"]
        lines += [f"| {k} | {summarize(v, 200)} |" for k, v in record["inputs"].items()] + [""]
    if record:
        lines += [f"planexec {record.get('version')}", ""]
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
    scalars = scalar_results(result.results)
    if scalars:
        lines += ["## Key results", "", "| name | value |", "|---|---|"]
        lines += [f"| {k} | {summarize(v, 120)} |" for k, v in scalars.items()]
        lines.append("")
    if figures and result.output_dir:
        lines += ["## Figures", ""]
        lines += [f"![{p.stem}]({_relative(p, Path(result.output_dir))})" for p in figures] + [""]
    if cells:
        head = [f.name for f in dataclasses.fields(cells[0])]
        lines += [f"## Cells ({len(cells)})", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        lines += ["| " + " | ".join("—" if v is None else f"{v:.4g}" if isinstance(v, float) else str(v)
                                   for v in dataclasses.astuple(c)) + " |" for c in cells] + [""]
    if record.get("outputs"):
        lines += ["## Output files", ""] + [f"- {k}: {v}" for k, v in record["outputs"].items()] + [""]
    if result.artifacts:
        lines += ["## Artifacts", ""] + [f"- {a}" for a in result.artifacts] + [""]
    if result.errors:
        lines += ["## Errors", ""] + [f"- {e}" for e in result.errors] + [""]
    if result.warnings:
        lines += ["## Warnings", ""] + [f"- {w}" for w in result.warnings] + [""]
    u = result.usage
    lines += ["## Usage", "", f"LLM calls: {u.calls}, prompt tokens: {u.prompt_tokens}, completion tokens: {u.completion_tokens}",
              "", "Timings: " + ", ".join(f"{k} {v:.2f}s" for k, v in result.timings.items()), ""]
    return "\n".join(lines)


def _relative(path: Path, root: Path) -> str:
    try:
        return str(path.resolve().relative_to(root.resolve()))
    except ValueError:
        return str(path)


def _params_table(params: dict[str, Any]) -> list[str]:
    """The analysis parameters and where each came from (a default, the request text, the caller)."""
    values, sources = params.get("values") or {}, params.get("sources") or {}
    if not values:
        return []
    rows = [f"| {k} | {'auto' if v is None else summarize(v, 60)} | {sources.get(k, '')} |" for k, v in values.items()]
    return ["## Parameters", "", "| name | value | from |", "|---|---|---|", *rows, ""]
