"""HDF5 input, TIFF acquisition metadata, the time axis, degenerate movies and chunked reading."""

from __future__ import annotations

from pathlib import Path

import h5py
import numpy as np
import pytest
import tifffile
from hypothesis import given, settings
from hypothesis import strategies as st

from planexec.errors import InputError
from planexec.tools.calcium_io import check_analysable, load_stack
from planexec.tools.calcium_meta import Acquisition, require_fs
from planexec.tools.calcium_movie import open_movie


def _movie(t: int = 20, h: int = 6, w: int = 5, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 4000, (t, h, w)).astype(np.uint16)


def test_imagej_tiff_frame_interval_and_pixel_size(tmp_path: Path) -> None:
    tifffile.imwrite(tmp_path / "m.tif", _movie(), imagej=True, resolution=(1 / 0.5, 1 / 0.5),
                     metadata={"finterval": 1 / 30, "unit": "um", "axes": "TYX"})
    images, meta = load_stack(tmp_path / "m.tif")
    assert images.shape == (20, 6, 5)
    assert meta.fs == pytest.approx(30.0) and meta.pixel_size == pytest.approx(0.5)
    assert "ImageJ" in meta.acquisition.fs_source and "ImageJ" in meta.acquisition.pixel_size_source


def test_ome_tiff_time_increment_in_ms(tmp_path: Path) -> None:
    tifffile.imwrite(tmp_path / "m.ome.tif", _movie(), ome=True,
                     metadata={"axes": "TYX", "PhysicalSizeX": 700, "PhysicalSizeXUnit": "nm",
                               "TimeIncrement": 50, "TimeIncrementUnit": "ms"})
    _, meta = load_stack(tmp_path / "m.ome.tif")
    assert meta.fs == pytest.approx(20.0) and meta.pixel_size == pytest.approx(0.7)
    assert meta.acquisition.fs_source == "TIFF OME TimeIncrement"


def test_user_values_override_tags_and_untagged_rate_stays_unknown(tmp_path: Path) -> None:
    tifffile.imwrite(tmp_path / "m.tif", _movie(), imagej=True, metadata={"finterval": 0.1, "axes": "TYX"})
    _, meta = load_stack(tmp_path / "m.tif", fs=15.5, pixel_size=1.2)
    assert (meta.fs, meta.pixel_size) == (15.5, 1.2) and meta.acquisition.fs_source == "given (--fs / params)"
    tifffile.imwrite(tmp_path / "plain.tif", _movie())
    _, plain = load_stack(tmp_path / "plain.tif")
    assert plain.fs is None and plain.describe()["fs_source"].startswith("not recorded and not given")
    assert plain.describe()["fs_assumed_by_analyses"] == 10.0  # said to be assumed, never shown as fs
    with pytest.raises(InputError, match="pass --fs HZ"):
        require_fs(plain.acquisition, "event rates in Hz")
    with pytest.raises(InputError, match="positive number"):
        Acquisition().with_overrides(-3, None)


def test_hdf5_dataset_selectable_and_named_when_ambiguous(tmp_path: Path) -> None:
    raw = _movie()
    with h5py.File(tmp_path / "r.h5", "w") as f:
        f["imaging/mov"] = raw
        f["imaging/mov"].attrs["fs"] = 7.5
        f["other"] = raw[:, :3]
    with pytest.raises(InputError, match=r"2 3-D datasets \(/imaging/mov, /other\).*--param dataset="):
        load_stack(tmp_path / "r.h5")
    images, meta = load_stack(tmp_path / "r.h5", dataset="/imaging/mov")
    np.testing.assert_allclose(images, raw / 65535.0, atol=1e-7)
    assert meta.fs == 7.5 and meta.dataset == "/imaging/mov"
    with pytest.raises(InputError, match="no dataset '/nope'"):
        load_stack(tmp_path / "r.h5", dataset="/nope")


