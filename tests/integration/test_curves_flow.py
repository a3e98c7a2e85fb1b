"""Issue 7 end to end, offline: the two curve requests through Orchestrator.run() and the CLI, and bad inputs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from planexec.models import Plan, PlanStep, RunResult
from planexec.orchestrator import Orchestrator
from planexec.tools import default_registry
from planexec.tools.base import ToolContext

from .conftest import REPO, offline_config

QUICK = "Generate 30 ensemble curves, compute functional boxplot statistics and write a quick uncertainty report"
DETAILED = "Load data/curves.npy, plot its functional boxplot and give me a detailed uncertainty report"
SAMPLE = REPO / "data" / "curves.npy"
BAD_REQUEST = "Load the curves, compute functional boxplot statistics and write a quick uncertainty report"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, RunResult]:
    """Each request run once with a fresh home (the curve flow needs no capability store)."""
    base = tmp_path_factory.mktemp("curves-flow")
    config = offline_config(base / "home", base / "outputs")
    return {
        "quick": Orchestrator(config=config).run(QUICK),
        "detailed": Orchestrator(config=config).run(DETAILED, files=[SAMPLE]),
    }


def tools_of(run: RunResult) -> list[str]:
    assert run.plan is not None
    return [s.primary_tools[0] for s in run.plan.steps]


def attempt_input(run: RunResult, tool: str) -> dict:
    return next(a.input for s in run.steps for a in s.attempts if a.tool == tool)


def test_quick_request_plans_data_statistics_analyzer(runs: dict[str, RunResult]) -> None:
    run = runs["quick"]
    assert run.status == "succeeded", run.errors
    registry = default_registry()
    # the three clauses, then the figure of what they made (results come with pictures)
    assert tools_of(run) == ["generate_ensemble_curves", "compute_functional_boxplot_statistics",
                             "generate_uncertainty_report", "plot_functional_boxplot"]
    assert [registry.get(t).type for t in tools_of(run)] == ["data", "statistics", "analyzer", "vis"]
    # the figure draws the statistics step's results, so it waits for them
    assert [s.depends_on for s in run.plan.steps] == [(), (1,), (2,), (1, 2)]


def test_detailed_request_routes_each_clause_to_a_tool_of_its_type(runs: dict[str, RunResult]) -> None:
    run = runs["detailed"]
    assert run.status == "succeeded", run.errors
    registry = default_registry()
    by_type = {registry.get(s.primary_tools[0]).type: s for s in run.plan.steps}
    assert sorted(by_type) == ["analyzer", "data", "statistics", "vis"]
    assert by_type["data"].primary_tools == ("load_curves",)
    assert by_type["vis"].primary_tools == ("plot_functional_boxplot",)
    data = by_type["data"].step_num
    assert by_type["statistics"].depends_on == (data,) and by_type["vis"].depends_on == (data,)
    assert by_type["analyzer"].depends_on == (by_type["statistics"].step_num,)


def test_arguments_come_from_the_request_or_schema_defaults(runs: dict[str, RunResult]) -> None:
    generate = attempt_input(runs["quick"], "generate_ensemble_curves")
    assert generate["n_curves"] == 30 and generate["n_points"] == 100 and generate["seed"] == 0
    assert attempt_input(runs["quick"], "generate_uncertainty_report")["analysis_type"] == "quick"
    assert attempt_input(runs["detailed"], "generate_uncertainty_report")["analysis_type"] == "detailed"
    assert Path(attempt_input(runs["detailed"], "load_curves")["path"]).resolve() == SAMPLE


def test_quick_run_ends_with_statistics_and_the_report(runs: dict[str, RunResult]) -> None:
    run = runs["quick"]
    results = run.results
    assert results["n_curves"] == 30 and results["n_points"] == 100
    assert results["outliers"] == results["planted_outliers"] == [0, 25]
    assert results["n_outliers"] == 2 and 0.0 <= results["uncertainty_score"] <= 1.0
    assert results["analysis_type"] == "quick" and results["uncertainty_level"] in ("low", "moderate", "high")
    report = results["report"]
    assert isinstance(report, str) and "30 curves" in report and "0, 25" in report
    assert report in run.answer
    assert [e["status"] for e in run.execution_sequence] == ["success"] * 4
    saved = np.load(run.artifacts[0])
    assert saved.shape == (30, 100)
    figure = results["figure"]
    assert figure in run.artifacts and Path(figure).read_bytes()[:4] == b"\x89PNG"


def test_detailed_run_ends_with_the_report_and_the_figure(runs: dict[str, RunResult]) -> None:
    run = runs["detailed"]
    results = run.results
    assert results["n_curves"] == 40 and results["outliers"] == [0, 34, 36]
    report = results["report"]
    for section in ("Uncertainty report (detailed)", "Median:", "Spread:", "Outliers:", "Assessment:"):
        assert section in report
    assert report.split("\n\n")[0] in run.answer and "0, 34, 36" in run.answer
    figure = Path(results["figure"])
    assert str(figure) in run.artifacts and str(figure) in run.answer
    assert figure.parent == Path(run.output_dir) / "figures"
    with Image.open(figure) as image:
        assert image.format == "PNG" and min(image.size) >= 200
    saved = json.loads((Path(run.output_dir) / "report.json").read_text())
    assert saved["results"]["report"] == report and saved["results"]["outliers"] == [0, 34, 36]
    assert {e["tool"]: e["status"] for e in run.execution_sequence} == {
        "load_curves": "success", "plot_functional_boxplot": "success",
        "compute_functional_boxplot_statistics": "success", "generate_uncertainty_report": "success",
    }


def test_cli_json_from_another_folder(tmp_path: Path) -> None:
    """A real `planexec run ... --file ... --json` subprocess started outside the repository."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PLANEXEC_RAG": "0",
           "PLANEXEC_HOME": str(tmp_path / "home"), "PLANEXEC_OUTPUT_ROOT": str(tmp_path / "out")}
    proc = subprocess.run(
        [sys.executable, "-c", "from planexec.cli import main; main()", "run", DETAILED,
         "--file", str(SAMPLE), "--llm", "none", "--json"],
        capture_output=True, text=True, cwd=tmp_path, env=env, timeout=180,
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["status"] == "succeeded"
    assert data["results"]["outliers"] == [0, 34, 36] and data["results"]["analysis_type"] == "detailed"
    assert "Assessment:" in data["results"]["report"]
    figure = Path(data["results"]["figure"])
    assert figure.is_file() and figure.is_relative_to(tmp_path / "out")


def _write(path: Path, content: object) -> Path:
    if isinstance(content, str):
        path.write_text(content)
    else:
        np.save(path, content)
    return path


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("flat.npy", np.arange(10.0), "1-D array of 10 values; pass a 2-D array"),
        ("gaps.npy", np.array([[1.0, 2.0, 3.0], [np.nan, 1.0, 2.0], [0.0, 0.0, 0.0], [1.0, 1.0, 1.0]]),
         "1 NaN or infinite value(s) (first in curve 1 at point 0)"),
        ("pair.npy", np.ones((2, 5)), "holds 2 curve(s); band depth needs at least 3 curves"),
        ("ragged.csv", "1,2,3\n4,5,6\n7,8\n", "line 3: 2 values, but line 1 has 3"),
    ],
)
def test_bad_curve_files_fail_clearly_without_crashing_the_run(
    tmp_path: Path, name: str, content: object, message: str
) -> None:
    path = _write(tmp_path / name, content)
    run = Orchestrator(config=offline_config(tmp_path / "home", tmp_path / "outputs")).run(BAD_REQUEST, files=[path])
    assert run.status in ("partial", "failed")
    failed = [a for s in run.steps for a in s.attempts if a.tool == "load_curves"]
    assert failed and not failed[0].ok
    assert name in failed[0].error and message in failed[0].error
    assert "Traceback" not in failed[0].error
    assert {"tool": "load_curves", "status": "error", "error": failed[0].error}.items() <= run.execution_sequence[0].items()
    assert message in run.answer  # the user reads why, in the answer
    assert "report" not in run.results  # no report from a file that could not be read
    # nor figures about other data: replanning never swaps the user's file for synthetic curves
    assert "generate_ensemble_curves" not in {a.tool for s in run.steps for a in s.attempts}
    assert "n_curves" not in run.results and run.replans[0]["skipped"].startswith("the input data")


