"""The curve tools through the registry: types, state hand-over, files, figures, reports, errors."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from planexec.errors import ToolError
from planexec.llm.fakes import FunctionLLM, ScriptedLLM
from planexec.tools import (
    ToolContext,
    ToolOutput,
    curves_data,
    curves_report,
    curves_stats,
    curves_vis,
    default_registry,
    validate_args,
)
from planexec.tools.fbplot import CurveDataError

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "data" / "curves.npy"


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(output_dir=tmp_path / "run")


def call(name: str, ctx: ToolContext, **args: Any) -> ToolOutput:
    """Run a tool as the orchestrator does: validate, run, merge its state into the run's."""
    tool = default_registry().get(name)
    out = tool.run(validate_args(tool, args), ctx)
    ctx.state.update(out.state)
    return out


def test_tools_are_registered_with_their_types() -> None:
    registry = default_registry()
    expected = {
        "generate_ensemble_curves": "data",
        "load_curves": "data",
        "compute_functional_boxplot_statistics": "statistics",
        "plot_functional_boxplot": "vis",
        "generate_uncertainty_report": "analyzer",
    }
    for name, type_ in expected.items():
        assert registry.get(name).type == type_
    assert [t.name for t in registry.by_type("statistics")] == ["compute_functional_boxplot_statistics"]
    assert [t.name for t in registry.by_type("analyzer")] == ["generate_uncertainty_report"]
    for module in (curves_data, curves_stats, curves_vis, curves_report):
        assert all(t.name in expected for t in module.TOOLS)


def test_schemas_name_the_arguments_a_planner_fills() -> None:
    registry = default_registry()
    gen = registry.get("generate_ensemble_curves").input_schema["properties"]
    assert gen["n_curves"] == {"type": "integer", "default": 30}
    assert {"n_points", "seed", "shape"} <= set(gen)
    report = registry.get("generate_uncertainty_report").input_schema["properties"]
    assert report["analysis_type"]["enum"] == ["inline", "quick", "detailed"]
    assert "path" in registry.get("load_curves").input_schema["properties"]
    with pytest.raises(ToolError, match="analysis_type"):
        validate_args(registry.get("generate_uncertainty_report"), {"analysis_type": "long"})


def test_generate_is_reproducible_and_reports_planted_outliers(ctx: ToolContext) -> None:
    out = call("generate_ensemble_curves", ctx, n_curves=40, n_points=80, seed=3)
    again = curves_data.generate_ensemble_curves(n_curves=40, n_points=80, seed=3)
    np.testing.assert_array_equal(out.state["curves"], again.state["curves"])
    assert out.state["curves"].shape == (40, 80)
    planted = out.results["planted_outliers"]
    assert len(planted) == 3 and planted == out.state["planted_outliers"]
    assert out.results["n_curves"] == 40 and out.results["n_points"] == 80
    saved = Path(out.artifacts[0])
    np.testing.assert_array_equal(np.load(saved), out.state["curves"])
    other = curves_data.generate_ensemble_curves(n_curves=40, n_points=80, seed=4)
    assert not np.array_equal(other.state["curves"], out.state["curves"])


@pytest.mark.parametrize("shape", ["sine", "gaussian", "linear"])
def test_generate_shapes_and_outlier_counts(shape: str) -> None:
    out = curves_data.generate_ensemble_curves(n_curves=12, shape=shape, n_outliers=0)
    assert out.state["planted_outliers"] == []
    assert np.isfinite(out.state["curves"]).all()


@pytest.mark.parametrize(
    ("args", "words"),
    [
        ({"n_curves": 2}, "at least 3 curves"),
        ({"n_points": 1}, "at least 2 points"),
        ({"n_curves": 9, "n_outliers": 4}, "n_outliers"),
        ({"noise": -0.1}, "noise"),
    ],
)
def test_generate_rejects_bad_arguments(args: dict, words: str) -> None:
    with pytest.raises(CurveDataError, match=words):
        curves_data.generate_ensemble_curves(**args)


