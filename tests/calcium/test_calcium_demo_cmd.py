"""`planexec demo-data`: writes frames and ground truth; user mistakes give one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from planexec.cli import cli
from planexec.tools.calcium_io import load_stack


def test_demo_data_png(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    result = CliRunner().invoke(cli, ["demo-data", str(out), "--frames", "8", "--cells", "3", "--size", "48"])
    assert result.exit_code == 0, result.output
    assert "Wrote 8 PNG frames (48x48, 3 cells" in result.output
    assert len(list(out.glob("frame_*.png"))) == 8
    truth = json.loads((out / "ground_truth.json").read_text())
    assert truth["n_cells"] == 3 and len(truth["cell_centroids"]) == 3
    assert load_stack(out)[0].shape == (8, 48, 48)


def test_demo_data_tiff_with_noise_and_seed(tmp_path: Path) -> None:
    args = ["demo-data", str(tmp_path), "--frames", "6", "--size", "48", "--cells", "2",
            "--format", "tiff", "--noise", "0.05", "--seed", "4", "--bits", "8"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    truth = json.loads((tmp_path / "ground_truth.json").read_text())
    assert truth["parameters"]["noise"] == 0.05 and truth["parameters"]["seed"] == 4
    assert truth["files"] == ["movie.tif"] and truth["bits"] == 8


def test_demo_data_errors_are_one_line(tmp_path: Path) -> None:
    (tmp_path / "mine.txt").write_text("x")
    result = CliRunner().invoke(cli, ["demo-data", str(tmp_path)])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        f"Error: {tmp_path} is not empty; pass --force to write into it or choose a new folder"
    ]
    result = CliRunner().invoke(cli, ["demo-data", str(tmp_path / "new"), "--cells", "500", "--size", "48"])
    assert result.exit_code == 2 and "fewer --cells" in result.output
    result = CliRunner().invoke(cli, ["demo-data", str(tmp_path / "new"), "--noise", "-1"])
    assert result.exit_code == 2
