"""The calcium job end to end: backward-chaining plans on paraphrases, runs through the
orchestrator and its sandbox session scored against ground truth, reports, and the CLI."""

from __future__ import annotations

import json
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

from planexec import Config, Orchestrator, RunResult
from planexec.context import capability_store
from planexec.knowledge.embedder import get_embedder
from planexec.planner_heuristic import HeuristicPlanner
from planexec.protocols import PlanningContext
from planexec.similarity import EmbeddingScorer
from planexec.tools import default_registry
from planexec.tools.calcium_metrics import event_f1, match_cells
from tests.conftest import REPO

IMAGES = REPO / "data" / "images"
TRUTH = json.loads((IMAGES / "ground_truth.json").read_text())


@pytest.fixture(scope="module")
def planner() -> HeuristicPlanner:
    return HeuristicPlanner(EmbeddingScorer(get_embedder("auto")))


@pytest.fixture(scope="module")
def capabilities(tmp_path_factory: pytest.TempPathFactory) -> tuple[object, ...]:
    """The seeded library, built once per module in its own folder (seeding costs seconds)."""
    store = capability_store(Config.from_env(home=tmp_path_factory.mktemp("library")))
    try:
        return tuple(store.list())
    finally:
        store.close()


def _plan_for(request: str, planner: HeuristicPlanner, capabilities: tuple[object, ...]):
    ctx = PlanningContext(request, default_registry(), images=IMAGES, capabilities=capabilities)
    plan = planner.plan(ctx).validate(default_registry().names())
    made = {"images"}
    for step in plan.steps:  # every input traces back to `images`, in order
        assert set(step.inputs) <= made, (step, made)
        made |= set(step.outputs)
    return plan


def _capabilities_in(plan) -> list[str]:
    return [s.args.get("capability_id") for s in plan.steps]


@pytest.mark.parametrize(
    "request_text",
    [
        "Count the cells in the images",
        "How many neurons are there?",
        "segment cells and count them",
        "count bright spots",
        "Tell me how many cells this recording contains",
        "What is the number of neurons in the field of view?",
    ],
)
def test_counting_paraphrases_chain_back_to_images(request_text, planner, capabilities) -> None:
    plan = _plan_for(request_text, planner, capabilities)
    caps = _capabilities_in(plan)
    assert "count_cells" in caps
    # registration, activity-based segmentation, then classification before the count: counting
    # every detected ROI over-counted on movies the segmentation was not tuned on
    order = ["register_motion", "segment_cells", "classify_cells", "count_cells"]
    assert [c for c in caps if c in order] == order and len(caps) <= 10
    assert plan.steps[0].inputs == ("images",)
    assert not {"segment_blobs", "extract_traces", "detect_events"} & set(caps), "superseded paths stay out"


@pytest.mark.parametrize(
    "request_text",
    [
        "Detect calcium transients and measure their amplitude",
        "Find the calcium events in each neuron and report their mean amplitude",
    ],
)
def test_transient_requests_chain_through_dff(request_text, planner, capabilities) -> None:
    caps = _capabilities_in(_plan_for(request_text, planner, capabilities))
    for needed in ("register_motion", "extract_neuropil", "compute_dff", "deconvolve_events", "event_statistics"):
        assert needed in caps
    assert caps.index("extract_neuropil") < caps.index("compute_dff") < caps.index("deconvolve_events") \
        < caps.index("event_statistics")


@pytest.mark.parametrize(
    ("request_text", "needed"),
    [
        ("Correct motion and count the cells", "register_motion"),
        ("Subtract neuropil from the traces", "extract_neuropil"),
        ("Deconvolve the traces and infer spikes", "deconvolve_events"),
        ("Which ROIs are cells?", "classify_cells"),
    ],
)
def test_the_field_s_steps_can_be_asked_for_by_name(request_text, needed, planner, capabilities) -> None:
    assert needed in _capabilities_in(_plan_for(request_text, planner, capabilities))


