"""Malformed eval suites are refused when loaded (exit 2, file:line), before any agent runs; a
garbled checkpoint is one line; Ctrl-C names the run folder and the resume command."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from planexec.checkpoint import VERSION
from planexec.cli import cli as planexec_cli
from tests.reliability.conftest import PLANEXEC, cli, cli_env, record, unclear

GOOD_POINT = '[[cases.points]]\ntype = "keyword"\nparams = { keywords = ["cells"] }\n'
BAD_POINTS = {
    "unknown validator": ('[[cases.points]]\ntype = "keywrod"\nparams = { keywords = ["x"] }\n', "unknown validator"),
    "string weight": ('[[cases.points]]\ntype = "keyword"\nweight = "heavy"\nparams = { keywords = ["x"] }\n', "weight"),
    "point without a type": ('[[cases.points]]\nparams = { keywords = ["x"] }\n', "no type"),
    "unknown depends_on": ('[[cases.points]]\ntype = "keyword"\ndepends_on = "nothing"\nparams = { keywords = ["x"] }\n',
                           "depends_on"),
    "bad target": ('[[cases.points]]\ntype = "keyword"\non = "answers.x"\nparams = { keywords = ["x"] }\n', "'on'"),
    "params not a table": ('[[cases.points]]\ntype = "keyword"\nparams = 3\n', "params"),
    "empty chain": ('[[cases.points]]\ntype = "chain"\nsteps = []\n', "chain"),
}


def _suite(tmp_path: Path, bad: str) -> tuple[Path, int]:
    text = f'name = "t"\n\n[[cases]]\nid = "c1"\nrequest = "say hello"\n{GOOD_POINT}\n{bad}'
    path = tmp_path / "suite.toml"
    path.write_text(text)
    return path, text.splitlines().index("[[cases.points]]", 6) + 1 + 1 + (0 if not bad else 0)


@pytest.mark.parametrize("kind", list(BAD_POINTS))
def test_malformed_suite_is_refused_before_running(kind: str, tmp_path: Path) -> None:
    bad, words = BAD_POINTS[kind]
    path, _ = _suite(tmp_path, bad)
    line = path.read_text().splitlines().index("[[cases.points]]", 8) + 1
    result = CliRunner().invoke(planexec_cli, ["eval", str(path), "--llm", "none",
                                               "--report-dir", str(tmp_path / "rep")])
    record(f"malformed suite: {kind}", unclear=int(result.exit_code != 2 or "Traceback" in result.output))
    assert result.exit_code == 2, result.output
    assert words in result.output and f"{path}:{line}" in result.output
    assert not (tmp_path / "rep").exists(), "the agent ran before the suite was checked"


def test_malformed_suite_in_a_real_subprocess(tmp_path: Path) -> None:
    path, _ = _suite(tmp_path, BAD_POINTS["unknown validator"][0])
    done = cli("eval", str(path), "--llm", "none", env=cli_env(tmp_path / "home", tmp_path / "outs"))
    assert done.returncode == 2 and not unclear(done), done.stderr


@pytest.mark.parametrize("damage", ["binary garbage", "json but not objects", "steps of the wrong shape",
                                    "missing array file", "plan that no longer parses"])
def test_garbled_checkpoint_is_one_line(damage: str, tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    journal = run_dir / "checkpoint.jsonl"
    header = {"version": VERSION, "finished": False, "header": {"request": "r", "files": [], "images": None},
              "plan": {"steps": [{"step_num": 1, "goal": "g", "primary_tools": ["python_coder"]}]}}
    if damage == "binary garbage":
        journal.write_bytes(b"\xff\xfe\x00garbage\n" * 20)
    elif damage == "json but not objects":
        journal.write_text("1\n[2]\n\"x\"\n")
    elif damage == "steps of the wrong shape":
        journal.write_text(json.dumps(header | {"steps": [{"step": 3}]}) + "\n")
    elif damage == "missing array file":
        journal.write_text(json.dumps(header | {"state": {"a": {"__ndarray__": "gone.npy"}}}) + "\n")
    else:
        journal.write_text(json.dumps(header | {"plan": {"steps": [{"step_num": 1}]}}) + "\n")
    result = CliRunner().invoke(planexec_cli, ["resume", str(run_dir)])
    record(f"garbled checkpoint: {damage}", unclear=int(result.exit_code != 2 or "Traceback" in result.output))
    assert result.exit_code == 2, result.output
    assert str(journal) in result.output or str(run_dir) in result.output


@pytest.mark.slow
def test_ctrl_c_names_the_run_folder_and_the_resume_command(tmp_path: Path, demo_images: Path) -> None:
    env = cli_env(tmp_path / "home", tmp_path / "outs")
    assert cli("capabilities", "list", env=env).returncode == 0
    proc = subprocess.Popen([PLANEXEC, "run", "Count the cells", "--images", str(demo_images)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd="/")
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("step 1"):
            break
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    run_dir = next((tmp_path / "outs").iterdir())
    record("Ctrl-C during a run", unclear=int(proc.returncode != 130 or "Traceback" in err))
    assert proc.returncode == 130, err
    assert f"planexec resume {run_dir}" in err and "Traceback" not in err
    resumed = cli("resume", str(run_dir), "--json", env=env)
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["status"] == "succeeded"


def test_zero_filled_npy_is_named_and_leaves_no_run_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLANEXEC_EMBEDDER", "none")
    stack = tmp_path / "movie.npy"
    stack.write_bytes(b"\0" * (1 << 20))
    outs = tmp_path / "outs"
    result = CliRunner().invoke(planexec_cli, ["run", "Count the cells", "--images", str(stack),
                                               "--output", str(outs)])
    record("bad input: zero-filled .npy", unclear=int(result.exit_code != 2 or "allow_pickle" in result.output))
    assert result.exit_code == 2, result.output
    assert "not a NumPy .npy array" in result.output and "allow_pickle" not in result.output
    assert not outs.exists() or not any(outs.iterdir()), "a rejected input left a run folder behind"
