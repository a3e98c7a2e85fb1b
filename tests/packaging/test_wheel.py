"""A wheel is the product: built from this tree, installed into a fresh virtual environment
outside the repository, it runs the offline demo and a README example from another folder."""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.slow


def _pip(python: Path, *args: str, cwd: Path) -> None:
    cmd = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *args]
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=1500)
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out), str(REPO),
                           "--build-constraint", str(REPO / "build-constraints.txt")],
                          capture_output=True, text=True, timeout=600, cwd=out)
    assert done.returncode == 0, done.stderr[-3000:]
    (found,) = out.glob("planexec-*.whl")
    return found


def test_the_wheel_holds_the_runtime_data_and_no_top_level_modules(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith((".dist-info", ".data"))}
    assert tops == {"planexec"}, tops
    for needed in ("planexec/data/capabilities/count_cells.json", "planexec/data/papers/cell_segmentation.md",
                   "planexec/data/calibration/reuse_pairs.json", "planexec/data/suites/calcium.toml",
                   "planexec/data/curves.npy", "planexec/data/images/ground_truth.json"):
        assert needed in names, needed
    assert not [n for n in names if "/data/demo/" in n]


@pytest.mark.timeout(900)
def test_installed_wheel_runs_the_demo_and_a_readme_example_elsewhere(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    # Dependencies come from this test's environment through a path entry (its .pth files, among
    # them the editable install's finder, are not processed), so the fresh venv costs seconds,
    # not a 3 GB install; planexec itself is only the wheel's copy, and pip check proves that
    # the wheel's declared requirements are met.
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                               capture_output=True, text=True, check=True).stdout.strip())
    deps = Path(subprocess.run([sys.executable, "-c", "import numpy, os; print(os.path.dirname(os.path.dirname(numpy.__file__)))"],
                               capture_output=True, text=True, check=True).stdout.strip())
    (site / "zz_dependencies.pth").write_text(f"{deps}\n")
    _pip(python, "--no-deps", str(wheel), cwd=tmp_path)
    check = subprocess.run([str(python), "-m", "pip", "check"], capture_output=True, text=True, cwd=tmp_path)
    assert "planexec" not in check.stdout, check.stdout
    work = tmp_path / "elsewhere"
    work.mkdir()
    env = {**{k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PLANEXEC", "VIRTUAL_ENV"))},
           "HF_HUB_OFFLINE": "1", "PLANEXEC_HOME": str(tmp_path / "home"), "PATH": f"{venv / 'bin'}:/usr/bin:/bin"}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(args, cwd=work, env=env, capture_output=True, text=True, timeout=600)

    where = run(str(python), "-c", "import planexec.data, planexec.tools as t; print(planexec.data.__file__, t.__file__)")
    assert where.stdout.count(str(venv)) == 2, where.stdout + where.stderr
    assert run(str(venv / "bin" / "planexec"), "demo-data", "demo").returncode == 0
    done = run(str(venv / "bin" / "planexec"), "run", "Count the cells in the images", "--images", "demo", "--json")
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout)
    truth = json.loads((work / "demo" / "ground_truth.json").read_text())
    assert result["status"] == "succeeded"
    assert result["results"]["n_cells"] == truth["n_cells"]

    block = re.findall(r"```python\n(.*?)```", (REPO / "README.md").read_text(encoding="utf-8"), re.S)[0]
    (work / "data" / "examples").mkdir(parents=True)
    (work / "data" / "examples" / "sales.csv").write_bytes((REPO / "data" / "examples" / "sales.csv").read_bytes())
    (work / "example.py").write_text(block)
    done = run(str(python), "example.py")
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines()[0] == "succeeded"
    with open(work / "data" / "examples" / "sales.csv", newline="") as fh:
        revenue = [float(row["revenue"]) for row in csv.DictReader(fh)]
    assert float(done.stdout.splitlines()[1]) == pytest.approx(sum(revenue) / len(revenue), abs=0.01)
