"""load_stack: every accepted input form, and a clear InputError for every user mistake."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import tifffile
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from planexec.errors import InputError
from planexec.tools.calcium_io import load_stack, natural_key


def _write_pngs(folder: Path, frames: np.ndarray, names: list[str] | None = None) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, frame in enumerate(frames):
        path = folder / (names[i] if names else f"frame_{i:03d}.png")
        Image.fromarray(frame).save(path)
        paths.append(path)
    return paths


def _ramp(t: int = 4, h: int = 6, w: int = 5, dtype=np.uint8) -> np.ndarray:
    top = np.iinfo(dtype).max
    values = np.linspace(0, top, t * h * w).reshape(t, h, w)
    return np.rint(values).astype(dtype)


def test_png_folder_8bit_is_unit_float32(tmp_path: Path) -> None:
    raw = _ramp()
    _write_pngs(tmp_path, raw)
    images, meta = load_stack(tmp_path)
    assert images.dtype == np.float32 and images.shape == (4, 6, 5)
    assert images.flags.c_contiguous
    np.testing.assert_allclose(images, raw / 255.0, atol=1e-6)
    assert (meta.frames, meta.height, meta.width, meta.dtype) == (4, 6, 5, "uint8")
    assert len(meta.source_files) == 4 and meta.skipped == []


def test_png_folder_16bit_keeps_full_precision(tmp_path: Path) -> None:
    raw = _ramp(dtype=np.uint16)
    _write_pngs(tmp_path, raw)
    images, meta = load_stack(tmp_path)
    assert meta.dtype == "uint16"
    np.testing.assert_allclose(images, raw / 65535.0, atol=1e-7)


def test_rgb_and_rgba_frames_become_gray(tmp_path: Path) -> None:
    gray = _ramp(t=2)
    rgb = np.repeat(gray[..., None], 3, axis=-1)
    _write_pngs(tmp_path, rgb)
    images, _ = load_stack(tmp_path)
    np.testing.assert_allclose(images, gray / 255.0, atol=1 / 255)
    red = np.zeros((1, 4, 4, 4), dtype=np.uint8)
    red[..., 0], red[..., 3] = 200, 255
    _write_pngs(tmp_path / "rgba", red)
    images, _ = load_stack(tmp_path / "rgba")
    np.testing.assert_allclose(images, 0.299 * 200 / 255, atol=1 / 255)


def test_frames_are_sorted_naturally(tmp_path: Path) -> None:
    names = ["frame10.png", "frame2.png", "frame1.png"]
    frames = np.stack([np.full((3, 3), v, np.uint8) for v in (10, 2, 1)])
    _write_pngs(tmp_path, frames, names)
    images, meta = load_stack(tmp_path)
    assert [Path(p).name for p in meta.source_files] == ["frame1.png", "frame2.png", "frame10.png"]
    np.testing.assert_allclose(images[:, 0, 0] * 255, [1, 2, 10], atol=1e-4)


@given(st.lists(st.integers(0, 10_000), min_size=1, max_size=20, unique=True))
def test_natural_key_orders_by_number(numbers: list[int]) -> None:
    names = [f"img_{n}.png" for n in numbers]
    assert sorted(names, key=natural_key) == [f"img_{n}.png" for n in sorted(numbers)]


def test_corrupted_frame_is_skipped_and_named(tmp_path: Path) -> None:
    _write_pngs(tmp_path, _ramp(t=3))
    (tmp_path / "frame_001.png").write_bytes(b"\x89PNG\r\n\x1a\n not really a png")
    images, meta = load_stack(tmp_path)
    assert images.shape[0] == 2
    assert len(meta.skipped) == 1 and meta.skipped[0].startswith("frame_001.png:")
    assert all("frame_001" not in p for p in meta.source_files)


def test_truncated_frame_is_skipped(tmp_path: Path) -> None:
    paths = _write_pngs(tmp_path, np.random.default_rng(0).integers(0, 255, (3, 32, 32), dtype=np.uint8))
    data = paths[2].read_bytes()
    paths[2].write_bytes(data[: len(data) // 2])
    images, meta = load_stack(tmp_path)
    assert images.shape[0] == 2 and meta.skipped[0].startswith("frame_002.png")


def test_other_files_in_the_folder_are_ignored(tmp_path: Path) -> None:
    _write_pngs(tmp_path, _ramp(t=2))
    (tmp_path / "ground_truth.json").write_text("{}")
    (tmp_path / "notes.txt").write_text("hello")
    images, _ = load_stack(tmp_path)
    assert images.shape[0] == 2


def test_multipage_tiff(tmp_path: Path) -> None:
    raw = _ramp(t=5, dtype=np.uint16)
    tifffile.imwrite(tmp_path / "movie.tif", raw, photometric="minisblack")
    images, meta = load_stack(tmp_path / "movie.tif")
    assert images.shape == (5, 6, 5) and meta.dtype == "uint16"
    np.testing.assert_allclose(images, raw / 65535.0, atol=1e-7)


def test_folder_of_tiffs_concatenates_pages_in_natural_order(tmp_path: Path) -> None:
    raw = _ramp(t=6, dtype=np.uint16)
    tifffile.imwrite(tmp_path / "part10.tif", raw[3:], photometric="minisblack")
    tifffile.imwrite(tmp_path / "part2.tiff", raw[:3], photometric="minisblack")
    images, meta = load_stack(tmp_path)
    assert images.shape == (6, 6, 5) and len(meta.source_files) == 2
    np.testing.assert_allclose(images, raw / 65535.0, atol=1e-7)


@pytest.mark.parametrize("planar", ["contig", "separate"])
def test_rgb_tiff_becomes_gray(tmp_path: Path, planar: str) -> None:
    gray = _ramp(t=1)[0]
    rgb = np.repeat(gray[..., None], 3, -1)
    data = rgb if planar == "contig" else np.moveaxis(rgb, -1, 0)
    tifffile.imwrite(tmp_path / "rgb.tif", data, photometric="rgb", planarconfig=planar)
    images, _ = load_stack(tmp_path / "rgb.tif")
    assert images.shape == (1, 6, 5)
    np.testing.assert_allclose(images[0], gray / 255.0, atol=1 / 255)


def test_npy_float_stack_in_range_is_kept(tmp_path: Path) -> None:
    raw = np.random.default_rng(1).random((12, 8, 8)).astype(np.float64)
    np.save(tmp_path / "movie.npy", raw)
    images, meta = load_stack(tmp_path / "movie.npy")
    assert images.dtype == np.float32 and meta.dtype == "float64"
    np.testing.assert_allclose(images, raw, atol=1e-6)


@settings(max_examples=25, deadline=None)
@given(st.floats(0.5, 1e4), st.floats(-100, 100))
def test_npy_float_stack_out_of_range_lands_in_unit_interval(scale: float, shift: float) -> None:
    import tempfile

    raw = np.random.default_rng(2).random((6, 4, 4)) * scale + shift
    with tempfile.TemporaryDirectory() as tmp:
        np.save(Path(tmp) / "s.npy", raw)
        images, _ = load_stack(Path(tmp) / "s.npy")
    assert images.min() >= 0.0 and images.max() <= 1.0 + 1e-6
    if raw.min() >= 0:  # a pure rescale keeps intensity ratios (and so ΔF/F)
        np.testing.assert_allclose(images / images.max(), raw / raw.max(), rtol=1e-5)


def test_npy_integer_stack(tmp_path: Path) -> None:
    raw = _ramp(t=9, dtype=np.uint16)
    np.save(tmp_path / "s.npy", raw)
    images, _ = load_stack(tmp_path / "s.npy")
    np.testing.assert_allclose(images, raw / 65535.0, atol=1e-7)


# --- errors the user must fix -------------------------------------------------------------


def test_missing_path(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file or folder"):
        load_stack(tmp_path / "nope")


def test_empty_folder(tmp_path: Path) -> None:
    (tmp_path / "readme.txt").write_text("no frames here")
    with pytest.raises(InputError, match="no PNG or TIFF frames"):
        load_stack(tmp_path)


def test_mixed_sizes_name_both_frames(tmp_path: Path) -> None:
    Image.fromarray(np.zeros((8, 8), np.uint8)).save(tmp_path / "a1.png")
    Image.fromarray(np.zeros((8, 9), np.uint8)).save(tmp_path / "a2.png")
    with pytest.raises(InputError, match=r"a2\.png is 8x9 but a1\.png is 8x8"):
        load_stack(tmp_path)


def test_png_and_tiff_mixed_in_one_folder(tmp_path: Path) -> None:
    _write_pngs(tmp_path, _ramp(t=1))
    tifffile.imwrite(tmp_path / "x.tif", _ramp(t=1))
    with pytest.raises(InputError, match="both PNG and TIFF"):
        load_stack(tmp_path)


def test_non_image_file_as_stack(tmp_path: Path) -> None:
    (tmp_path / "data.csv").write_text("a,b\n1,2\n")
    with pytest.raises(InputError, match="not an image stack"):
        load_stack(tmp_path / "data.csv")


def test_garbage_with_an_image_suffix(tmp_path: Path) -> None:
    (tmp_path / "movie.tif").write_text("this is text")
    with pytest.raises(InputError, match="cannot be read"):
        load_stack(tmp_path / "movie.tif")
    (tmp_path / "movie.npy").write_text("this is text")
    with pytest.raises(InputError, match="cannot be read"):
        load_stack(tmp_path / "movie.npy")


def test_single_2d_image_file(tmp_path: Path) -> None:
    _write_pngs(tmp_path, _ramp(t=1))
    with pytest.raises(InputError, match="single 2-D image"):
        load_stack(tmp_path / "frame_000.png")
    np.save(tmp_path / "one.npy", np.zeros((4, 4)))
    with pytest.raises(InputError, match="single 2-D image"):
        load_stack(tmp_path / "one.npy")


def test_single_frame_folder_is_a_one_frame_movie(tmp_path: Path) -> None:
    _write_pngs(tmp_path, _ramp(t=1))
    images, meta = load_stack(tmp_path)
    assert images.shape == (1, 6, 5) and meta.frames == 1


def test_nan_values(tmp_path: Path) -> None:
    raw = np.ones((4, 3, 3))
    raw[1, 1, 1] = np.nan
    np.save(tmp_path / "s.npy", raw)
    with pytest.raises(InputError, match="1 pixels are NaN"):
        load_stack(tmp_path / "s.npy")


def test_every_frame_corrupted(tmp_path: Path) -> None:
    for i in range(2):
        (tmp_path / f"f{i}.png").write_bytes(b"garbage")
    with pytest.raises(InputError, match="none of the 2 frames could be read"):
        load_stack(tmp_path)


def test_wrong_dimensionality(tmp_path: Path) -> None:
    np.save(tmp_path / "s.npy", np.zeros((2, 3, 4, 5, 6)))
    with pytest.raises(InputError, match="expected a T×H×W stack"):
        load_stack(tmp_path / "s.npy")