def test_time_is_the_longest_axis_and_the_choice_is_stated(tmp_path: Path) -> None:
    raw = _movie(t=30, h=6, w=5)
    np.save(tmp_path / "yxt.npy", np.ascontiguousarray(np.moveaxis(raw, 0, -1)))
    images, meta = load_stack(tmp_path / "yxt.npy")
    np.testing.assert_allclose(images, raw / 65535.0, atol=1e-7)
    assert "axis 2" in meta.axes_note and "longest" in meta.axes_note
    np.save(tmp_path / "cube.npy", _movie(t=8, h=8, w=8))
    _, cube = load_stack(tmp_path / "cube.npy")
    assert "does not say which axis is time" in cube.axes_note
    images, told = load_stack(tmp_path / "yxt.npy", axes="YXT")
    assert told.axes_note == "" and images.shape == (30, 6, 5)
    with pytest.raises(InputError, match="must order the letters"):
        load_stack(tmp_path / "yxt.npy", axes="TZX")


@pytest.mark.parametrize("raw, match", [
    (np.ones((3, 8, 8), np.uint8), "has 3 frame"),
    (np.full((12, 8, 8), 7, np.uint8), "every pixel of every frame"),
    (np.repeat(np.arange(64, dtype=np.uint8).reshape(1, 8, 8), 12, axis=0), "frames are identical"),
])
def test_degenerate_movies_end_with_one_line_naming_the_fix(tmp_path: Path, raw: np.ndarray, match: str) -> None:
    np.save(tmp_path / "m.npy", raw)
    images, meta = load_stack(tmp_path / "m.npy", axes="TYX")
    with pytest.raises(InputError, match=match) as err:
        check_analysable(images, meta)
    assert "\n" not in str(err.value) and "pass" in str(err.value)


@settings(max_examples=15, deadline=None)
@given(st.integers(1, 40), st.sampled_from(["npy", "tif", "h5"]), st.sampled_from([np.uint8, np.int16, np.float32]))
def test_chunks_equal_the_whole_load(chunk: int, kind: str, dtype: type) -> None:
    import tempfile

    raw = (np.random.default_rng(chunk).random((23, 7, 6)) * 200 - (50 if dtype is not np.uint8 else 0)).astype(dtype)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"m.{kind}"
        if kind == "npy":
            np.save(path, raw)
        elif kind == "tif":
            tifffile.imwrite(path, raw)
        else:
            with h5py.File(path, "w") as f:
                f["data"] = raw
        whole, _ = load_stack(path)
        movie = open_movie(path)
        assert movie is not None and movie.shape == (23, 7, 6)
        streamed = np.concatenate([c for _, c in movie.chunks(chunk)])
    np.testing.assert_array_equal(streamed, whole)


def _run_for(config: object, llm: object = None) -> object:
    from planexec.events import EventBus
    from planexec.state import RunState
    from planexec.tools import ToolRegistry

    events: list[object] = []
    run = RunState("count the cells", config, ToolRegistry(), EventBus([events.append]), llm=llm)
    return run, events


def test_a_long_movie_gets_a_longer_deadline_when_nobody_chose_one() -> None:
    from planexec.config import Config
    from planexec.llm import ScriptedLLM
    from planexec.llm.bounded import BoundedLLM
    from planexec.tools.calcium_inputs import FIXED_SECONDS, PIXELS_PER_SECOND, _deadline_for_movie
    from planexec.tools.calcium_io import StackMeta

    config = Config.from_env(embedder="none", rag=False)
    assert config.timeout == 600.0
    bounded = BoundedLLM(ScriptedLLM(outputs=[]), config)
    budget = bounded.start_run()
    run, events = _run_for(config, bounded)
    long = StackMeta(frames=10_000, height=512, width=512, dtype="uint8")
    _deadline_for_movie(run, long)
    expected = round(FIXED_SECONDS + 10_000 * 512 * 512 / PIXELS_PER_SECOND, -1)
    assert run.config.timeout == pytest.approx(expected) and expected > 1000
    assert budget.timeout == pytest.approx(expected) and budget.remaining() > 1000  # the model's calls too
    said = long.describe()["deadline"]
    assert said.startswith(f"{expected:g} s, not the default 600 s") and "--timeout" in said
    assert [e.message for e in events if e.kind == "log"] == [f"the run's deadline is {said}"]

    for chosen, frames in ((Config.from_env(embedder="none", rag=False, timeout=900), 10_000), (config, 2000)):
        meta = StackMeta(frames=frames, height=512, width=512, dtype="uint8")
        run, events = _run_for(chosen)
        _deadline_for_movie(run, meta)  # the user's deadline, or a movie the default covers
        assert run.config.timeout == chosen.timeout and "deadline" not in meta.describe() and not events
