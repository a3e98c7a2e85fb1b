"""Vis tool: draw the functional boxplot of the run's curves and save it as a PNG figure."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import numpy as np

from planexec.tools.base import ToolContext, ToolOutput
from planexec.tools.curves_data import curves_from_context
from planexec.tools.curves_stats import DEPTH_ARGS, boxplot_statistics, statistics_output
from planexec.tools.decorator import tool

BAND_COLOUR = "#7b3294"
OUTLIER_COLOUR = "#d7191c"
WHISKER_COLOUR = "#2c7bb6"


def _matches(stats: Any, curves: np.ndarray) -> bool:
    """Whether `stats` were computed from these curves (same shape and median curve)."""
    if not isinstance(stats, dict) or "median_index" not in stats:
        return False
    depth = np.asarray(stats.get("depth", ()))
    if depth.shape != (curves.shape[0],):
        return False
    return np.array_equal(curves[stats["median_index"]], stats["median"])


def draw_functional_boxplot(
    curves: np.ndarray, stats: dict[str, Any], target: Path, title: str = ""
) -> Path:
    """Median, nested percentile bands, central region, whiskers and outliers, as a PNG."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    grid = np.linspace(0.0, 1.0, curves.shape[1])
    fig = Figure(figsize=(8, 4.5), dpi=110)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    bands = sorted(stats["percentile_bands"].items(), key=lambda kv: float(kv[0].split("_")[0]))
    for k, (name, (low, high)) in enumerate(reversed(bands)):
        alpha = 0.12 + 0.5 * (k + 1) / (len(bands) + 1)
        label = f"{name.split('_')[0]}% band"
        ax.fill_between(grid, low, high, color=BAND_COLOUR, alpha=alpha, lw=0, label=label)
    low, high = stats["central_region"]
    ax.plot(grid, low, color=BAND_COLOUR, lw=1.2)
    ax.plot(grid, high, color=BAND_COLOUR, lw=1.2, label=f"central region ({stats['prob']:.0%})")
    w_low, w_high = stats["whiskers"]
    ax.plot(grid, w_low, color=WHISKER_COLOUR, lw=1.0)
    ax.plot(grid, w_high, color=WHISKER_COLOUR, lw=1.0, label="whiskers")
    mid = curves.shape[1] // 2
    ax.vlines([grid[mid]] * 2, [w_low[mid], high[mid]], [low[mid], w_high[mid]], color=WHISKER_COLOUR)
    for n, i in enumerate(stats["outliers"]):
        ax.plot(grid, curves[i], color=OUTLIER_COLOUR, lw=1.0, ls="--",
                label="outliers" if n == 0 else None)
    ax.plot(grid, stats["median"], color="black", lw=2.0, label="median")
    ax.set_xlabel("t")
    ax.set_ylabel("value")
    ax.set_title(title or f"Functional boxplot ({stats['method'].upper()}, {curves.shape[0]} curves)")
    ax.legend(loc="best", fontsize=8, framealpha=0.8)
    fig.tight_layout()
    fig.savefig(target)
    return target


def _free_path(folder: Path, stem: str) -> Path:
    target = folder / f"{stem}.png"
    k = 2
    while target.exists():
        target = folder / f"{stem}_{k}.png"
        k += 1
    return target


@tool(type="vis")
def plot_functional_boxplot(
    path: str = "",
    method: Literal["mbd", "bd", "mfbd", "fbd"] = "mbd",
    title: str = "",
    ctx: ToolContext | None = None,
) -> ToolOutput:
    """Plot the functional boxplot of a curve ensemble (median, central region, percentile bands, whiskers, outliers) and save the figure as a PNG."""
    ctx = ctx or ToolContext()
    curves, source, loaded = curves_from_context(ctx, path)
    stats = ctx.state.get("statistics")
    state: dict[str, Any] = {}
    # Statistics an earlier step computed from these curves (with the outlier rule or region it was asked for) are
    # drawn as they are, so the figure and the answer agree with that step; otherwise they are computed here.
    if not _matches(stats, curves):
        stats, summary = boxplot_statistics(curves, method=method)
        state.update(statistics=stats, statistics_summary=summary)
    if loaded:
        state.update(curves=curves, curves_source=source, planted_outliers=[])
    target = draw_functional_boxplot(curves, stats, _free_path(ctx.figures_dir, "functional_boxplot"), title)
    figure = str(target)
    results = {"figure": figure, "n_outliers": len(stats["outliers"])}
    if "statistics_summary" in state:
        results = {**statistics_output(curves, stats, state["statistics_summary"]), "figure": figure}
    summary_text = (
        f"functional boxplot of {curves.shape[0]} curves saved to {figure} "
        f"({len(stats['outliers'])} outlier(s) drawn in red)"
    )
    value = {"figure": figure, "n_curves": int(curves.shape[0]),
             "outliers": [int(i) for i in stats["outliers"]]}
    return ToolOutput(value=value, summary=summary_text, artifacts=[figure], results=results,
                      state=state)


plot_functional_boxplot.consumes = ("curves",)
plot_functional_boxplot.produces = ("figure",)
plot_functional_boxplot.uses = ("statistics",)  # drawn after a statistics step of the same plan, from its results
plot_functional_boxplot.term_args = DEPTH_ARGS

TOOLS = [plot_functional_boxplot]
