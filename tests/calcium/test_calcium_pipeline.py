"""The whole chain on movies it was not tuned on (calcium_synth seed 21; tuning used seeds 1-2),
and end to end through the orchestrator with planted shifts, neuropil and spikes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from planexec import Config, Orchestrator
from planexec.tools.calcium_metrics import event_f1, match_cells, to_reference
from planexec.tools.calcium_pipeline import run_chain
from planexec.tools.calcium_synth import SynthParams, generate_synth, kind

HELD_OUT = 21


def _score(result, truth):
    ref = to_reference(truth.cell_centroids, truth.shifts, result["reg_offsets"])
    cells = match_cells(ref, result.cells())
    events = event_f1(truth.spike_frames, result.cell_events(), cells, len(result.cells()), window=(2, 4))
    return cells, events


@pytest.mark.slow
@pytest.mark.parametrize(("name", "cell_f1", "event_f1_min"), [
    ("touching", 0.95, 0.90), ("drift_rigid", 0.95, 0.90), ("neuropil_0.3", 0.95, 0.90),
    ("noise_0.15", 0.90, 0.85), ("dim_close", 0.95, 0.90),
])
def test_held_out_movies_of_every_hard_kind(name: str, cell_f1: float, event_f1_min: float) -> None:
    movie, truth = kind(name, HELD_OUT)
    result = run_chain(movie, {"fs": truth.params.fs})
    cells, events = _score(result, truth)
    assert cells.f1 >= cell_f1, (name, cells)
    assert events.f1 >= event_f1_min, (name, events)
    assert cells.fp <= 1  # (almost) never a false cell


def test_touching_pairs_come_apart() -> None:
    movie, truth = generate_synth(SynthParams(frames=200, size=64, cells=8, min_sep=5.0, touching=1.0, spread=14.0,
                                              radius_range=(3.0, 3.5), noise=0.04, neuropil=0.1), seed=HELD_OUT)
    result = run_chain(movie, {"fs": 15.0})
    cells, _ = _score(result, truth)
    assert cells.tp >= 7 and cells.fp == 0, cells
    overlap = [bool(np.any(s["overlap"])) for s in result["stat"]]
    assert len(overlap) == len(result["stat"])  # every ROI says which of its pixels are shared


def test_a_movie_without_cells_yields_no_cells() -> None:
    movie, _ = generate_synth(SynthParams(frames=150, size=64, cells=0, noise=0.08, neuropil=0.2), seed=HELD_OUT)
    result = run_chain(movie, {"fs": 15.0})
    assert result.cells() == [] and result.cell_events() == []


@pytest.mark.slow
def test_orchestrator_corrects_motion_subtracts_neuropil_and_deconvolves(tmp_path: Path) -> None:
    movie, truth = generate_synth(SynthParams(frames=240, size=80, cells=14, drift=3.0, jitter=0.6, neuropil=0.25,
                                              noise=0.06), seed=HELD_OUT)
    np.save(tmp_path / "movie.npy", movie)
    config = Config.from_env(home=tmp_path / "home", output_root=tmp_path / "out")
    result = Orchestrator(config=config).run(
        "Correct motion, subtract neuropil and deconvolve the traces of cells about 8 px wide, imaged at 15 Hz",
        images=tmp_path / "movie.npy", params={"tau": 0.7})
    assert result.status == "succeeded", result.errors
    caps = [s.step.args.get("capability_id") for s in result.steps]
    for needed in ("register_motion", "segment_cells", "extract_neuropil", "deconvolve_events"):
        assert needed in caps
    r = result.results
    # planted shifts: recovered to a fraction of a pixel (up to the reference's own position)
    err = (r["reg_offsets"] - r["reg_offsets"].mean(0)) - (truth.shifts - truth.shifts.mean(0))
    assert np.sqrt((err ** 2).mean()) < 0.3 and r["motion_detected"]
    # planted spikes, through neuropil: found on the cells found
    ref = to_reference(truth.cell_centroids, truth.shifts, r["reg_offsets"])
    cells = match_cells(ref, r["cell_centroids"])
    assert cells.recall >= 0.9
    events = event_f1(truth.spike_frames, r["events"], cells, len(r["cell_centroids"]), window=(2, 4))
    assert events.f1 >= 0.85, events
    # the parameters reached the capabilities and the report
    assert result.params["values"]["fs"] == 15.0 and result.params["sources"]["diameter"] == "request"
    assert r["tau_used"] == pytest.approx(0.7)
    code = (Path(result.output_dir) / "generated_code.py").read_text()
    assert "params" in code and "--fs" in code  # the standalone script takes the run's parameters as options
    assert "| neuropil_coefficient | 0.7 | default |" in (Path(result.output_dir) / "report.md").read_text()
