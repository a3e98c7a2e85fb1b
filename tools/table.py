"""`describe_table`: rows, columns and per-column statistics of a CSV or JSON table (no pandas)."""

from __future__ import annotations

import csv
import json
import math
import statistics
from pathlib import Path
from typing import Any

from planexec.errors import ToolError
from planexec.models import Evaluation, StepResult
from planexec.tools.base import ToolContext, ToolOutput
from planexec.tools.decorator import tool


def _number(text: Any) -> float | None:
    if isinstance(text, bool):
        return None
    if isinstance(text, (int, float)):
        return float(text) if math.isfinite(float(text)) else None
    if not isinstance(text, str):
        return None
    cleaned = text.strip().replace(",", "").replace("$", "").replace("€", "").replace("%", "")
    if not cleaned:
        return None
    try:
        value = float(cleaned)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


_TABLE_SUFFIXES = (".csv", ".tsv", ".txt", ".json", "")


def read_table(path: Path) -> list[dict[str, Any]]:
    """Rows of a CSV (header line) or JSON (list of objects, or {"rows": [...]}) file."""
    if not path.exists():
        raise ToolError(f"file not found: {path}; pass an existing file with --file")
    if path.suffix.lower() not in _TABLE_SUFFIXES:
        raise ToolError(f"{path.name} is not a table: describe_table reads CSV, TSV, TXT or JSON files "
                        "(curves in .npy go to load_curves)")
    text = path.read_text(encoding="utf-8-sig", errors="replace")
    if "\x00" in text:
        raise ToolError(f"{path.name} is binary, not a CSV or JSON table")
    if path.suffix.lower() == ".json":
        data = json.loads(text)
        if isinstance(data, dict):
            data = data.get("rows") or data.get("data") or [data]
        if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
            raise ToolError(f"{path.name}: expected a JSON list of objects")
        return data
    try:
        dialect: Any = csv.Sniffer().sniff(text[:4096], delimiters=",;\t|") if text.strip() else csv.excel
    except csv.Error:  # ragged or one-column files: plain commas
        dialect = csv.excel
    return list(csv.DictReader(text.splitlines(), dialect=dialect))


def column_stats(values: list[Any]) -> dict[str, Any]:
    """count/mean/median/std/min/max for numeric columns; count/unique/top for the rest."""
    present = [v for v in values if v not in (None, "")]
    nums = [n for n in (_number(v) for v in present) if n is not None]
    if present and len(nums) >= 0.8 * len(present):
        return {
            "kind": "numeric",
            "count": len(nums),
            "missing": len(values) - len(nums),
            "mean": statistics.fmean(nums),
            "median": statistics.median(nums),
            "std": statistics.stdev(nums) if len(nums) > 1 else 0.0,
            "min": min(nums),
            "max": max(nums),
            "sum": math.fsum(nums),
        }
    counts: dict[str, int] = {}
    for v in present:
        counts[str(v)] = counts.get(str(v), 0) + 1
    top = max(counts, key=counts.__getitem__) if counts else None
    return {"kind": "text", "count": len(present), "missing": len(values) - len(present),
            "unique": len(counts), "top": top}


@tool(type="data")
def describe_table(path: str = "", column: str = "", ctx: ToolContext | None = None) -> ToolOutput:
    """Load a CSV or JSON table and report its rows, columns and per-column statistics (mean, median, std, min, max, sum, count).

    With `column`, that column must exist and be numeric; otherwise the error names the columns that are.
    """
    if not path:
        tables = [f for f in (ctx.files if ctx else ()) if f.suffix.lower() in (".csv", ".json", ".tsv")]
        if not tables:
            raise ToolError("no table to describe: pass a CSV or JSON file (--file PATH)")
        path = str(tables[0])
    rows = read_table(Path(path))
    if not rows:
        raise ToolError(f"{Path(path).name} has no data rows")
    columns = list(rows[0].keys())
    stats = {c: column_stats([r.get(c) for r in rows]) for c in columns}
    numeric = {c: s for c, s in stats.items() if s["kind"] == "numeric"}
    results: dict[str, Any] = {f"mean_{c}": s["mean"] for c, s in numeric.items()}
    summary = f"{Path(path).name}: {len(rows)} rows, {len(columns)} columns; " + ", ".join(
        f"mean {c} = {s['mean']:.6g}" for c, s in numeric.items()
    )
    if column:  # a named column: every statistic of it, so "the maximum revenue" is answered, not its mean
        _check_column(Path(path).name, column, columns, numeric)
        results.update({f"{k}_{column}": numeric[column][k] for k in _COLUMN_STATS})
        summary += f"; {column}: " + ", ".join(f"{k} {numeric[column][k]:.6g}" for k in _COLUMN_STATS)
    value = {"path": str(path), "rows": len(rows), "columns": columns, "stats": stats}
    return ToolOutput(value=value, summary=summary, results=results)


_COLUMN_STATS = ("mean", "median", "std", "min", "max", "sum", "count")


def _check_column(name: str, column: str, columns: list[str], numeric: dict[str, Any]) -> None:
    """The asked column exists and is numeric, else a ToolError naming what exists."""
    if column not in columns:
        raise ToolError(f"{name} has no column {column!r}; its columns are: {', '.join(columns)}")
    if column not in numeric:
        raise ToolError(f"{name}: column {column!r} is not numeric; numeric columns: {', '.join(numeric) or 'none'}")


def evaluate_table(result: StepResult) -> Evaluation | None:
    """A table step's row count, and a concern for each mostly empty column."""
    value = result.output if isinstance(result.output, dict) else {}
    stats = value.get("stats") or {}
    sparse = [c for c, s in stats.items() if s.get("missing", 0) > s.get("count", 0)]
    concerns = tuple(f"column {c} is mostly empty" for c in sparse)
    return Evaluation(highlights=(f"{value.get('rows', '?')} rows",), concerns=concerns)


TOOLS = [describe_table]
EVALUATORS = {"describe_table": evaluate_table}