def test_load_sample_npy(ctx: ToolContext) -> None:
    out = call("load_curves", ctx, path=str(SAMPLE))
    assert ctx.state["curves"].shape == (40, 100)
    assert out.results == {"n_curves": 40, "n_points": 100}
    assert ctx.state["curves_source"] == str(SAMPLE)


def test_load_csv_with_header_and_transpose(tmp_path: Path, ctx: ToolContext) -> None:
    data = np.arange(12.0).reshape(3, 4)
    rows = ["t0,t1,t2,t3"] + [",".join(str(v) for v in row) for row in data]
    path = tmp_path / "c.csv"
    path.write_text("\n".join(rows) + "\n\n")
    call("load_curves", ctx, path=str(path))
    np.testing.assert_array_equal(ctx.state["curves"], data)
    cols = tmp_path / "cols.csv"
    cols.write_text("\n".join(";".join(str(v) for v in row) for row in data.T))
    call("load_curves", ctx, path=str(cols), transpose=True)
    np.testing.assert_array_equal(ctx.state["curves"], data)


def test_load_takes_the_file_given_to_the_run(tmp_path: Path) -> None:
    ctx = ToolContext(files=(tmp_path / "notes.md", SAMPLE))
    call("load_curves", ctx)
    assert ctx.state["curves"].shape == (40, 100)


def _write(tmp_path: Path, name: str, content: Any) -> Path:
    path = tmp_path / name
    if isinstance(content, str):
        path.write_text(content)
    else:
        np.save(path, content)
    return path


@pytest.mark.parametrize(
    ("name", "content", "words"),
    [
        ("flat.npy", np.arange(10.0), "1-D array of 10 values"),
        ("nan.npy", np.array([[1.0, 2.0], [np.nan, 1.0], [0.0, 0.0]]), "NaN"),
        ("two.npy", np.ones((2, 5)), "at least 3 curves"),
        ("ragged.csv", "1,2,3\n4,5,6\n7,8\n", "line 3: 2 values, but line 1 has 3"),
        ("nan.csv", "1,2\n3,nan\n5,6\n", "NaN"),
        ("words.csv", "1,2\n3,four\n5,6\n", "line 2: 'four' is not a number"),
        ("empty.csv", "\n\n", "no numbers"),
        ("table.json", "[]", "unsupported file type .json"),
    ],
)
def test_load_bad_files_get_clear_errors(tmp_path: Path, name: str, content: Any, words: str) -> None:
    path = _write(tmp_path, name, content)
    with pytest.raises(CurveDataError, match=words):
        curves_data.load_curves(path=str(path))


def test_load_missing_file_and_no_file(tmp_path: Path) -> None:
    with pytest.raises(ToolError, match="file not found"):
        curves_data.load_curves(path=str(tmp_path / "nope.npy"))
    with pytest.raises(ToolError, match="no curve file"):
        curves_data.load_curves(ctx=ToolContext())


def test_statistics_from_run_state(ctx: ToolContext) -> None:
    call("generate_ensemble_curves", ctx, n_curves=30, seed=0)
    out = call("compute_functional_boxplot_statistics", ctx)
    assert set(out.results) >= {
        "n_curves", "n_points", "outliers", "n_outliers", "outlier_percentage",
        "uncertainty_score", "median_index",
    }
    assert set(out.results["outliers"]) == set(ctx.state["planted_outliers"])
    assert ctx.state["statistics_summary"] == out.value
    assert ctx.state["statistics"]["depth"].shape == (30,)
    json.dumps(out.results)
    json.dumps(out.value)


def test_statistics_from_a_path_publish_the_curves(ctx: ToolContext) -> None:
    out = call("compute_functional_boxplot_statistics", ctx, path=str(SAMPLE), method="bd")
    assert out.results["method"] == "bd"
    assert ctx.state["curves"].shape == (40, 100)
    assert out.results["outliers"] == [0, 34, 36]  # the sample's planted outliers


def test_statistics_options_reach_the_library(ctx: ToolContext) -> None:
    call("load_curves", ctx, path=str(SAMPLE))
    out = call("compute_functional_boxplot_statistics", ctx, outlier_rule="band", percentiles=[50, 80])
    assert out.results["n_outliers"] == 8  # the 20% of 40 curves outside the 80% band
    assert set(ctx.state["statistics"]["percentile_bands"]) == {"50_percentile_band", "80_percentile_band"}