@pytest.fixture(scope="module")
def count_run(tmp_path_factory: pytest.TempPathFactory) -> RunResult:
    home = tmp_path_factory.mktemp("calcium-home")
    config = Config.from_env(home=home / "home", output_root=home / "outputs")
    return Orchestrator(config=config).run("Count the cells in the images", images=IMAGES)


def test_count_run_matches_ground_truth(count_run: RunResult) -> None:
    assert count_run.status == "succeeded", count_run.errors
    results = count_run.results
    cells = results["cell_centroids"]
    assert results["n_cells"] == len(cells) >= 1
    score = match_cells(TRUTH["cell_centroids"], cells)
    assert score.f1 >= 0.9, score
    assert count_run.answer.startswith(f"{results['n_cells']} cells")
    assert all(a.tool == "run_capability" for s in count_run.steps for a in s.attempts)


def test_count_run_writes_reports_code_and_figures(count_run: RunResult) -> None:
    out = Path(count_run.output_dir)
    for name in ("report.json", "report.md", "run.log", "generated_code.py"):
        assert (out / name).is_file(), name
    assert json.loads((out / "report.json").read_text())["results"]["n_cells"] == count_run.results["n_cells"]
    figures = sorted((out / "figures").glob("*.png"))
    assert any("plot_cells" in f.name for f in figures)
    assert all(f.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for f in figures)
    code = (out / "generated_code.py").read_text()
    for cap in ("register_motion", "segment_cells", "count_cells"):
        assert f"capability {cap} v" in code


def test_generated_code_reproduces_the_run(count_run: RunResult) -> None:
    namespace = runpy.run_path(str(Path(count_run.output_dir) / "generated_code.py"))
    results = namespace["analyse"](namespace["load_movie"](IMAGES))
    assert results["n_cells"] == count_run.results["n_cells"]


def test_transient_run_scores_events_against_ground_truth(tmp_path: Path) -> None:
    config = Config.from_env(home=tmp_path / "home", output_root=tmp_path / "out")
    result = Orchestrator(config=config).run("Detect calcium transients and measure their amplitude", images=IMAGES)
    assert result.status == "succeeded", result.errors
    r = result.results
    assert r["n_transients"] == len(r["events"]) > 0
    assert all(set(e) >= {"cell", "frame", "amplitude"} for e in r["events"])
    cells = match_cells(TRUTH["cell_centroids"], r["cell_centroids"])
    events = event_f1(TRUTH["spike_frames"], r["events"], cells, len(r["cell_centroids"]))
    assert events.f1 >= 0.85, events
    assert r["mean_amplitude"] > 0
    assert any("plot_traces" in a for a in result.artifacts)


def test_cli_subprocess_counts_cells_as_json(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "HF_HUB_OFFLINE": "1",
           "PLANEXEC_HOME": str(tmp_path / "home"), "PLANEXEC_OUTPUT_ROOT": str(tmp_path / "out")}
    proc = subprocess.run(
        [sys.executable, "-c", "from planexec.cli import main; main()", "run", "Count the cells in the images",
         "--images", str(IMAGES), "--json"],
        capture_output=True, text=True, env=env, timeout=240, cwd=REPO,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    data = json.loads(proc.stdout)
    assert data["status"] == "succeeded"
    assert 1 <= data["results"]["n_cells"] <= len(data["results"]["cell_centroids"])


def test_cli_names_the_fix_for_missing_or_unreadable_images(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from planexec.cli import cli

    runner = CliRunner()
    missing = runner.invoke(cli, ["run", "Count the cells", "--images", str(tmp_path / "nope")])
    assert missing.exit_code == 2 and "demo-data" in missing.output
    text = tmp_path / "notes.txt"
    text.write_text("not an image stack")
    bad = runner.invoke(cli, ["run", "Count the cells", "--images", str(text)])
    assert bad.exit_code == 2 and bad.stderr.startswith("Error:"), bad.output  # stdout has only the starting line
