"""The movie a run analyses: loaded whole when small, the file itself memory-mapped when streamed."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from planexec.errors import InputError, UsageError
from planexec.params import resolve
from planexec.sandbox.session import file_backed
from planexec.tools.calcium_meta import ASSUMED_FS
from planexec.tools.calcium_source import SCALED, STREAMED, open_for_run


def _movie(frames: int = 40, size: int = 24, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.integers(100, 4000, (frames, size, size)).astype(np.uint16)


def test_a_small_movie_is_loaded_whole_as_unit_floats(tmp_path: Path) -> None:
    raw = _movie()
    np.save(tmp_path / "m.npy", raw)
    movie = open_for_run(tmp_path / "m.npy", {})
    assert not movie.streamed and movie.images.dtype == np.float32
    np.testing.assert_allclose(movie.images, raw / 65535.0, rtol=1e-6)
    assert movie.meta.describe()["intensity"] == SCALED


def test_a_streamed_npy_reaches_the_sandbox_as_the_file_itself(tmp_path: Path) -> None:
    raw = _movie()
    np.save(tmp_path / "m.npy", raw)
    movie = open_for_run(tmp_path / "m.npy", resolve("", {"stream": "true", "fs": 20}).values)
    assert movie.streamed and movie.cache_dir is None
    assert file_backed(movie.images) == str((tmp_path / "m.npy").resolve())  # mapped, not copied
    np.testing.assert_array_equal(movie.images, raw)  # the file's own values
    info = movie.meta.describe()
    assert info["intensity"] == STREAMED and info["fs"] == 20 and info["shape"] == [40, 24, 24]
    movie.close()
    assert (tmp_path / "m.npy").is_file()  # the user's file is never removed


@pytest.mark.parametrize("kind", ["tiff", "hdf5", "yxt"])
def test_other_layouts_are_written_once_as_npy_and_removed_with_the_run(tmp_path: Path, kind: str) -> None:
    raw = _movie()
    if kind == "tiff":
        import tifffile

        path = tmp_path / "m.tif"
        tifffile.imwrite(path, raw, imagej=True, metadata={"finterval": 0.05, "axes": "TYX"})
    elif kind == "hdf5":
        import h5py

        path = tmp_path / "m.h5"
        with h5py.File(path, "w") as f:
            f.create_dataset("movie", data=raw).attrs["fs"] = 20.0
    else:
        path = tmp_path / "m.npy"
        np.save(path, np.ascontiguousarray(np.moveaxis(raw, 0, -1)))  # H x W x T
    movie = open_for_run(path, {"stream": True})
    assert movie.streamed and movie.cache_dir is not None
    assert file_backed(movie.images) == str(Path(movie.cache_dir, "movie.npy").resolve())
    np.testing.assert_array_equal(movie.images, raw)
    if kind != "yxt":
        assert movie.meta.fs == pytest.approx(20.0)
    cache = Path(movie.cache_dir)
    movie.close()
    assert not cache.exists()


def test_streamed_movies_are_checked_like_loaded_ones(tmp_path: Path) -> None:
    still = np.repeat(_movie(1, size=8), 20, axis=0)
    np.save(tmp_path / "still.npy", still)
    with pytest.raises(InputError, match="identical"):
        open_for_run(tmp_path / "still.npy", {"stream": True})
    np.save(tmp_path / "short.npy", _movie(5, size=4))
    with pytest.raises(InputError, match="at least"):
        open_for_run(tmp_path / "short.npy", {"stream": True})
    np.save(tmp_path / "neg.npy", _movie().astype(np.float32) - 2000)
    with pytest.raises(InputError, match="stream=false"):
        open_for_run(tmp_path / "neg.npy", {"stream": True})
    np.save(tmp_path / "blank.npy", np.zeros((20, 8, 8), np.uint8))
    with pytest.raises(InputError, match="blank"):
        open_for_run(tmp_path / "blank.npy", {"stream": True})


def test_stream_needs_a_file_and_a_truth_value(tmp_path: Path) -> None:
    from PIL import Image

    for i, frame in enumerate((_movie(12) // 16).astype(np.uint8)):
        Image.fromarray(frame).save(tmp_path / f"f{i:02d}.png")
    with pytest.raises(InputError, match="folder of frames"):
        open_for_run(tmp_path, {"stream": True})
    with pytest.raises(UsageError, match="stream='maybe' must be true, false or auto"):
        resolve("", {"stream": "maybe"})  # --param stream=maybe: the parameters name the fix
    np.save(tmp_path / "m.npy", _movie())
    with pytest.raises(InputError, match="stream=true"):
        open_for_run(tmp_path / "m.npy", {"stream": "maybe"})  # unresolved parameters: the same fix named


def test_an_unknown_frame_rate_is_said_to_be_assumed(tmp_path: Path) -> None:
    np.save(tmp_path / "m.npy", _movie())
    info = open_for_run(tmp_path / "m.npy", {}).meta.describe()
    assert info["fs"] is None  # never a guessed number where a measured one belongs
    assert info["fs_assumed_by_analyses"] == ASSUMED_FS
    assert f"assumed {ASSUMED_FS:g} Hz" in info["fs_source"] and "frames" in info["fs_source"]


def _run(path: Path, home: Path, **params: object) -> object:
    from planexec import Config, Orchestrator

    config = Config.from_env(home=home / "home", output_root=home / "out")
    return Orchestrator(config=config).run("Count the cells in the images", images=path, params=params)


@pytest.mark.slow
def test_a_streamed_run_finds_what_the_loaded_run_finds(tmp_path: Path) -> None:
    """Same registration, cells, classification, events and traces."""
    from planexec.tools.calcium_synth import kind

    movie, _ = kind("drift_rigid", seed=3)
    raw = np.round(movie / movie.max() * 60000).astype(np.uint16)
    np.save(tmp_path / "m.npy", raw)
    loaded = _run(tmp_path / "m.npy", tmp_path / "a", fs=15.0)
    streamed = _run(tmp_path / "m.npy", tmp_path / "b", fs=15.0, stream=True)
    assert loaded.status == streamed.status == "succeeded", (loaded.errors, streamed.errors)
    a, b = loaded.results, streamed.results
    assert a["registered"] == b["registered"] != "none"  # registered frames were read lazily
    assert b["n_cells"] == a["n_cells"] >= 10
    np.testing.assert_array_equal(np.asarray(b["iscell"])[:, 0], np.asarray(a["iscell"])[:, 0])
    assert b["n_transients"] == a["n_transients"]
    plane_a = Path(loaded.output_dir) / "suite2p" / "plane0"
    plane_b = Path(streamed.output_dir) / "suite2p" / "plane0"
    np.testing.assert_allclose(np.load(plane_b / "F.npy"), np.load(plane_a / "F.npy"), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(np.load(plane_b / "dff.npy"), np.load(plane_a / "dff.npy"), rtol=1e-4, atol=1e-6)
    inputs = np.load(plane_b / "ops.npy", allow_pickle=True).item()["inputs"]
    assert inputs["intensity"] == STREAMED and inputs["fs"] == 15.0


def test_event_rates_are_per_second_only_when_the_rate_is_known() -> None:
    from planexec.tools.calcium_pipeline import run_in

    dff = np.zeros((2, 200), np.float32)
    events = [{"cell": 0, "frame": f, "amplitude": 1.0} for f in (10, 50, 90, 130)] + [{"cell": 1, "frame": 7, "amplitude": 2.0}]
    known = run_in({"dff": dff, "events": events}, ["event_statistics"], {"fs": 20.0})
    assert known["event_rate_unit"] == "events/s"
    np.testing.assert_allclose(known["event_rate"], [4 / 10.0, 1 / 10.0])  # 200 frames at 20 Hz = 10 s
    unknown = run_in({"dff": dff, "events": events}, ["event_statistics"], {})
    assert unknown["event_rate_unit"].startswith("events/frame")
    np.testing.assert_allclose(unknown["event_rate"], [4 / 200, 1 / 200])


def test_a_run_without_a_frame_rate_says_its_rate_was_assumed(tmp_path: Path) -> None:
    from planexec import Config, Orchestrator
    from planexec.tools.calcium_synth import generate_synth

    movie, _ = generate_synth(frames=120, size=64, cells=6, seed=2)
    np.save(tmp_path / "m.npy", np.round(movie / movie.max() * 250).astype(np.uint8))
    config = Config.from_env(home=tmp_path / "home", output_root=tmp_path / "out")
    result = Orchestrator(config=config).run("Detect calcium transients and measure their amplitude",
                                             images=tmp_path / "m.npy", params={"stream": True})
    assert result.status == "succeeded", result.errors
    assert result.results["event_rate_unit"].startswith("events/frame")
    assert result.params["values"]["fs"] is None and "assume" in result.params["sources"]["fs"]
    out = Path(result.output_dir)
    assert "Frame rate assumed." in (out / "report.md").read_text()
    assert 'id="rate-note"' in (out / "report.html").read_text()
    import json

    inputs = json.loads((out / "report.json").read_text())["inputs"]
    assert inputs["fs"] is None and inputs["fs_assumed_by_analyses"] == ASSUMED_FS


def _bench() -> object:
    """benchmarks/bench_calcium_memory.py: its movie writer and its process-tree memory sampler."""
    import importlib.util
    import sys

    from tests.conftest import REPO

    spec = importlib.util.spec_from_file_location("bench_calcium_memory", REPO / "benchmarks" / "bench_calcium_memory.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_a_streamed_planexec_run_holds_no_float32_copy_of_the_movie(tmp_path: Path) -> None:
    """Real `planexec run` subprocesses on one movie: streamed and loaded whole find the same cells,
    and the loaded run's process tree holds the float32 movie (4x the file) that the streamed one does not."""
    bench = _bench()
    movie = tmp_path / "m.npy"
    bench.write_movie(movie, 800, 256)
    size = movie.stat().st_size
    streamed = bench.measure(movie, tmp_path / "s", ["--param", "stream=true"], 30.0, 1800)
    loaded = bench.measure(movie, tmp_path / "l", ["--param", "stream=false"], 30.0, 1800)
    assert streamed.status == loaded.status == "succeeded"
    assert streamed.cells == loaded.cells
    assert loaded.peak_anon - streamed.peak_anon > 2 * size, (streamed.peak_anon, loaded.peak_anon, size)


