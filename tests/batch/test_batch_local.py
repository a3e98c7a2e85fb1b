"""`planexec batch` on an embedded local Ray (two CPUs), shared by every test of this module."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from planexec import Config, Orchestrator
from planexec.batch import BatchJob, run_batch
from planexec.cli import cli
from planexec.errors import UsageError
from planexec.recordings import BASE_MEMORY, Recording, discover, task_memory
from tests.batch import faults

ray = pytest.importorskip("ray")
REQUEST = "Count the cells in the images"
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The library every run of this module uses (created by the first one)."""
    return tmp_path_factory.mktemp("batchhome") / "home"


@pytest.fixture(scope="module")
def local_ray(home: Path) -> Iterator[None]:
    import cloudpickle

    cloudpickle.register_pickle_by_value(faults)
    ray.init(num_cpus=2, include_dashboard=False, object_store_memory=80 * 2**20, log_to_driver=False,
             configure_logging=False, runtime_env={"env_vars": {"PLANEXEC_HOME": str(home), "HF_HUB_OFFLINE": "1"}})
    yield
    ray.shutdown()
    cloudpickle.unregister_pickle_by_value(faults)


@pytest.fixture()
def broken(tmp_path: Path) -> Path:
    """A 'recording' that is not a movie: the run fails on it, the batch goes on."""
    path = tmp_path / "broken.npy"
    np.save(path, np.zeros(3))
    return path


def job(out: Path, home: Path, **kw: object) -> BatchJob:
    return BatchJob(REQUEST, out, {"home": home}, **kw)  # type: ignore[arg-type]


def test_batch_rows_reports_failures_and_resume(local_ray: None, home: Path, demo_sessions: Path,
                                                broken: Path, tmp_path: Path) -> None:
    recordings = [*discover(str(demo_sessions / "*")), Recording("broken", str(broken))]
    out = tmp_path / "batch"
    seen: list[tuple[str, int, int]] = []
    result = run_batch(job(out, home), recordings, on_row=lambda r, done, total: seen.append((r.name, done, total)))

    by_name = {r.name: r for r in result.rows}
    assert [r.name for r in result.rows] == ["s1", "s2", "s3", "s4", "broken"]
    assert sorted(d for _, d, _ in seen) == [1, 2, 3, 4, 5] and {t for _, _, t in seen} == {5}
    assert by_name["broken"].status in ("error", "failed") and by_name["broken"].error
    for name in ("s1", "s2", "s3", "s4"):
        row = by_name[name]
        truth = json.loads((demo_sessions / name / "ground_truth.json").read_text())["n_cells"]
        assert row.status == "succeeded", row.error
        assert row.figures["n_cells"] == truth
        assert (Path(row.output_dir) / "report.json").is_file()  # each keeps its own run folder
    # warm workers: two processes served five recordings, the later ones without a cold start
    assert len({r.worker_pid for r in result.rows}) <= 2 and sum(r.warm for r in result.rows) >= 3
    # how much faster warm runs are is measured in benchmarks/bench_batch.py, not asserted here

    with (out / "batch.csv").open() as fh:
        lines = fh.read().splitlines()
    assert lines[0].startswith("name,images,status") and "n_cells" in lines[0] and len(lines) == 6
    assert (out / "summary.png").stat().st_size > 1000
    report = (out / "report.md").read_text()
    assert "4 succeeded" in report and "broken:" in report

    # the same result as a run on its own
    single = Orchestrator(config=Config.from_env(home=home, output_root=tmp_path / "single")).run(
        REQUEST, images=demo_sessions / "s2")
    assert single.results["n_cells"] == by_name["s2"].figures["n_cells"]

    # resume: finished recordings are skipped, the failed one runs again
    again = run_batch(job(out, home), recordings)
    assert again.skipped == 4
    assert [r.seconds for r in again.rows[:4]] == [by_name[n].seconds for n in ("s1", "s2", "s3", "s4")]
    rows_file = (out / "rows.jsonl").read_text().splitlines()
    assert len(rows_file) == 1 + 5 + 1  # header, first pass, the failed recording again

    with pytest.raises(UsageError, match="another request"):
        run_batch(BatchJob("Detect cells", out, {"home": home}), recordings)


def test_a_recording_no_node_can_hold_is_reported(local_ray: None, home: Path, tmp_path: Path) -> None:
    big = tmp_path / "big.npy"
    np.lib.format.open_memmap(big, mode="w+", dtype=np.float32, shape=(4000, 512, 512)).flush()
    assert task_memory(big) > BASE_MEMORY + 20 * 2**30
    result = run_batch(job(tmp_path / "b", home), [Recording("big", str(big), task_memory(big))])
    assert result.rows[0].status == "error" and "largest node offers" in result.rows[0].error


def test_cli_batch_exit_codes_and_progress(local_ray: None, home: Path, demo_sessions: Path, broken: Path,
                                           tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLANEXEC_HOME", str(home))
    runner = CliRunner()
    ok = runner.invoke(cli, ["batch", REQUEST, "--images-glob", str(demo_sessions / "s[12]"),
                             "--output", str(tmp_path / "ok")])
    assert ok.exit_code == 0, ok.output
    assert "2/2 recordings finished" in ok.output and "batch.csv" in ok.output
    manifest = tmp_path / "m.csv"
    manifest.write_text(f"images,animal\n{demo_sessions / 's3'},m1\n{broken},m2\n")
    part = runner.invoke(cli, ["batch", REQUEST, "--manifest", str(manifest), "--output", str(tmp_path / "part")])
    assert part.exit_code == 4, part.output
    header = (tmp_path / "part" / "batch.csv").read_text().splitlines()[0]
    assert "animal" in header


def test_eval_suite_on_ray(local_ray: None, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.conftest import REPO

    monkeypatch.setenv("PLANEXEC_HOME", str(home))
    reports = tmp_path / "rep"
    result = CliRunner().invoke(cli, ["eval", str(REPO / "data" / "suites" / "sales.toml"), "--ray", "--llm", "none",
                                      "--report-dir", str(reports)])
    assert result.exit_code == 0, result.output
    assert "PASSED: 2/2 cases passed" in result.output
    # the same four reports as without --ray, with the runs' results in them
    assert sorted(p.name for p in reports.iterdir() if p.is_file()) == [
        "sales.csv", "sales.json", "sales.junit.xml", "sales.md"]
    data = json.loads((reports / "sales.json").read_text())
    assert data["cases"][0]["results"]["mean_revenue"] == pytest.approx(3674.47983)


def test_crashing_worker_is_retried_then_reported(local_ray: None, home: Path, demo_sessions: Path,
                                                  tmp_path: Path) -> None:
    s1 = str(demo_sessions / "s1")
    recordings = [Recording("crash-once", s1), Recording("crash-always", s1), Recording("fine", str(demo_sessions / "s3"))]
    result = run_batch(job(tmp_path / "b", home, retries=1, run_one=faults.crashing), recordings)
    rows = {r.name: r for r in result.rows}
    assert rows["crash-once"].status == "succeeded"  # its retry ran on a fresh worker
    assert rows["fine"].status == "succeeded"
    assert rows["crash-always"].status == "crashed"
    assert "2 time(s)" in rows["crash-always"].error and "Worker" in rows["crash-always"].error
