"""`planexec run --fs/--pixel-size`: checked, carried into the run's record, and degenerate movies refused (exit 2)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import tifffile
from click.testing import CliRunner, Result

from planexec.cli import cli

OFFLINE = {"PLANEXEC_EMBEDDER": "none", "PLANEXEC_RAG": "0"}


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), env=OFFLINE, catch_exceptions=False)


@pytest.mark.parametrize("flag", ["--fs", "--pixel-size"])
def test_non_positive_values_are_usage_errors(flag: str, tmp_path: Path) -> None:
    r = invoke("run", "count the cells", "--images", str(tmp_path), flag, "0")
    assert r.exit_code == 2 and r.stderr.count("\n") == 1 and "must be a positive number" in r.stderr


def test_degenerate_movie_is_refused_before_planning(tmp_path: Path) -> None:
    tifffile.imwrite(tmp_path / "few.tif", np.random.default_rng(0).integers(0, 255, (4, 16, 16)).astype(np.uint8),
                     photometric="minisblack")
    r = invoke("run", "count the cells", "--images", str(tmp_path / "few.tif"), "--llm", "none")
    assert r.exit_code == 2 and "has 4 frame(s)" in r.stderr and "pass the whole recording" in r.stderr


def test_fs_and_pixel_size_reach_the_report(tmp_path: Path) -> None:
    movie = np.random.default_rng(1).integers(0, 255, (30, 24, 24)).astype(np.uint8)
    tifffile.imwrite(tmp_path / "m.tif", movie, imagej=True, metadata={"finterval": 0.5, "axes": "TYX"})
    r = invoke("run", "compute the mean projection", "--images", str(tmp_path / "m.tif"), "--llm", "none",
               "--json", "--output", str(tmp_path / "out"), "--pixel-size", "0.75")
    assert r.exit_code in (0, 1), r.stderr
    folder = Path(json.loads(r.stdout)["output_dir"])
    inputs = json.loads((folder / "report.json").read_text())["inputs"]
    assert inputs["fs"] == 2.0 and inputs["fs_source"] == "TIFF ImageJ finterval"
    assert inputs["pixel_size_um"] == 0.75 and inputs["pixel_size_source"] == "given (--pixel-size / params)"


@pytest.mark.slow
def test_constant_movie_in_a_real_process_ends_with_one_line(tmp_path: Path) -> None:
    np.save(tmp_path / "flat.npy", np.full((20, 16, 16), 9, np.uint8))
    done = subprocess.run([sys.executable, "-c", "from planexec.cli import main; main()", "run", "count the cells",
                           "--images", str(tmp_path / "flat.npy"), "--llm", "none"], capture_output=True, text=True,
                          timeout=120, env={**os.environ, **OFFLINE})
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "every pixel of every frame has the value" in done.stderr
