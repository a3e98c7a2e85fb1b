"""Statistics tool: functional boxplot statistics of the run's curve ensemble, plus a summary."""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from planexec.tools.base import ToolContext, ToolOutput
from planexec.tools.curves_data import curves_from_context
from planexec.tools.decorator import tool
from planexec.tools.fbplot import functional_boxplot_summary_statistics, statistics_summary


def boxplot_statistics(
    curves: np.ndarray, **options: Any
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Raw statistics and their JSON-ready summary, for this tool and the plot tool."""
    stats = functional_boxplot_summary_statistics(curves, **options)
    return stats, statistics_summary(stats, curves)


STATISTICS_KEYS = ("n_curves", "n_points", "method", "median_index", "outliers", "n_outliers", "outlier_percentage",
                   "uncertainty_score")
"""The key figures of `statistics_output`, declared as the curve tools' `reports` (what a question may ask of them)."""


def statistics_output(
    curves: np.ndarray, stats: dict[str, Any], summary: dict[str, Any]
) -> dict[str, Any]:
    """Key figures every curve tool publishes once statistics exist."""
    out = summary["outliers"]
    return {
        "n_curves": int(curves.shape[0]),
        "n_points": int(curves.shape[1]),
        "method": stats["method"],
        "median_index": int(stats["median_index"]),
        "outliers": list(out["indices"]),
        "n_outliers": int(out["count"]),
        "outlier_percentage": float(out["outlier_percentage"]),
        "uncertainty_score": float(summary["bands"]["overall_uncertainty_score"]),
    }


@tool(type="statistics")
def compute_functional_boxplot_statistics(
    path: str = "",
    method: Literal["mbd", "bd", "mfbd", "fbd"] = "mbd",
    prob: float = 0.5,
    factor: float = 1.5,
    percentiles: tuple[float, ...] = (25, 50, 75, 90),
    outlier_rule: Literal["fence", "band"] = "fence",
    ctx: ToolContext | None = None,
) -> ToolOutput:
    """Compute functional boxplot statistics of a curve ensemble: depth ranking, median curve, percentile bands, central region, fences and outliers.

    Curves come from `path`, else the run state, else the first curve file given to the run.
    (The first line avoids the enum words of `method` and `outlier_rule`: the offline input
    generator picks an option named in a step's goal, which may be this description.)
    """
    curves, source, loaded = curves_from_context(ctx, path)
    stats, summary = boxplot_statistics(
        curves,
        method=method,
        prob=prob,
        factor=factor,
        percentiles=tuple(percentiles),
        outlier_rule=outlier_rule,
    )
    results = statistics_output(curves, stats, summary)
    state: dict[str, Any] = {"statistics": stats, "statistics_summary": summary}
    if loaded:
        state.update(curves=curves, curves_source=source, planted_outliers=[])
    med = summary["median"]
    text = (
        f"{results['n_curves']} curves × {results['n_points']} points ({stats['method'].upper()}): "
        f"median is curve {results['median_index']} ({med['trend']}), "
        f"{results['n_outliers']} outlier(s) {results['outliers']}, "
        f"uncertainty score {results['uncertainty_score']:.3f} "
        f"({summary['bands']['uncertainty_level']})"
    )
    return ToolOutput(value=summary, summary=text, results=results, state=state)


compute_functional_boxplot_statistics.consumes = ("curves",)
compute_functional_boxplot_statistics.produces = ("statistics", "statistics_summary")
compute_functional_boxplot_statistics.reports = STATISTICS_KEYS
DEPTH_ARGS = {"band_depth": {"method": "bd"}, "modified_band_depth": {"method": "mbd"}}
"""The depths a request may name (planexec.knowledge.reuse terms) and the `method` each one sets."""
compute_functional_boxplot_statistics.term_args = DEPTH_ARGS

TOOLS = [compute_functional_boxplot_statistics]
