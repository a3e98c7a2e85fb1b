"""The starter capability library: metadata, a static check of the snippets, that every
capability chains back to `images`, runs and produces sane outputs, and reaches the accuracy
targets on a demo movie."""

from __future__ import annotations

import ast
import io
import json
from functools import cache
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 - after choosing the backend
import numpy as np
import pytest
import scipy
import skimage
from hypothesis import given, settings
from hypothesis import strategies as st
from matplotlib.figure import Figure

from planexec.params import resolve
from planexec.tools.calcium_demo import generate_demo
from planexec.tools.calcium_metrics import event_f1, match_cells
from planexec.tools.calcium_pipeline import CHAIN as FIELD_CHAIN
from planexec.tools.calcium_pipeline import run_chain as field_chain

LIBRARY = Path(__file__).resolve().parents[2] / "data" / "capabilities"
ALLOWED_ROOTS = {"numpy", "scipy", "skimage", "matplotlib"}
FORBIDDEN_CALLS = {"open", "exec", "eval", "compile", "getattr", "setattr", "delattr", "globals",
                   "locals", "vars", "__import__", "input", "breakpoint"}


@cache
def specs() -> dict[str, dict[str, Any]]:
    return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted(LIBRARY.glob("*.json"))}


@cache
def producers() -> dict[str, str]:
    """Variable name -> the capability that makes it (the one marked default when several do)."""
    made: dict[str, list[str]] = {}
    for cid, spec in specs().items():
        for name in spec["outputs"]:
            made.setdefault(name, []).append(cid)
    chosen = {}
    for name, cids in made.items():
        defaults = [c for c in cids if specs()[c].get("default")]
        assert len(cids) == 1 or len(defaults) == 1, f"{name}: made by {cids}, need one default"
        chosen[name] = cids[0] if len(cids) == 1 else defaults[0]
    return chosen


def chain_for(cid: str) -> list[str]:
    """Capabilities to run, in order, so `cid` has all its inputs (backward chaining)."""
    order: list[str] = []

    def visit(c: str, path: tuple[str, ...]) -> None:
        assert c not in path, f"cycle: {path + (c,)}"
        for name in specs()[c]["inputs"]:
            if name != "images":
                assert name in producers(), f"{c}: nothing produces {name!r}"
                visit(producers()[name], path + (c,))
        if c not in order:
            order.append(c)

    visit(cid, ())
    return order


def run_chain(ids: list[str], images: np.ndarray) -> dict[str, Any]:
    """Run snippets in order in one namespace, as the sandbox session will (here in-process)."""
    ns: dict[str, Any] = {"images": images, "np": np, "scipy": scipy, "skimage": skimage, "plt": plt,
                          "params": dict(resolve("").values)}
    for cid in ids:
        code = (LIBRARY / f"{cid}.py").read_text(encoding="utf-8")
        exec(compile(code, f"{cid}.py", "exec"), ns)  # noqa: S102 - trusted, shipped snippets
    return ns


@pytest.fixture(scope="module")
def small() -> tuple[np.ndarray, Any]:
    return generate_demo(frames=80, cells=6, size=64, seed=11, noise=0.02)


# --- metadata and static shape -----------------------------------------------------------


def test_library_has_at_least_twelve_complete_capabilities() -> None:
    assert len(specs()) >= 12
    for cid, spec in specs().items():
        assert spec["id"] == cid and (LIBRARY / f"{cid}.py").is_file()
        assert spec["name"] and len(spec["description"]) > 20
        assert spec["inputs"] and spec["outputs"] and spec["tags"]
        assert 3 <= len(spec["examples"]) <= 6
        assert all(isinstance(x, str) and x.isidentifier() for x in spec["inputs"] + spec["outputs"])
    assert not set(p.stem for p in LIBRARY.glob("*.py")) - set(specs())


@pytest.mark.parametrize("cid", sorted(specs()))
def test_snippet_passes_a_static_policy(cid: str) -> None:
    tree = ast.parse((LIBRARY / f"{cid}.py").read_text(encoding="utf-8"))
    assigned = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            assert {a.name.split(".")[0] for a in node.names} <= ALLOWED_ROOTS
        elif isinstance(node, ast.ImportFrom):
            assert (node.module or "").split(".")[0] in ALLOWED_ROOTS and node.level == 0
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            assert node.func.id not in FORBIDDEN_CALLS, f"{cid} calls {node.func.id}"
        elif isinstance(node, ast.Attribute):
            assert not node.attr.startswith("__"), f"{cid} uses {node.attr}"
        elif isinstance(node, ast.Name):
            assert not node.id.startswith("__")
            if isinstance(node.ctx, ast.Store):
                assigned.add(node.id)
    assert set(specs()[cid]["outputs"]) <= assigned, "every output must be assigned"


