"""Analyzer tool: an uncertainty report from the functional boxplot's statistics summary.

The template text is deterministic and always produced; with an LLM configured, the model
rewrites it from the same numbers, and the template stays as the fallback.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from planexec.errors import PlanexecError, ToolError
from planexec.llm.base import Message
from planexec.tools.base import ToolContext, ToolOutput
from planexec.tools.decorator import tool

AnalysisType = Literal["inline", "quick", "detailed"]

_LENGTH = {
    "inline": "one sentence",
    "quick": "three to five sentences",
    "detailed": "a few short paragraphs covering the median, each band, the outliers and what they imply",
}
_SYSTEM = (
    "You write uncertainty reports about ensembles of curves from precomputed functional "
    "boxplot statistics. Use only the numbers given; do not invent values."
)


def _band_sentence(summary: dict[str, Any]) -> str:
    bands = summary["bands"]
    widths = bands["band_widths"]
    parts = [f"{name.split('_')[0]}% band {w['mean_width']:.3g}" for name, w in widths.items()]
    return "Mean band widths: " + ", ".join(parts) + "." if parts else ""


def _outlier_sentence(summary: dict[str, Any]) -> str:
    out = summary["outliers"]
    if not out["count"]:
        return "No curve is flagged as an outlier."
    rule = "crosses the fences" if out["rule"] == "fence" else "lies outside the widest band"
    return (
        f"{out['count']} curve(s) ({out['outlier_percentage']:.1f}%) are outliers "
        f"(each {rule}): {', '.join(str(i) for i in out['indices'])}."
    )


def template_report(summary: dict[str, Any], analysis_type: str = "quick") -> str:
    """Deterministic report text: inline (one line), quick (a paragraph) or detailed."""
    shape, med, bands = summary["data_shape"], summary["median"], summary["bands"]
    level, score = bands["uncertainty_level"], bands["overall_uncertainty_score"]
    n_out = summary["outliers"]["count"]
    if analysis_type == "inline":
        return (
            f"{shape['n_curves']} curves: {level} uncertainty (score {score:.2f}), "
            f"{med['trend']} median, {n_out} outlier(s)."
        )
    quick = (
        f"The ensemble of {shape['n_curves']} curves ({shape['n_points']} points each) shows "
        f"{level} uncertainty: the central {bands.get('central_share', 0.5):.0%} region spans {score:.0%} of the data range on "
        f"average (score {score:.3f}). The median (curve {med['index']}) is {med['trend']} "
        f"with values from {med['value_range'][0]:.3g} to {med['value_range'][1]:.3g}. "
        + _outlier_sentence(summary)
    )
    if analysis_type == "quick":
        return quick
    central = bands["central_region"]
    depth = summary["depth"]
    return "\n\n".join(
        [
            "Uncertainty report (detailed)",
            f"Data: {shape['n_curves']} curves × {shape['n_points']} points, ranked by "
            f"{summary['method'].upper()} (depth {depth['min']:.3f} to {depth['max']:.3f}, "
            f"mean {depth['mean']:.3f}).",
            f"Median: curve {med['index']}, {med['trend']} (fitted change over the domain "
            f"{med['overall_slope']:.3g}), mean {med['mean_value']:.3g}, range "
            f"{med['value_range'][0]:.3g} to {med['value_range'][1]:.3g}; fluctuation "
            f"{med['fluctuation_level']:.3f}, smoothness {med['smoothness_score']:.3f} (1 = smooth).",
            f"Spread: {_band_sentence(summary)} The central region is "
            f"{central['mean_width']:.3g} wide on average, widest ({central['max_width']:.3g}) "
            f"at point {central['max_width_index']} and narrowest at {central['min_width']:.3g}.",
            f"Outliers: {_outlier_sentence(summary)}",
            f"Assessment: overall uncertainty is {level} (score {score:.3f}; below 0.15 is low, "
            f"below 0.35 moderate). "
            + (
                "Inspect the outlying curves before trusting ensemble summaries."
                if n_out
                else "The ensemble is coherent; its median is a fair representative."
            ),
        ]
    )


def llm_report(llm: Any, summary: dict[str, Any], draft: str, analysis_type: str) -> str:
    """The model's rewrite of the template report from the same numbers."""
    prompt = (
        f"Write a {analysis_type} uncertainty report ({_LENGTH[analysis_type]}) as plain text.\n"
        f"Statistics summary (JSON):\n{json.dumps(summary, indent=1)}\n\n"
        f"A template report with the same facts:\n{draft}"
    )
    completion = llm.complete([Message("system", _SYSTEM), Message("user", prompt)])
    return completion.text.strip()


@tool(type="analyzer")
def generate_uncertainty_report(
    analysis_type: AnalysisType = "quick",
    statistics_summary: dict | None = None,
    use_llm: bool = True,
    ctx: ToolContext | None = None,
) -> ToolOutput:
    """Write an uncertainty report in plain text from the functional boxplot statistics summary: median trend, band widths, outliers and the overall uncertainty level.

    `analysis_type` sets the length: one line, a paragraph, or a sectioned report. The
    summary comes from the argument or the run state. With an LLM configured (and
    `use_llm`), the model rewrites the template text from the same numbers.
    """
    summary = statistics_summary or (ctx.state.get("statistics_summary") if ctx else None)
    if not summary:
        raise ToolError(
            "no statistics summary in the run state; run compute_functional_boxplot_statistics first"
        )
    try:
        draft = template_report(summary, analysis_type)
    except (KeyError, TypeError, IndexError) as exc:
        raise ToolError(
            f"the statistics summary is incomplete ({exc!r} missing or malformed); "
            "recompute it with compute_functional_boxplot_statistics"
        ) from None
    text, source, llm_error = draft, "template", None
    llm = ctx.llm if ctx else None
    if use_llm and llm is not None:
        try:
            written = llm_report(llm, summary, draft, analysis_type)
        except PlanexecError as exc:
            llm_error = str(exc)
        else:
            if written:
                text, source = written, "llm"
    value = {"report": text, "analysis_type": analysis_type, "source": source, "template": draft}
    if llm_error:
        value["llm_error"] = llm_error
    results = {
        "report": text,
        "analysis_type": analysis_type,
        "uncertainty_level": summary["bands"]["uncertainty_level"],
        # the numbers the report states, so a question for them is answered by it too
        "uncertainty_score": float(summary["bands"]["overall_uncertainty_score"]),
        "median_index": int(summary["median"]["index"]),
        "n_outliers": int(summary["outliers"]["count"]),
    }
    return ToolOutput(
        value=value,
        summary=text if len(text) <= 300 else text[:297] + "...",
        results=results,
        state={"uncertainty_report": text, "analysis_type": analysis_type},
    )


generate_uncertainty_report.consumes = ("statistics_summary",)
generate_uncertainty_report.produces = ("uncertainty_report",)

TOOLS = [generate_uncertainty_report]