def test_statistics_without_curves_names_the_tool_to_run_first() -> None:
    with pytest.raises(ToolError, match="run generate_ensemble_curves or load_curves first"):
        call("compute_functional_boxplot_statistics", ToolContext())


def test_plot_saves_a_png_and_shares_missing_statistics(ctx: ToolContext) -> None:
    call("load_curves", ctx, path=str(SAMPLE))
    out = call("plot_functional_boxplot", ctx)
    figure = Path(out.results["figure"])
    assert figure.parent == ctx.figures_dir and figure.suffix == ".png"
    assert out.artifacts == [str(figure)]
    with Image.open(figure) as img:
        assert img.format == "PNG" and img.size[0] > 400
    # No statistics existed, so the plot computed and published them for the report.
    assert ctx.state["statistics_summary"]["outliers"]["indices"] == [0, 34, 36]
    assert out.results["outliers"] == [0, 34, 36]
    second = call("plot_functional_boxplot", ctx, title="again")
    assert second.results["figure"] != out.results["figure"]


def test_plot_reuses_statistics_of_the_same_curves(ctx: ToolContext) -> None:
    call("generate_ensemble_curves", ctx, n_curves=25, seed=2)
    call("compute_functional_boxplot_statistics", ctx, method="bd")
    stats = ctx.state["statistics"]
    out = call("plot_functional_boxplot", ctx)
    assert out.state == {} and ctx.state["statistics"] is stats
    # New curves make the old statistics stale: the data tool clears them.
    call("generate_ensemble_curves", ctx, n_curves=25, seed=3)
    assert ctx.state["statistics"] is None
    call("plot_functional_boxplot", ctx)
    assert ctx.state["statistics"] is not stats


def test_plot_without_curves_names_the_tool_to_run_first(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="generate_ensemble_curves or load_curves"):
        call("plot_functional_boxplot", ctx)


def _with_statistics(ctx: ToolContext) -> dict:
    call("load_curves", ctx, path=str(SAMPLE))
    call("compute_functional_boxplot_statistics", ctx)
    return ctx.state["statistics_summary"]


@pytest.mark.parametrize("analysis_type", ["inline", "quick", "detailed"])
def test_template_reports(ctx: ToolContext, analysis_type: str) -> None:
    summary = _with_statistics(ctx)
    out = call("generate_uncertainty_report", ctx, analysis_type=analysis_type)
    text = out.results["report"]
    assert ctx.state["uncertainty_report"] == text and out.value["source"] == "template"
    assert out.results["analysis_type"] == analysis_type
    level = summary["bands"]["uncertainty_level"]
    assert level in text and "40 curves" in text
    if analysis_type != "inline":
        assert "0, 34, 36" in text
    assert call("generate_uncertainty_report", ctx, analysis_type=analysis_type).results["report"] == text


def test_report_lengths_grow_with_the_analysis_type(ctx: ToolContext) -> None:
    _with_statistics(ctx)
    lengths = [
        len(call("generate_uncertainty_report", ctx, analysis_type=a).results["report"])
        for a in ("inline", "quick", "detailed")
    ]
    assert lengths == sorted(lengths) and lengths[0] < 150


def test_report_takes_a_summary_argument() -> None:
    ctx = ToolContext()
    call("generate_ensemble_curves", ctx, n_curves=30, seed=1)
    call("compute_functional_boxplot_statistics", ctx)
    summary = ctx.state["statistics_summary"]
    out = curves_report.generate_uncertainty_report(analysis_type="inline", statistics_summary=summary)
    assert "30 curves" in out.results["report"]


def test_report_without_statistics_names_the_tool_to_run_first() -> None:
    with pytest.raises(ToolError, match="run compute_functional_boxplot_statistics first"):
        call("generate_uncertainty_report", ToolContext())
    with pytest.raises(ToolError, match="incomplete"):
        curves_report.generate_uncertainty_report(statistics_summary={"data_shape": {}})


