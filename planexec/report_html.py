"""report.html: one self-contained page (figures embedded as data URIs, no external resources).

Shows what a scientist checks before trusting a result: the status and answer, the input
(path, shape, type, frame rate and pixel size with their sources), every parameter and the
version, the plan and its steps, the figures, the per-cell table, the output files and the
code that ran.
"""

from __future__ import annotations

import base64
import dataclasses
from html import escape
from pathlib import Path
from typing import Any

from planexec.models import RunResult
from planexec.serialize import summarize, to_jsonable
from planexec.tools.calcium_meta import assumed_rate_note

_STYLE = """
body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}
th{background:#f2f2f2}.status{font-weight:bold;padding:2px 8px;border-radius:4px}
.succeeded{background:#d4f4d4}.partial{background:#fff1c2}.failed,.aborted,.rejected{background:#f8d0d0}
img{max-width:100%;border:1px solid #ddd;margin:.5em 0}pre{background:#f7f7f7;padding:1em;overflow-x:auto;font-size:12px}
td.num{text-align:right;font-variant-numeric:tabular-nums}.warn{background:#fff1c2;padding:.5em}
"""


def _table(rows: list[list[Any]], head: list[str], numeric: set[int] = frozenset()) -> str:  # type: ignore[assignment]
    out = ["<table><tr>" + "".join(f"<th>{escape(h)}</th>" for h in head) + "</tr>"]
    for row in rows:
        cells = "".join(f"<td class=\"num\">{escape(_fmt(v))}</td>" if i in numeric else f"<td>{escape(_fmt(v))}</td>"
                        for i, v in enumerate(row))
        out.append(f"<tr>{cells}</tr>")
    return "\n".join(out) + "</table>"


def _fmt(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.4g}"
    return summarize(value, 300) if not isinstance(value, str) else value


def _image(path: Path) -> str:
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return f'<figure><img alt="{escape(path.name)}" src="data:image/png;base64,{data}"><figcaption>{escape(path.name)}</figcaption></figure>'


def scalar_results(results: dict[str, Any]) -> dict[str, Any]:
    """The run's single-number and text results, without converting its arrays (MBs of traces) to lists."""
    import numpy as np

    plain = {k: v for k, v in results.items() if isinstance(v, (int, float, str, bool, np.generic))}
    return {k: v for k, v in to_jsonable(plain).items() if isinstance(v, (int, float, str, bool))}


def html(result: RunResult, record: dict[str, Any], figures: list[Path], cells: list[Any], code: str) -> str:
    """The page for `result`; `record` holds inputs, version and outputs (as in report.json)."""
    parts = [
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">",
        f"<title>planexec: {escape(result.request[:80])}</title><style>{_STYLE}</style></head><body>",
        f"<h1>planexec run</h1><p><b>Request:</b> {escape(result.request)}</p>",
        f"<p><b>Status:</b> <span class=\"status {escape(result.status)}\" id=\"status\">{escape(result.status)}</span>"
        f" &nbsp; planexec {escape(str(record.get('version')))}</p>",
        "<h2>Answer</h2>", f"<pre id=\"answer\">{escape(result.answer)}</pre>",
    ]
    inputs = record.get("inputs") or {}
    if assumed_rate_note(inputs):
        parts.append(f"<p class=\"warn\" id=\"rate-note\"><b>Frame rate assumed.</b> {escape(assumed_rate_note(inputs))}</p>")
    if inputs:
        parts += ["<h2>Input</h2>", _table([[k, v] for k, v in inputs.items()], ["field", "value"])]
    params, sources = (result.params or {}).get("values") or {}, (result.params or {}).get("sources") or {}
    parts += ["<h2>Parameters</h2>",
              _table([[k, "auto" if v is None else v, sources.get(k, "")] for k, v in params.items()],
                     ["name", "value", "from"]) if params else "<p>none</p>"]
    if result.plan:
        status = {s.step.step_num: s.status for s in result.steps}
        parts += ["<h2>Plan</h2>", _table(
            [[s.step_num, s.goal, " → ".join(s.tools), ", ".join(map(str, s.depends_on)) or "—",
              status.get(s.step_num, "pending")] for s in result.plan.steps],
            ["step", "goal", "tools", "depends on", "status"])]
    if figures:
        parts += ["<h2>Figures</h2>", *(_image(p) for p in figures)]
    if cells:
        rows = [dataclasses.astuple(c) for c in cells]
        head = [f.name for f in dataclasses.fields(cells[0])]
        parts += [f"<h2>Cells ({len(cells)})</h2>", _table([list(r) for r in rows], head, set(range(len(head))))]
    scalars = scalar_results(result.results)
    if scalars:
        parts += ["<h2>Key results</h2>", _table([[k, v] for k, v in scalars.items()], ["name", "value"])]
    outputs = record.get("outputs") or {}
    if outputs:
        parts += ["<h2>Output files</h2>", _table([[k, v] for k, v in outputs.items()], ["output", "file or reason"])]
    if result.errors:
        parts += ["<h2>Errors</h2><ul>", *(f"<li>{escape(e)}</li>" for e in result.errors), "</ul>"]
    if code:
        parts += ["<h2>Code</h2><p>generated_code.py, runnable on its own:</p>", f"<pre id=\"code\">{escape(code)}</pre>"]
    parts.append("</body></html>")
    return "\n".join(parts)
