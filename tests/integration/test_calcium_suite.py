"""The calcium suite: passes offline on the shipped sample, its truth is the sample's, and its checks discriminate."""

from __future__ import annotations

import ast
import copy
import json
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from planexec.evals import EvalContext, evaluate_answer, load_suite
from planexec.tools.calcium_demo import generate_demo
from planexec.tools.calcium_metrics import event_f1, match_cells

from .conftest import REPO, SUITES, SuiteRuns

SUITE = SUITES / "calcium.toml"
SAMPLE = REPO / "data" / "images"


def truth() -> dict[str, Any]:
    return json.loads((SAMPLE / "ground_truth.json").read_text())


def constants(code: str) -> dict[str, Any]:
    """The upper-case literals a suite's python check defines (its copy of the ground truth)."""
    out = {}
    for node in ast.parse(code).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            if name.isupper():
                out[name] = ast.literal_eval(node.value)
    return out


def python_points() -> list[dict[str, Any]]:
    data = tomllib.loads(SUITE.read_text())
    points = list(data["points"]) + [p for c in data["cases"] for p in c.get("points", [])]
    return [p for p in points if p["type"] == "python"]


def point(case_id: str, point_id: str) -> dict[str, Any]:
    case = next(c for c in load_suite(SUITE).cases if c.id == case_id)
    return next(p for p in case.points if p.get("id") == point_id)


def check(p: dict[str, Any], results: dict[str, Any], *before: dict[str, Any]) -> dict[str, Any]:
    """Point `p` (after the points it depends on) evaluated against the given results, no run needed."""
    _, details = evaluate_answer("", [*before, p], EvalContext(results=results))
    return details[-1]


@pytest.fixture(scope="module")
def transients(suite_runs: SuiteRuns) -> dict[str, Any]:
    """The key figures the offline transients run really published."""
    result = next(c for c in suite_runs.get("calcium").cases if c.case.id == "transients")
    assert result.error is None, result.error
    return result.results


def test_the_suite_passes_offline_on_the_sample(suite_runs: SuiteRuns) -> None:
    result = suite_runs.get("calcium")
    failing = {c.case.id: [d["note"] for d in c.details if not d["ok"]] or c.error for c in result.cases if not c.passed}
    assert result.passed, failing
    assert [c.case.id for c in result.cases] == [
        "count-cells", "transients", "paraphrase-neurons", "paraphrase-segment", "paraphrase-spots", "traces",
    ]
    assert all(c.run_status == "succeeded" for c in result.cases)
    assert result.metrics()["events"] == 1.0 and result.metrics()["cells"] == 1.0


def test_the_issue_targets_are_met_on_the_sample(transients: dict[str, Any]) -> None:
    gt = truth()
    cells = match_cells(gt["cell_centroids"], transients["cell_centroids"])
    events = event_f1(gt["spike_frames"], transients["events"], cells, len(transients["cell_centroids"]))
    assert cells.f1 >= 0.9 and events.f1 >= 0.85
    assert transients["n_transients"] == len(transients["events"])


def test_the_suite_checks_agree_with_the_package_metrics(transients: dict[str, Any]) -> None:
    gt = truth()
    cells = match_cells(gt["cell_centroids"], transients["cell_centroids"])
    expected = event_f1(gt["spike_frames"], transients["events"], cells, len(transients["cell_centroids"])).f1
    assert check(point("transients", "events_f1"), transients)["score"] == pytest.approx(expected)
    assert check(point("transients", "cells_f1"), transients)["score"] == pytest.approx(cells.f1)


def test_the_suites_truth_is_the_samples() -> None:
    gt = truth()
    seen = set()
    for p in python_points():
        for name, value in constants(p["params"]["code"]).items():
            seen.add(name)
            if name in ("TRUTH", "CENTROIDS"):
                assert value == gt["cell_centroids"]
            elif name == "SPIKES":
                assert value == gt["spike_frames"]
            elif name == "AMPLITUDES":
                assert value == gt["spike_amplitudes"]
    assert {"TRUTH", "CENTROIDS", "SPIKES", "AMPLITUDES"} <= seen


def test_the_sample_is_the_demo_data_the_suite_names() -> None:
    """data/images is `planexec demo-data --frames 100 --cells 6 --size 64 --seed 0` (as the suite says)."""
    _, regenerated = generate_demo(frames=100, cells=6, size=64, seed=0)
    gt = truth()
    assert gt["n_cells"] == 6 and gt["n_spikes"] == 18
    np.testing.assert_allclose(regenerated.cell_centroids, gt["cell_centroids"], atol=1e-3)
    assert regenerated.spike_frames == gt["spike_frames"]


def test_missing_cells_fail_the_cell_check(transients: dict[str, Any]) -> None:
    p = point("count-cells", "cells_f1")
    found = transients["cell_centroids"]
    assert check(p, {"cell_centroids": found})["ok"]
    assert not check(p, {"cell_centroids": found[:4]})["ok"]  # F1 0.8
    assert check(p, {"cell_centroids": [[r + 5, c] for r, c in found]})["score"] == 0.0


def test_wrong_counts_fail_the_numeric_checks(transients: dict[str, Any]) -> None:
    assert not check(point("count-cells", "n_cells"), {"n_cells": 5})["ok"]
    assert check(point("count-cells", "n_cells"), {"n_cells": 6})["ok"]
    assert not check(point("transients", "n_transients"), {"n_transients": 25})["ok"]


def test_misplaced_events_fail_the_event_check(transients: dict[str, Any]) -> None:
    p = point("transients", "events_f1")
    assert check(p, transients)["ok"]
    late = copy.deepcopy(transients)
    for event in late["events"]:
        event["frame"] += 4
    assert not check(p, late)["ok"]
    swapped = copy.deepcopy(transients)
    for event in swapped["events"]:
        event["cell"] = (event["cell"] + 1) % len(swapped["cell_centroids"])
    assert not check(p, swapped)["ok"]


def test_shuffled_amplitudes_fail_the_amplitude_check(transients: dict[str, Any]) -> None:
    p, events = point("transients", "amplitude_r"), point("transients", "events_f1")
    assert check(p, transients, events)["score"] >= 0.9
    shuffled = copy.deepcopy(transients)
    amplitudes = [e["amplitude"] for e in shuffled["events"]]
    for event, amp in zip(shuffled["events"], np.random.default_rng(1).permutation(amplitudes), strict=True):
        event["amplitude"] = float(amp)
    assert not check(p, shuffled, events)["ok"]
    assert check(p, shuffled)["note"].startswith("Skipped")  # without its dependency it never runs


def test_the_suite_inputs_exist_and_resolve_to_the_sample() -> None:
    suite = load_suite(SUITE)
    assert {c.images for c in suite.cases} == {SAMPLE.resolve()}
    assert all(Path(c.images, "ground_truth.json").is_file() for c in suite.cases if c.images)