@pytest.mark.parametrize("cid", sorted(specs()))
def test_snippet_passes_the_sandbox_policy(cid: str) -> None:
    policy = pytest.importorskip("planexec.sandbox.policy")
    assert policy.check((LIBRARY / f"{cid}.py").read_text(encoding="utf-8")) == []


def test_every_variable_has_one_default_producer_and_traces_back_to_images() -> None:
    for cid in specs():
        chain = chain_for(cid)
        assert chain[-1] == cid
        assert any("images" in specs()[c]["inputs"] for c in chain)
    for var in ("n_cells", "cell_centroids", "roi_traces", "mean_trace", "n_transients",
                "mean_amplitude", "events", "fig_cells", "fig_traces"):
        assert var in producers(), f"results contract variable {var} has no producer"
    assert producers()["cell_centroids"] == "segment_cells"
    assert producers()["roi_traces"] == "extract_neuropil"
    assert producers()["events"] == "deconvolve_events"
    assert producers()["images_registered"] == "register_motion"
    assert producers()["baseline"] == "baseline_running"


# --- every capability runs and yields sane outputs ---------------------------------------


def _check(name: str, value: Any, ns: dict[str, Any]) -> None:
    t, h, w = ns["images"].shape
    n = len(ns["cell_centroids"]) if "cell_centroids" in ns else None
    arrays_hw = {"mean_image", "max_image", "corr_image"}
    if name in arrays_hw:
        assert value.shape == (h, w) and np.isfinite(value).all()
    elif name in ("images_denoised", "images_registered"):
        assert value.shape == (t, h, w) and value.dtype == np.float32
    elif name == "reg_offsets":
        assert value.shape == (t, 2) and np.isfinite(value).all()
    elif name == "bad_frames":
        assert value.shape == (t,) and value.dtype == bool
    elif name in ("motion_detected",):
        assert isinstance(value, bool)
    elif name == "registered":
        assert value in ("none", "rigid", "piecewise-rigid", "rigid + piecewise-rigid")
    elif name in ("max_displacement", "diameter_px", "neuropil_coefficient", "tau_used"):
        assert isinstance(value, float) and value >= 0
    elif name == "n_bad_frames":
        assert isinstance(value, int) and value >= 0
    elif name == "valid_region":
        y0, y1, x0, x1 = value
        assert 0 <= y0 < y1 <= h and 0 <= x0 < x1 <= w
    elif name == "stat":
        assert len(value) == n
        for s in value:
            k = s["npix"]
            assert len(s["ypix"]) == len(s["xpix"]) == len(s["lam"]) == len(s["overlap"]) == k > 0
            assert abs(float(np.sum(s["lam"])) - 1) < 1e-4 and s["radius"] > 0
            assert 0 <= s["med"][0] < h and 0 <= s["med"][1] < w
    elif name in ("F", "Fneu", "spks"):
        assert value.shape == (n, t) and value.dtype == np.float32 and np.isfinite(value).all()
    elif name == "iscell":
        assert value.shape == (n, 2) and set(np.unique(value[:, 0])) <= {0.0, 1.0}
        assert ((value[:, 1] >= 0) & (value[:, 1] <= 1)).all()
    elif name == "cell_features":
        assert len(value) == n and all(0 <= f["probability"] <= 1 for f in value)
    elif name == "cell_labels":
        assert value.shape == (h, w) and np.issubdtype(value.dtype, np.integer)
        assert value.max() == len(ns["cell_centroids"])
        assert all((value == k).any() for k in range(1, value.max() + 1))
    elif name == "cell_centroids":
        assert all(len(c) == 2 and 0 <= c[0] < h and 0 <= c[1] < w for c in value)
    elif name == "n_cells":
        assert isinstance(value, int) and (value == n if "iscell" not in ns else value == int(ns["iscell"][:, 0].sum()))
    elif name in ("roi_traces", "dff", "baseline"):
        assert value.shape == (n, t) and np.isfinite(value).all()
    elif name == "mean_trace":
        assert value.shape == (t,)
    elif name == "events":
        assert all(set(e) == {"cell", "frame", "amplitude"} for e in value)
        assert all(0 <= e["cell"] < n and 0 <= e["frame"] < t for e in value)
        assert all(isinstance(e["frame"], int) and e["amplitude"] > 0 for e in value)
    elif name == "n_transients":
        assert value == len(ns["events"])
    elif name in ("event_noise", "cell_props", "cell_areas", "events_per_cell", "event_rate"):
        assert len(value) == n
    elif name == "mean_event_rate":
        assert value == pytest.approx(float(np.mean(ns["event_rate"])), abs=1e-6) if n else value is None
    elif name == "event_rate_unit":
        assert value == ("events/s" if ns["params"].get("fs") else value) and value.startswith("events/")
    elif name == "event_kinetics":
        assert len(value) == len(ns["events"])
    elif name in ("median_rise_frames", "median_decay_frames", "mean_correlation"):
        assert isinstance(value, float)
    elif name == "mean_amplitude":
        assert value is None if not ns["events"] else isinstance(value, float)
    elif name == "correlation_matrix":
        assert value.shape == (n, n) and np.allclose(value, value.T, atol=1e-5)
    elif name.startswith("fig_"):
        assert isinstance(value, Figure)
        buf = io.BytesIO()
        value.savefig(buf, format="png")
        assert buf.getvalue()[:4] == b"\x89PNG"
    else:
        raise AssertionError(f"no check written for output {name!r}")