def test_three_failing_curve_tools_in_a_row_trip_the_breaker(tmp_path: Path) -> None:
    bad = _write(tmp_path / "flat.npy", np.arange(10.0))
    steps = tuple(
        PlanStep(n, f"load attempt {n}", ("load_curves",), args={"path": str(bad)}) for n in (1, 2, 3)
    ) + (PlanStep(4, "summarise", ("generate_uncertainty_report",), depends_on=(3,)),)
    config = offline_config(tmp_path / "home", tmp_path / "outputs", max_parallel=1, max_replans=0)
    run = Orchestrator(config=config).run("load three files", plan=Plan(steps, planner="test"))
    assert run.status == "aborted"
    assert any("circuit breaker: 3 consecutive tool errors" in e for e in run.errors)
    assert [(e["tool"], e["status"]) for e in run.execution_sequence] == [("load_curves", "error")] * 3


def test_a_curve_tool_that_fails_then_succeeds_is_marked_auto_fixed(tmp_path: Path) -> None:
    bad = _write(tmp_path / "ragged.csv", "1,2,3\n4,5,6\n7,8\n")
    steps = (
        PlanStep(1, "load the user's file", ("load_curves",), args={"path": str(bad)}),
        PlanStep(2, "load the sample instead", ("load_curves",), args={"path": str(SAMPLE)}),
        PlanStep(3, "rank the curves", ("compute_functional_boxplot_statistics",), depends_on=(2,)),
    )
    config = offline_config(tmp_path / "home", tmp_path / "outputs", max_parallel=1, max_replans=0)
    run = Orchestrator(config=config).run("load curves", plan=Plan(steps, planner="test"))
    assert [(e["step"], e["status"], e["auto_fixed"]) for e in run.execution_sequence] == [
        (1, "error", False), (2, "success", True), (3, "success", False),
    ]
    assert run.results["outliers"] == [0, 34, 36]


