"""A calcium run's outputs in the field's formats: suite2p folder, NWB, report.json, the standalone script.

One run through `Orchestrator().run()` with a stated frame rate and pixel size; each test reads
what it wrote the way its users would (plain numpy, pynwb, a subprocess).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from planexec import Config, Orchestrator, RunResult
from planexec.errors import InputError
from planexec.report_json import load_report
from planexec.tools.calcium_export import CalciumResults, collect, stat_from_labels
from planexec.tools.calcium_io import load_stack
from planexec.tools.calcium_metrics import match_cells
from planexec.tools.calcium_nwb import validate_nwb, write_nwb
from tests.conftest import REPO

IMAGES = REPO / "data" / "images"
TRUTH = json.loads((IMAGES / "ground_truth.json").read_text())
REQUEST = "segment the cells, extract traces, compute dF/F, detect events and plot the traces"
FS, PIXEL = 10.0, 1.5
slow = pytest.mark.slow  # every test using `calcium_run` pays for one full run (a fresh library home)


@pytest.fixture(scope="module")
def calcium_run(tmp_path_factory: pytest.TempPathFactory) -> RunResult:
    home = tmp_path_factory.mktemp("export-home")
    config = Config.from_env(home=home / "home", output_root=home / "outputs")
    result = Orchestrator(config=config).run(REQUEST, images=IMAGES, params={"fs": FS, "pixel_size": PIXEL})
    assert result.status == "succeeded", result.errors
    return result


def _plane(run: RunResult) -> Path:
    return Path(run.output_dir) / "suite2p" / "plane0"


@slow
def test_suite2p_folder_loads_like_suite2p_users_load_it(calcium_run: RunResult) -> None:
    plane = _plane(calcium_run)
    F = np.load(plane / "F.npy")
    Fneu = np.load(plane / "Fneu.npy")
    spks = np.load(plane / "spks.npy")
    iscell = np.load(plane / "iscell.npy")
    stat = np.load(plane / "stat.npy", allow_pickle=True)
    ops = np.load(plane / "ops.npy", allow_pickle=True).item()
    n, t = F.shape
    assert t == 100 and Fneu.shape == spks.shape == (n, t) and iscell.shape == (n, 2) and len(stat) == n
    cells = iscell[:, 0].astype(bool)
    corrected = F[cells] - 0.7 * Fneu[cells]  # the usual neuropil correction
    assert np.isfinite(corrected).all()
    assert ops["fs"] == FS and ops["nframes"] == t and ops["pixel_size_um"] == PIXEL
    assert (ops["Ly"], ops["Lx"]) == ops["meanImg"].shape == (64, 64)
    assert ops["sources"]["F"].startswith("run variable")
    assert ops["sources"]["Fneu"].startswith(("run variable Fneu", "derived at export"))
    mean = ops["meanImg"]
    for i, s in enumerate(stat):
        assert {"ypix", "xpix", "lam", "med", "radius", "npix", "overlap"} <= set(s)
        assert s["npix"] == len(s["ypix"]) == len(s["xpix"]) == len(s["lam"]) > 0
        assert s["ypix"].max() < ops["Ly"] and s["xpix"].max() < ops["Lx"]
        # F is the mean of the ROI's pixels; the meanImg there averages to the trace's mean
        weights = np.asarray(s["lam"], dtype=float)
        expected = float((mean[s["ypix"], s["xpix"]] * weights).sum() / weights.sum())
        assert F[i].mean() == pytest.approx(expected, rel=2e-2)  # F is the lam-weighted mask mean
    centroids = [s["med"] for s in stat]
    assert match_cells(TRUTH["cell_centroids"], centroids).f1 >= 0.9
    results = calcium_run.results
    if ops["sources"]["spks"] == "run variable spks":  # the run deconvolved: exported as is
        np.testing.assert_allclose(spks, np.asarray(results["spks"]), rtol=1e-6)
    else:  # derived from detected events: one nonzero entry per (cell, frame) event
        assert int((spks > 0).sum()) == len({(e["cell"], e["frame"]) for e in results["events"]})
    if "reg_offsets" in ops["sources"]:
        offsets = np.asarray(results["reg_offsets"])
        np.testing.assert_array_equal(np.column_stack([ops["yoff"], ops["xoff"]]), offsets)


@slow
def test_label_image_and_projection_tiffs_carry_the_pixel_size(calcium_run: RunResult) -> None:
    import tifffile

    plane = _plane(calcium_run)
    with tifffile.TiffFile(plane / "labels.tif") as tif:
        labels = tif.asarray()
        num, den = tif.pages[0].tags["XResolution"].value
    assert labels.max() == len(np.load(plane / "stat.npy", allow_pickle=True))
    assert den / num == pytest.approx(PIXEL, rel=1e-4)
    _, meta = load_stack(plane / "meanImg.tif")
    assert meta.pixel_size == pytest.approx(PIXEL, rel=1e-4)


@slow
def test_nwb_validates_and_round_trips(calcium_run: RunResult) -> None:
    from pynwb import NWBHDF5IO

    path = Path(calcium_run.output_dir) / "calcium.nwb"
    assert validate_nwb(path) == []
    plane = _plane(calcium_run)
    F, stat = np.load(plane / "F.npy"), np.load(plane / "stat.npy", allow_pickle=True)
    with NWBHDF5IO(str(path), "r") as io:
        nwb = io.read()
        imaging = nwb.imaging_planes["ImagingPlane"]
        assert imaging.imaging_rate == FS and list(imaging.grid_spacing[:]) == pytest.approx([PIXEL * 1e-6] * 2)
        ophys = nwb.processing["ophys"]
        series = ophys["Fluorescence"]["F"]
        assert series.rate == FS
        np.testing.assert_allclose(series.data[:], F.T, rtol=1e-6)
        assert ophys["Fluorescence"]["Fneu"].data.shape == F.T.shape
        assert ophys["DfOverF"]["dff"].data.shape == F.T.shape
        assert ophys["Deconvolved"]["spks"].data.shape == F.T.shape
        table = ophys["ImageSegmentation"]["PlaneSegmentation"]
        assert len(table) == len(stat)
        first = table["pixel_mask"][0]
        assert [(int(x), int(y)) for x, y, _ in first] == list(zip(stat[0]["xpix"], stat[0]["ypix"], strict=True))
        assert set(ophys["Backgrounds_0"].images) == {"meanImg"}


def test_nwb_refuses_without_a_frame_rate_and_the_report_says_so(tmp_path: Path) -> None:
    images, meta = load_stack(IMAGES)
    labels = np.zeros(images.shape[1:], np.int32)
    labels[20:26, 30:36] = 1
    res = CalciumResults(F=images[:, labels == 1].mean(axis=1)[None], stat=stat_from_labels(labels),
                         iscell=np.ones((1, 2), np.float32), inputs=meta.describe())
    with pytest.raises(InputError, match="needs the frame rate.*--fs"):
        write_nwb(res, tmp_path / "x.nwb", "0", "id")
    state = {"variables": {"roi_traces": res.F, "cell_labels": labels, "images": images}, "stack_meta": meta}
    from planexec.report_calcium import calcium_outputs

    outputs = calcium_outputs(tmp_path, state, "0").outputs
    assert outputs["nwb"].startswith("not written:") and "--fs" in outputs["nwb"]
    assert outputs["suite2p"].startswith("suite2p/plane0/")


def test_collect_prefers_the_agreed_variable_names() -> None:
    F = np.arange(20, dtype=np.float32).reshape(2, 10)
    stat = [{"ypix": np.array([1]), "xpix": np.array([2]), "lam": np.array([1.0]), "med": [1, 2],
             "radius": 0.5, "npix": 1, "overlap": np.array([False])}] * 2
    state = {"variables": {"F": F, "Fneu": F / 2, "spks": F * 0, "iscell": np.array([[1, 0.9], [0, 0.2]]),
                           "stat": stat, "reg_offsets": np.zeros((10, 2)), "roi_traces": F + 1}}
    res = collect(state)
    assert res is not None and res.F is not None and np.array_equal(res.F, F)
    assert set(res.sources.values()) >= {"run variable F", "run variable Fneu", "run variable spks",
                                         "run variable iscell", "run variable stat"}
    assert collect({"variables": {"mean_image": np.zeros((4, 4))}}) is None


@slow
def test_report_json_holds_summaries_references_and_what_was_analysed(calcium_run: RunResult) -> None:
    path = Path(calcium_run.output_dir) / "report.json"
    raw = json.loads(path.read_text())
    assert path.stat().st_size < 100_000
    inputs = raw["inputs"]
    assert inputs["path"] == str(IMAGES) and inputs["shape"] == [100, 64, 64] and inputs["dtype"] == "uint8"
    assert (inputs["fs"], inputs["pixel_size_um"]) == (FS, PIXEL) and inputs["fs_source"] == "given (--fs / params)"
    assert (raw["params"]["values"]["fs"], raw["params"]["values"]["pixel_size"]) == (FS, PIXEL) and raw["version"]
    assert raw["params"]["sources"]["fs"] == "api"
    assert raw["outputs"]["nwb"] == "calcium.nwb" and raw["outputs"]["suite2p"].startswith("suite2p/plane0/")
    refs = [v for v in raw["results"].values() if isinstance(v, dict) and "$npy" in v]
    assert refs and all((path.parent / r["$npy"]).is_file() for r in refs)
    whole = RunResult.from_dict(load_report(path))
    np.testing.assert_allclose(np.asarray(whole.results["dff"]), calcium_run.results["dff"], rtol=1e-6)
    md = (path.parent / "report.md").read_text()
    assert "![report_rois](figures/report_rois.png)" in md and "| cell | y | x |" in md and "| fs | 10 |" in md


@slow
def test_generated_code_runs_alone_and_reproduces_the_numbers(calcium_run: RunResult, tmp_path: Path) -> None:
    script = tmp_path / "generated_code.py"
    shutil.copy(Path(calcium_run.output_dir) / "generated_code.py", script)
    text = script.read_text()
    assert "planexec." not in text and "import planexec" not in text and str(REPO) not in text
    shutil.copytree(IMAGES, tmp_path / "movie")
    # planexec made unimportable: the script must not need it
    guard = "import runpy, sys; sys.modules['planexec'] = None; sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')"
    done = subprocess.run([sys.executable, "-c", guard, "generated_code.py", "movie", "--out", "res"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "n_transients = " in done.stdout
    saved = json.loads((tmp_path / "res" / "results.json").read_text())
    assert saved["n_transients"] == calcium_run.results["n_transients"]
    assert saved["events"] == calcium_run.results["events"]
    np.testing.assert_allclose(np.load(tmp_path / "res" / "dff.npy"), calcium_run.results["dff"], rtol=1e-5, atol=1e-6)
    assert (tmp_path / "res" / "fig_traces.png").read_bytes()[:4] == b"\x89PNG"