@pytest.mark.parametrize("cid", sorted(specs()))
def test_capability_runs_on_a_small_movie(cid: str, small: tuple[np.ndarray, Any]) -> None:
    movie, _ = small
    chain = [c for c in chain_for(cid) if c != cid] + [cid]
    ns = run_chain(chain, movie)
    for name in specs()[cid]["outputs"]:
        assert name in ns, f"{cid} did not assign {name}"
        _check(name, ns[name], ns)


def test_running_baseline_follows_bleaching_where_a_constant_one_cannot() -> None:
    movie, _ = generate_demo(frames=300, cells=5, size=64, seed=3, noise=0.01, rate_hz=0.0, bleach=0.3)
    # silent cells give activity-based segmentation nothing to find: segment the mean image here
    running = run_chain(
        ["mean_projection", "segment_blobs", "extract_traces", "baseline_running", "compute_dff"], movie,
    )["dff"]
    constant = run_chain(
        ["mean_projection", "segment_blobs", "extract_traces", "baseline_percentile", "compute_dff"],
        movie,
    )["dff"]
    # Silent cells: ΔF/F stays near zero despite 30% bleaching (the first and last half-window
    # cannot see the trend on both sides, so they are looser).
    assert np.abs(running[:, 50:-50]).max() < 0.05 and np.abs(running).max() < 0.1
    assert abs(float(np.median(running))) < 0.01
    assert np.abs(constant).max() > 0.15


def test_detected_kinetics_match_the_indicator(small: tuple[np.ndarray, Any]) -> None:
    ns = run_chain(chain_for("event_kinetics"), small[0])
    tau = 0.7 * 10  # frames
    # half-decay of an exponential is tau*ln2 (4.85 frames); the rise is instant (< 1 frame)
    assert abs(ns["median_decay_frames"] - tau * np.log(2)) < 1.0
    assert ns["median_rise_frames"] < 1.2


def test_pure_noise_movie_gives_no_cells_and_no_events() -> None:
    movie, _ = generate_demo(frames=40, cells=0, size=48, seed=0, noise=0.02)
    ids = ["mean_projection", "segment_blobs", "extract_traces", "baseline_running", "compute_dff",
           "detect_events", "event_statistics", "cell_correlation", "plot_cells", "plot_traces"]
    ns = run_chain(ids, movie)
    assert ns["events"] == [] and ns["roi_traces"].shape == (0, 40)
    assert ns["mean_trace"].shape == (40,) and ns["mean_amplitude"] is None  # n/a, not 0
    field = field_chain(movie, ids=[*FIELD_CHAIN, "count_cells", "event_statistics", "plot_cells", "plot_traces"])
    assert field["n_cells"] == 0 and field.cells() == [] and field.cell_events() == []


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_detect_events_on_clean_transients(seed: int) -> None:
    rng = np.random.default_rng(seed)
    frames = np.sort(rng.choice(np.arange(2, 290, 12), size=8, replace=False))
    kernel = np.exp(-np.arange(300) / 7.0)
    spikes = np.zeros(300)
    spikes[frames] = rng.uniform(0.3, 1.0, size=frames.size)
    dff = (np.convolve(spikes, kernel)[:300] + rng.normal(0, 0.02, 300))[None].astype(np.float32)
    ns = {"dff": dff, "np": np}
    exec(compile((LIBRARY / "detect_events.py").read_text(), "detect_events.py", "exec"), ns)
    found = sorted(e["frame"] for e in ns["events"])
    assert len(found) == len(frames)
    assert all(abs(a - b) <= 2 for a, b in zip(found, frames, strict=True))


# --- accuracy smoke test (the full targets table is benchmarks/bench_calcium.py) ----------


@pytest.mark.parametrize("seed", [0, 1])
def test_accuracy_on_a_demo_movie(seed: int) -> None:
    movie, truth = generate_demo(frames=200, cells=15, size=128, seed=seed, noise=0.02)
    result = field_chain(movie)  # the field's order, classified cells only
    cells = match_cells(truth.cell_centroids, result.cells())
    events = event_f1(truth.spike_frames, result.cell_events(), cells, len(result.cells()))
    assert cells.f1 >= 0.90
    assert events.f1 >= 0.85


def test_watershed_variant_finds_the_cells_too() -> None:
    movie, truth = generate_demo(frames=100, cells=15, size=128, seed=2, noise=0.02)
    ns = run_chain(["mean_projection", "segment_watershed"], movie)
    assert match_cells(truth.cell_centroids, ns["cell_centroids"]).f1 >= 0.90