def test_the_figure_and_the_answer_agree_with_the_statistics_step(tmp_path: Path) -> None:
    """The band outlier rule flags 4 curves of the sample where the fences flag 3: the plot, which would compute
    fence statistics of its own, waits for the statistics step and draws its outliers, so the answer is that step's."""
    config = offline_config(tmp_path / "home", tmp_path / "outputs")
    run = Orchestrator(config=config).run("flag outlying curves with the band rule, then draw the functional boxplot",
                                          files=[SAMPLE])
    assert run.status == "succeeded", run.answer
    stats = next(s for s in run.steps if s.step.primary_tools == ("compute_functional_boxplot_statistics",))
    plot = next(s for s in run.steps if s.step.primary_tools == ("plot_functional_boxplot",))
    assert stats.step.step_num in plot.step.depends_on
    flagged = default_registry().get("compute_functional_boxplot_statistics").run(
        {"path": str(SAMPLE), "outlier_rule": "band"}, ToolContext()).results["outliers"]
    assert len(flagged) == 4 and f"{flagged}" in stats.attempts[-1].summary
    assert run.results["outliers"] == flagged and run.results["n_outliers"] == 4
    assert "4 outlier(s) drawn" in plot.attempts[-1].summary


def test_a_percent_band_is_no_band_outlier_rule(tmp_path: Path) -> None:
    config = offline_config(tmp_path / "home", tmp_path / "outputs")
    run = Orchestrator(config=config).run("functional boxplot statistics with the 90% band", files=[SAMPLE])
    stats = next(s for s in run.steps if s.step.primary_tools == ("compute_functional_boxplot_statistics",))
    assert stats.attempts[-1].input["outlier_rule"] == "fence"
