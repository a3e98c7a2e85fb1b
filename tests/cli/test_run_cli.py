"""`planexec run`, `planexec tools`, `--version` through click's runner, and once as a real process."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from planexec import __version__
from planexec.cli import cli
from tests.core.helpers import REPO, SALES, mean_revenue

OFFLINE = {"PLANEXEC_EMBEDDER": "none", "PLANEXEC_RAG": "0"}
SALES_REQUEST = "Analyze data/examples/sales.csv and tell me the average revenue"


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)


def invoke(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), env={**OFFLINE, **(env or {})}, catch_exceptions=False)


def error_lines(result: Result) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.startswith("Error:")]


def test_run_prints_plain_lines_and_the_answer() -> None:
    r = invoke("run", SALES_REQUEST, "--llm", "none")
    assert r.exit_code == 0, r.output
    out = r.stdout
    first, second = out.splitlines()[:2]
    assert first.startswith("planexec: starting")  # printed before the library loads (bench_startup times it)
    assert second.startswith("plan: 1. ") and "[describe_table]" in out
    assert "describe_table ok" in out and "step 1 succeeded" in out
    assert f"{mean_revenue():,.2f}" in out
    assert "Report: " in out and "report.md" in out
    assert "\x1b[" not in out  # not a terminal: no live tree, no escape codes


def test_run_json_prints_only_the_run_result(tmp_path: Path) -> None:
    r = invoke("run", SALES_REQUEST, "--llm", "none", "--json", "--output", str(tmp_path / "out"))
    assert r.exit_code == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["status"] == "succeeded"
    assert data["results"]["mean_revenue"] == pytest.approx(mean_revenue())
    assert Path(data["output_dir"]).parent == tmp_path / "out"
    assert (Path(data["output_dir"]) / "report.json").exists()


def test_a_missing_file_is_one_error_line_and_exit_2() -> None:
    r = invoke("run", "describe it", "--file", "no/such/file.csv", "--llm", "none")
    assert r.exit_code == 2
    assert error_lines(r) == ["Error: file not found: no/such/file.csv; check the path given with --file"]
    assert "Traceback" not in r.output


def test_verbose_adds_the_traceback() -> None:
    r = invoke("run", "describe it", "--file", "no/such/file.csv", "--llm", "none", "-v")
    assert r.exit_code == 2 and "Traceback" in r.stderr and error_lines(r)


def test_openai_without_a_key_names_the_variable() -> None:
    r = invoke("run", "hello", "--llm", "openai")
    assert r.exit_code == 2
    (line,) = error_lines(r)
    assert "OPENAI_API_KEY" in line and "--llm none" in line


def test_anthropic_without_a_key_names_the_variable() -> None:
    r = invoke("run", "hello", "--llm", "anthropic")
    assert r.exit_code == 2 and "ANTHROPIC_API_KEY" in error_lines(r)[0]


def test_a_cyclic_plan_file_is_refused_naming_the_cycle(tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    path.write_text(json.dumps([
        {"step_num": 1, "goal": "a", "primary_tools": ["describe_table"], "depends_on": [2]},
        {"step_num": 2, "goal": "b", "primary_tools": ["describe_table"], "depends_on": [1]},
    ]))
    r = invoke("run", "x", "--plan", str(path), "--llm", "none")
    assert r.exit_code == 2
    (line,) = error_lines(r)
    assert "dependency cycle: 1 -> 2 -> 1" in line


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("{not json", "is not valid JSON"),
        (json.dumps([{"step_num": 1, "goal": "a", "primary_tools": ["web_search"]}]), "unknown tool(s) ['web_search']"),
        (json.dumps([{"step_num": 1, "goal": "a", "primary_tools": ["describe_table"], "depends_on": [7]}]),
         "step 1 depends on step 7, which does not exist"),
        (json.dumps({"steps": [{"step_num": 1, "goal": "a", "primary_tools": 3}]}), "must be a list of names"),
    ],
)
def test_bad_plan_files_are_one_line_errors(tmp_path: Path, content: str, expected: str) -> None:
    path = tmp_path / "plan.json"
    path.write_text(content)
    r = invoke("run", "x", "--plan", str(path), "--llm", "none")
    assert r.exit_code == 2 and len(error_lines(r)) == 1 and expected in error_lines(r)[0]


def test_a_good_plan_file_runs_without_planning(tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    path.write_text(json.dumps([{"step_num": 1, "goal": "Describe the sales table", "primary_tools": ["describe_table"],
                                 "args": {"path": str(SALES)}}]))
    r = invoke("run", "describe", "--plan", str(path), "--llm", "none", "--json")
    data = json.loads(r.stdout)
    assert r.exit_code == 0 and data["plan"]["planner"] == "" and data["steps"][0]["output"]["rows"] == 1000


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_unreachable_base_url_fails_fast_and_says_so() -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    r = invoke("run", "compute the spectral entropy of each trace", "--llm", "openai", "--base-url", url,
               env={"PLANEXEC_LLM_TIMEOUT": "2", "PLANEXEC_LLM_MAX_RETRIES": "0"})
    assert r.exit_code == 1
    text = r.output
    assert f"error: cannot reach OpenAI at {url}" in text and "check the server or the --base-url" in text
    assert "Traceback" not in text and "failed" in text


def test_tools_list_and_show() -> None:
    r = invoke("tools", "list", "--json")
    assert r.exit_code == 0
    names = {t["name"]: t for t in json.loads(r.stdout)}
    assert names["describe_table"]["type"] == "data" and "properties" in names["describe_table"]["input_schema"]
    r = invoke("tools", "list")
    assert r.exit_code == 0 and "describe_table" in r.stdout
    r = invoke("tools", "show", "describe_table")
    assert r.exit_code == 0 and r.stdout.startswith("describe_table [data]")
    r = invoke("tools", "show", "describe_tabel")
    assert r.exit_code == 2 and "Did you mean describe_table?" in error_lines(r)[0]


def test_version() -> None:
    r = invoke("--version")
    assert r.exit_code == 0 and r.stdout.strip() == f"planexec, version {__version__}"


def test_real_subprocess_json_parses(tmp_path: Path) -> None:
    env = {**os.environ, **OFFLINE, "PLANEXEC_OUTPUT_ROOT": str(tmp_path)}
    proc = subprocess.run(
        [sys.executable, "-c", "from planexec.cli import main; main()", "run", SALES_REQUEST, "--llm", "none", "--json"],
        capture_output=True, text=True, cwd=REPO, env=env, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["status"] == "succeeded"
    assert data["results"]["mean_revenue"] == pytest.approx(mean_revenue())
    assert Path(data["output_dir"]).parent == tmp_path


def test_approve_without_a_terminal_is_refused_clearly() -> None:
    r = invoke("run", SALES_REQUEST, "--llm", "none", "--approve")
    assert r.exit_code == 2
    (line,) = error_lines(r)
    assert line.startswith("Error: --approve needs an interactive terminal")


def test_a_run_past_its_deadline_fails_honestly_and_says_how_to_give_it_more_time(tmp_path: Path) -> None:
    r = invoke("run", SALES_REQUEST, "--llm", "none", "--timeout", "0.000001", "--output", str(tmp_path / "out"))
    assert r.exit_code == 1, r.output
    assert "deadline (1e-06 s) passed after 0 of 1 step(s)" in r.stdout and "raise --timeout" in r.stdout