def test_projections_of_a_streamed_movie_read_in_blocks_equal_the_loaded_ones(tmp_path: Path) -> None:
    from planexec.tools.calcium_pipeline import run_in

    raw = _movie(frames=300, size=256, seed=5)  # 2 blocks of 256 frames
    raw[7, 3, 4] = 65535  # a maximum in the first block
    raw[280, 9, 9] = 65000  # ... and one in the second
    np.save(tmp_path / "m.npy", raw)
    loaded = open_for_run(tmp_path / "m.npy", {"stream": False}).images
    streamed = open_for_run(tmp_path / "m.npy", {"stream": True}).images
    a = run_in({"images": loaded}, ["mean_projection", "max_projection"])
    b = run_in({"images": streamed}, ["mean_projection", "max_projection"])
    assert b["mean_image"].dtype == b["max_image"].dtype == np.float32
    np.testing.assert_allclose(b["mean_image"], a["mean_image"], rtol=1e-6)
    np.testing.assert_allclose(a["mean_image"], raw.mean(axis=0) / 65535, rtol=1e-6)
    np.testing.assert_array_equal(b["max_image"], a["max_image"])
    assert b["max_image"][3, 4] == 1.0 and b["max_image"][9, 9] == np.float32(65000) / np.float32(65535)


def test_a_streamed_movie_is_denoised_as_it_is_read_and_equals_the_whole_filter(tmp_path: Path) -> None:
    from planexec.tools.calcium_pipeline import run_in

    raw = _movie(frames=60, size=32, seed=6)
    np.save(tmp_path / "m.npy", raw)
    loaded = open_for_run(tmp_path / "m.npy", {"stream": False}).images
    streamed = open_for_run(tmp_path / "m.npy", {"stream": True}).images
    whole = run_in({"images": loaded}, ["denoise_movie"])["images_denoised"]
    lazy = run_in({"images": streamed}, ["denoise_movie"])["images_denoised"]
    assert isinstance(whole, np.ndarray) and not isinstance(lazy, np.ndarray) and lazy.shape == whole.shape
    for key in (slice(None), slice(10, 20), slice(55, None), [3, 40, 41], 0, (59, slice(5, 9), 2)):
        np.testing.assert_allclose(lazy[key], whole[key], rtol=1e-6, atol=1e-9)
    assert float(np.abs(whole - raw / 65535).max()) > 0.01  # it did smooth
