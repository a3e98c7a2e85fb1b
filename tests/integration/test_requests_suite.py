"""Issue 12 from the user's side: data/suites/requests.toml offline, and the issue's own cases as runs."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from planexec import Orchestrator
from planexec.cli import cli
from planexec.errors import InputError
from planexec.evals import load_suite
from planexec.models import Plan, PlanStep
from planexec.tools.calcium_demo import generate_demo

from .conftest import REPO, SUITES, SuiteRuns, fresh_home, offline_config

pytestmark = pytest.mark.slow
SALES = REPO / "data" / "examples" / "sales.csv"
IMAGES = REPO / "data" / "images"


@pytest.fixture(scope="module")
def orch(seeded_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Orchestrator:
    base = tmp_path_factory.mktemp("requests")
    return Orchestrator(config=offline_config(fresh_home(seeded_home, base / "home"), base / "out"))


def test_the_request_suite_passes_offline(suite_runs: SuiteRuns) -> None:
    result = suite_runs.get("requests")
    problems = {c.case.id: c.error or [d["note"] for d in c.details if not d["ok"]] for c in result.cases if not c.passed}
    assert not problems, problems
    statuses = {c.run_status for c in result.cases}
    assert statuses == {"succeeded", "not_covered"}
    refused = [c for c in result.cases if c.case.id.startswith(("oos-", "unc-"))]
    assert len(refused) >= 23 and all(c.run_status == "not_covered" for c in refused)
    assert len(load_suite(SUITES / "requests.toml").cases) >= 60


@pytest.mark.parametrize("request_text", ["Bake me a chocolate cake", "What is the capital of France?"])
def test_out_of_scope_is_refused_before_any_step_runs(orch: Orchestrator, request_text: str) -> None:
    result = orch.run(request_text, images=IMAGES)
    assert result.status == "not_covered" and result.steps == [] and result.plan is None
    assert "out of scope" in result.answer


def test_a_partly_covered_request_names_the_uncovered_clauses(orch: Orchestrator) -> None:
    result = orch.run("Correct motion by registering the frames, subtract neuropil, then count the cells and "
                      "segment them with cellpose", images=IMAGES)
    assert result.status == "not_covered" and result.steps == []
    assert "cellpose" in result.answer
    assert re.search(r"closest: \w+ \((?:conflict|closest to)", result.answer), \
        "each close candidate comes with why it was rejected"
    assert "count the cells" not in result.answer.split("Nothing was run")[0]


def test_steps_say_what_ran_and_keep_the_clause(orch: Orchestrator) -> None:
    result = orch.run("count the neurons in the movie", images=IMAGES)
    assert result.status == "succeeded" and result.results["n_cells"] == 6, result.answer
    count = next(s for s in result.steps if s.step.args.get("capability_id") == "count_cells")
    assert count.step.goal == "Count cells" and count.step.serves == "count the neurons in the movie"
    helpers = [s for s in result.steps if s is not count]
    assert helpers and all(not s.step.serves for s in helpers), "chained steps serve no clause of their own"


def test_a_missing_column_is_an_input_error_naming_the_columns(orch: Orchestrator) -> None:
    with pytest.raises(InputError, match="no column 'price'.*date, region, product, units, revenue"):
        orch.run("What is the average price?", files=[SALES])


def test_a_non_numeric_column_fails_the_step_with_the_numeric_columns(orch: Orchestrator) -> None:
    result = orch.run("what is the mean region in this table?", files=[SALES])
    assert result.status == "failed"
    assert "'region' is not numeric; numeric columns: units, revenue" in result.answer


def test_a_misspelt_plan_argument_is_rejected_with_the_accepted_names(orch: Orchestrator) -> None:
    plan = Plan([PlanStep(step_num=1, goal="Generate curves", primary_tools=["generate_ensemble_curves"],
                          args={"n_curve": 12})])
    result = orch.run("generate 12 curves", plan=plan)
    assert result.status != "succeeded"
    attempt = result.steps[0].attempts[0]
    assert "unknown argument(s) n_curve; accepted: n_curves" in (attempt.error or "")


def test_the_cli_exits_5_for_uncovered_and_4_for_partial(seeded_home: Path, tmp_path: Path) -> None:
    home = fresh_home(seeded_home, tmp_path / "home")
    env = {"PLANEXEC_HOME": str(home), "PLANEXEC_RAG": "0", "PLANEXEC_OUTPUT_ROOT": str(tmp_path / "out"),
           "HF_HUB_OFFLINE": "1"}
    runner = CliRunner()
    refused = runner.invoke(cli, ["run", "Compute the skewness of each cell trace", "--images", str(IMAGES),
                                  "--llm", "none"], env=env)
    assert refused.exit_code == 5, refused.output
    assert "skewness" in refused.output and "LLM backend" in refused.output
    plan = tmp_path / "plan.json"
    plan.write_text('{"steps": [{"step_num": 1, "goal": "describe", "primary_tools": ["describe_table"]},'
                    ' {"step_num": 2, "goal": "break", "primary_tools": ["describe_table"],'
                    ' "args": {"path": "missing.csv"}}]}')
    partial = runner.invoke(cli, ["run", "describe the table", "--file", str(SALES), "--plan", str(plan),
                                  "--llm", "none"], env={**env, "PLANEXEC_MAX_REPLANS": "0"})
    assert partial.exit_code == 4, partial.output


# -- input cases (movie axis order, degenerate movies, empty amplitudes) ---------------------------------


def _movie(tmp_path: Path, movie: np.ndarray) -> Path:
    path = tmp_path / "movie.npy"
    np.save(path, movie)
    return path


def test_a_movie_stored_h_w_t_is_detected_and_the_answer_says_so(orch: Orchestrator, tmp_path: Path) -> None:
    movie, _ = generate_demo(frames=128, cells=6, size=48, seed=1)
    result = orch.run("count the cells", images=_movie(tmp_path, np.moveaxis(movie, 0, -1)))
    assert result.results.get("n_cells") == 6
    assert "Input: movie.npy: axis 2 (128 long, the longest) was taken as time (YXT)" in result.answer


@pytest.mark.parametrize("shape", [(1, 32, 32), (40, 32, 32)])
def test_a_degenerate_movie_ends_with_a_clear_message(orch: Orchestrator, tmp_path: Path,
                                                      shape: tuple[int, ...]) -> None:
    with pytest.raises(InputError, match="frame|value") as raised:
        orch.run("Detect calcium transients and measure their amplitude",
                 images=_movie(tmp_path, np.zeros(shape, np.float32)))
    assert "mean amplitude" not in str(raised.value)


@pytest.mark.xfail(reason="a silent demo movie still yields one false transient, so the n/a path is not reached "
                          "here (it is unit-tested on event_statistics)", strict=False)
def test_an_amplitude_with_no_events_is_na(orch: Orchestrator, tmp_path: Path) -> None:
    movie, _ = generate_demo(frames=60, cells=4, size=48, seed=2, rate_hz=0.0)
    result = orch.run("What is the mean amplitude of the transients?", images=_movie(tmp_path, movie))
    assert "n/a" in result.answer and result.results.get("mean_amplitude") is None


def test_a_clause_asking_for_a_quantity_no_result_names_is_not_succeeded(orch: Orchestrator) -> None:
    """Events answer "detect transients", not "what fraction of the neurons fire": the run says which."""
    result = orch.run("what fraction of the neurons fire?", images=IMAGES)
    assert result.status in ("partial", "failed"), result.answer
    failed = [s for s in result.steps if s.status == "failed"]
    assert failed and all(s.step.serves for s in failed)
    assert "asks for the fraction" in result.answer and "computes no fraction" in result.answer


@pytest.mark.parametrize("request_text", ["fit a gaussian process to the curves", "cluster the curves of the ensemble into three groups"])
def test_generated_data_never_serves_a_request_about_the_users_curves(orch: Orchestrator, request_text: str) -> None:
    result = orch.run(request_text, files=[REPO / "data" / "curves.npy"])
    assert result.status == "not_covered" and result.steps == [], result.answer
    assert "generate_ensemble_curves" not in result.answer.split("Nothing was run")[0]


def test_a_given_curves_file_is_loaded_not_replaced_by_generated_curves(orch: Orchestrator) -> None:
    result = orch.run("draw a functional boxplot of these curves", files=[REPO / "data" / "curves.npy"])
    assert result.status == "succeeded", result.answer
    assert [s.step.primary_tools[0] for s in result.steps] == ["load_curves", "plot_functional_boxplot"]
    assert result.results["n_curves"] == 40


def test_which_item_is_highest_is_not_answered_by_the_highest_value(orch: Orchestrator) -> None:
    result = orch.run("which region sells the most?", files=[SALES])
    assert result.status != "succeeded", result.answer
    assert "asks which region" in result.answer


def test_a_depth_the_tool_offers_as_an_argument_is_served_and_used(orch: Orchestrator) -> None:
    """ "by band depth" is compute_functional_boxplot_statistics(method="bd"), not a conflict with its default MBD."""
    result = orch.run("which curves are outliers by band depth?", files=[REPO / "data" / "curves.npy"])
    assert result.status == "succeeded", result.answer
    stats = next(s for s in result.steps if s.step.primary_tools[0] == "compute_functional_boxplot_statistics")
    assert stats.step.args.get("method") == "bd" and "(BD)" in stats.summary
    assert sorted(result.results["outliers"]) == [0, 34, 36]


def test_a_column_named_anywhere_gets_the_statistic_asked_of_it(orch: Orchestrator) -> None:
    """Blind suite requests_heldout2 found this answered with the mean: the column came before the statistic."""
    result = orch.run("how spread out is the units column of the sales table? give its standard deviation", files=[SALES])
    assert result.status == "succeeded", result.answer
    assert abs(result.results["std_units"] - 34.4933345) < 1e-6


def test_a_greeting_or_a_word_about_the_writer_does_not_refuse_the_request(orch: Orchestrator) -> None:
    result = orch.run("Hi, I'm new in the lab. How many cells are in this recording?", images=IMAGES)
    assert result.status == "succeeded", result.answer
    assert result.results["n_cells"] == 6


def test_a_statement_that_sets_something_is_still_asked(orch: Orchestrator) -> None:
    result = orch.run("Compute dF/F. The baseline is the 20th percentile of each trace.", images=IMAGES)
    assert result.status != "succeeded", result.answer
    assert "20th percentile" in result.answer


def test_the_passages_of_a_literature_search_are_what_the_search_returns(orch: Orchestrator) -> None:
    result = orch.run("Look up how band depth is defined in the method papers and show me the passages with their "
                      "sources")
    assert result.status == "succeeded", result.answer
    assert [s.step.primary_tools[0] for s in result.steps] == ["rag_retrieval"]
