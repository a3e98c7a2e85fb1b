"""A batch's files: rows.jsonl (appended as rows arrive: the resume record), batch.csv (and
batch.parquet when pyarrow is installed), summary.png across recordings, report.md."""

from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

from planexec.errors import UsageError

if TYPE_CHECKING:
    from planexec.batch import BatchResult, BatchRow

ROWS = "rows.jsonl"
BASE_COLUMNS = ("name", "images", "status", "seconds", "attempts", "node", "warm", "llm_calls",
                "generated", "reused", "output_dir", "error")


class RowLog:
    """`rows.jsonl` in the batch folder: a header with the request, then one row per finished recording."""

    def __init__(self, folder: Path, request: str) -> None:
        self.path = Path(folder) / ROWS
        self.request = request
        if self.path.exists():
            header = self._header()
            if header.get("request") != request:
                raise UsageError(f"{folder} holds a batch of another request ({header.get('request')!r}); "
                                 "pass a new --output folder to run this one")
        else:
            if Path(folder).exists() and not Path(folder).is_dir():
                raise UsageError(f"batch output {folder} is a file; pass a folder")
            Path(folder).mkdir(parents=True, exist_ok=True)
            self.path.write_text(json.dumps({"request": request}) + "\n", encoding="utf-8")

    def _header(self) -> dict[str, str]:
        with self.path.open(encoding="utf-8") as fh:
            try:
                return json.loads(fh.readline() or "{}")
            except ValueError:
                return {}

    def rows(self) -> dict[str, BatchRow]:
        """The latest row of each recording (a torn last line from a killed driver is ignored)."""
        from planexec.batch import BatchRow

        out: dict[str, BatchRow] = {}
        for line in self.path.read_text(encoding="utf-8").splitlines()[1:]:
            try:
                row = BatchRow.from_dict(json.loads(line))
            except (ValueError, TypeError):
                continue
            out[row.name] = row
        return out

    def append(self, row: BatchRow) -> None:
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(row.to_dict(), default=str) + "\n")


def figure_columns(rows: list[BatchRow]) -> list[str]:
    """Key-figure names in first-seen order across rows."""
    return list(dict.fromkeys(k for r in rows for k in r.figures))


def write_reports(result: BatchResult) -> dict[str, Path]:
    """Write batch.csv (+ .parquet), summary.png and report.md; return their paths by kind."""
    folder = Path(result.job.output)
    rows = result.rows
    extras = list(dict.fromkeys(k for r in rows for k in r.extra))
    figures = figure_columns(rows)
    table = [_flat(r, extras, figures) for r in rows]
    paths = {"csv": folder / "batch.csv"}
    with paths["csv"].open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=[*BASE_COLUMNS, *extras, *figures])
        writer.writeheader()
        writer.writerows(table)
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        pass
    else:
        paths["parquet"] = folder / "batch.parquet"
        pq.write_table(pa.Table.from_pylist([{k: (None if v == "" else v) for k, v in t.items()} for t in table]),
                       paths["parquet"])
    figure = summary_figure(rows, figures, folder / "summary.png")
    if figure is not None:
        paths["figure"] = figure
    paths["report"] = folder / "report.md"
    paths["report"].write_text(report_markdown(result, figures), encoding="utf-8")
    return paths


def _flat(row: BatchRow, extras: list[str], figures: list[str]) -> dict[str, object]:
    d: dict[str, object] = {c: getattr(row, c) for c in BASE_COLUMNS}
    d["seconds"] = round(row.seconds, 3)
    d["generated"], d["reused"] = " ".join(row.generated), " ".join(row.reused)
    d.update({k: row.extra.get(k, "") for k in extras})
    d.update({k: row.figures.get(k, "") for k in figures})
    return d


def summary_figure(rows: list[BatchRow], figures: list[str], path: Path) -> Path | None:
    """One panel per numeric key figure (value per recording) and one of run time by status."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    numeric = [f for f in figures if any(isinstance(r.figures.get(f), (int, float)) and not isinstance(r.figures.get(f), bool)
                                         for r in rows)][:3]
    if not rows:
        return None
    fig, axes = plt.subplots(1, len(numeric) + 1, figsize=(4 * (len(numeric) + 1), 3.2), squeeze=False)
    names = [r.name for r in rows]
    colour = {"succeeded": "tab:green", "partial": "tab:olive"}
    for ax, key in zip(axes[0], numeric, strict=False):
        values = [r.figures.get(key) if isinstance(r.figures.get(key), (int, float)) else float("nan") for r in rows]
        ax.bar(range(len(rows)), values, color=[colour.get(r.status, "tab:red") for r in rows])
        ax.set_title(key)
        ax.set_xticks(range(len(rows)), names, rotation=90, fontsize=6)
    ax = axes[0][-1]
    ax.bar(range(len(rows)), [r.seconds for r in rows], color=[colour.get(r.status, "tab:red") for r in rows])
    counts = Counter(r.status for r in rows)
    ax.set_title("seconds per recording (" + ", ".join(f"{k} {v}" for k, v in counts.items()) + ")", fontsize=8)
    ax.set_xticks(range(len(rows)), names, rotation=90, fontsize=6)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def report_markdown(result: BatchResult, figures: list[str]) -> str:
    """The batch report: counts, wall time and throughput, one table row per recording, failures."""
    rows = result.rows
    counts = Counter(r.status for r in rows)
    nodes = Counter(r.node for r in rows if r.node)
    lines = [
        "# Batch report", "",
        f"Request: {result.job.request}", "",
        f"{len(rows)} recordings: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
        + f"; {result.skipped} carried over from an earlier run of this batch.",
        f"Wall time {result.seconds:.1f} s; {len(rows) - result.skipped} run here"
        + (f" ({(len(rows) - result.skipped) / result.seconds * 3600:.0f} recordings/hour)" if result.seconds > 0 else "")
        + f" on {len(nodes)} node(s).", "",
        "| recording | status | seconds | " + " | ".join(figures[:6]) + " | run folder |",
        "|---|---|---|" + "---|" * len(figures[:6]) + "---|",
    ]
    for r in rows:
        cells = [str(r.figures.get(f, "")) for f in figures[:6]]
        lines.append(f"| {r.name} | {r.status} | {r.seconds:.1f} | " + " | ".join(cells) + f" | {r.output_dir} |")
    failed = [r for r in rows if r.status not in ("succeeded", "partial")]
    if failed:
        lines += ["", "## Not finished", ""]
        lines += [f"- {r.name}: {r.status}: {r.error or 'no error recorded'}" for r in failed]
    generated = sorted({c for r in rows for c in r.generated})
    if generated:
        lines += ["", "## Capabilities generated in this batch", ""]
        lines += [f"- {c} (reused by {sum(c in r.reused for r in rows)} recording(s))" for c in generated]
    return "\n".join(lines) + "\n"