def test_llm_writes_the_report_from_the_numbers(ctx: ToolContext) -> None:
    summary = _with_statistics(ctx)
    llm = ScriptedLLM(["  Moderate spread; curves 0, 34 and 36 stand out.  "])
    ctx.llm = llm
    out = call("generate_uncertainty_report", ctx, analysis_type="detailed")
    assert out.results["report"] == "Moderate spread; curves 0, 34 and 36 stand out."
    assert out.value["source"] == "llm"
    assert out.value["template"].startswith("Uncertainty report (detailed)")
    prompt = llm.calls[0]["messages"][-1].content
    assert json.dumps(summary, indent=1) in prompt and "detailed" in prompt


def test_failing_llm_falls_back_to_the_template(ctx: ToolContext) -> None:
    _with_statistics(ctx)
    ctx.llm = ScriptedLLM([])  # raises LLMError on the first call
    out = call("generate_uncertainty_report", ctx)
    assert out.value["source"] == "template" and "ran out of outputs" in out.value["llm_error"]
    assert out.results["report"] == out.value["template"]
    ctx.llm = FunctionLLM(lambda messages: "should not be asked")
    assert call("generate_uncertainty_report", ctx, use_llm=False).value["source"] == "template"
    assert ctx.llm.calls == []


def test_the_whole_chain_hands_state_along(ctx: ToolContext) -> None:
    outs = [
        call("generate_ensemble_curves", ctx, n_curves=30),
        call("compute_functional_boxplot_statistics", ctx),
        call("plot_functional_boxplot", ctx),
        call("generate_uncertainty_report", ctx, analysis_type="quick"),
    ]
    results: dict[str, Any] = {}
    for out in outs:
        results.update(out.results)
    assert results["n_curves"] == 30 and Path(results["figure"]).is_file()
    assert set(results["outliers"]) == set(results["planted_outliers"])
    assert "30 curves" in results["report"]


def test_descriptions_avoid_their_own_enum_words() -> None:
    # The offline input generator picks an enum option named in a step's goal, and a chained
    # step's goal is the tool's description.
    for module in (curves_data, curves_stats, curves_vis, curves_report):
        for t in module.TOOLS:
            for spec in t.input_schema["properties"].values():
                for option in spec.get("enum", ()):
                    assert not re.search(rf"\b{option}\b", t.description.lower()), (t.name, option)


@pytest.mark.parametrize(
    ("request_text", "files", "tools"),
    [
        (
            "Generate 30 ensemble curves, compute functional boxplot statistics and write a quick "
            "uncertainty report",
            (),
            ["generate_ensemble_curves", "compute_functional_boxplot_statistics",
             "generate_uncertainty_report", "plot_functional_boxplot"],
        ),
        (
            "Load data/curves.npy, plot its functional boxplot and give me a detailed uncertainty report",
            (SAMPLE,),
            ["load_curves", "plot_functional_boxplot", "compute_functional_boxplot_statistics",
             "generate_uncertainty_report"],
        ),
    ],
)
def test_offline_planner_routes_clauses_to_the_curve_tools(
    request_text: str, files: tuple, tools: list[str]
) -> None:
    import planexec.planner_heuristic as planner_mod
    from planexec.protocols import PlanningContext

    registry = default_registry()
    plan = planner_mod.HeuristicPlanner().plan(
        PlanningContext(request=request_text, tools=registry, files=files)
    )
    assert [s.primary_tools[0] for s in plan.steps] == tools
    types = [registry.get(s.primary_tools[0]).type for s in plan.steps]
    assert types[0] == "data" and "analyzer" in types and "vis" in types


def test_the_report_names_the_central_share_it_was_computed_with(ctx: ToolContext) -> None:
    """requests_heldout31: statistics at a 75 % central region were reported as "the central 50% region"."""
    call("generate_ensemble_curves", ctx, n_curves=40, seed=7)
    stats = call("compute_functional_boxplot_statistics", ctx, prob=0.75)
    out = call("generate_uncertainty_report", ctx, analysis_type="quick")
    assert "central 75% region" in out.results["report"]
    assert out.results["uncertainty_score"] == pytest.approx(stats.results["uncertainty_score"])
    assert out.results["median_index"] == stats.results["median_index"]
