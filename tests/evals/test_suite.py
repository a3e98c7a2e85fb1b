"""Suites: loading TOML/JSON, running cases (in parallel), thresholds, errors apart from failures, reports."""

from __future__ import annotations

import csv
import json
import threading
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from planexec.errors import InputError, UsageError
from planexec.evals import (
    Case,
    SuiteError,
    load_suite,
    run_suite,
    suite_from_dict,
    write_suite_reports,
)
from planexec.llm import ScriptedLLM
from planexec.models import Plan, PlanStep, RunResult, StepResult, ToolAttempt

REPO = Path(__file__).resolve().parents[2]

SUITE_TOML = """
name = "toy"
threshold = 0.5

[[points]]
text = "finished"
type = "status"

[[cases]]
id = "count"
request = "Count the cells"
threshold = 1.0
  [[cases.points]]
  text = "n_cells is 12"
  type = "numeric"
  on = "results.n_cells"
  params = { value = 12 }
  metric = "accuracy"

[[cases]]
id = "words"
request = "Say hello"
threshold = 0.6
  [[cases.points]]
  text = "greets"
  type = "keyword"
  params = { keywords = ["hello"] }
  metric = "style"
  [[cases.points]]
  text = "is short"
  type = "length"
  params = { max = 3 }
  weight = 0.5

[[cases]]
id = "crash"
request = "Crash please"
  [[cases.points]]
  type = "contains"
  params = { value = "x" }
"""


def fake_agent(case: Case) -> RunResult:
    """A deterministic agent: answers by request, and raises on 'Crash'."""
    if case.request.startswith("Crash"):
        raise RuntimeError("the agent fell over")
    step = PlanStep(1, case.request, ("describe_table",))
    answers = {"Count the cells": ("I found 12 cells.", {"n_cells": 12}),
               "Say hello": ("hello there, dear friend", {})}
    answer, results = answers[case.request]
    return RunResult(case.request, Plan((step,)), [StepResult(step, "succeeded", (ToolAttempt("describe_table", {}, True),))],
                     answer, "succeeded", results=results, timings={"total": 0.01})


@pytest.fixture
def suite_file(tmp_path: Path) -> Path:
    path = tmp_path / "toy.toml"
    path.write_text(SUITE_TOML)
    return path


def test_load_toml_and_json_alike(suite_file: Path, tmp_path: Path) -> None:
    import tomllib

    toml_suite = load_suite(suite_file)
    json_path = tmp_path / "toy.json"
    json_path.write_text(json.dumps(tomllib.loads(SUITE_TOML)))
    json_suite = load_suite(json_path)
    assert [c.id for c in toml_suite.cases] == ["count", "words", "crash"]
    assert toml_suite.cases == json_suite.cases and toml_suite.threshold == 0.5
    assert toml_suite.cases[0].points[0]["type"] == "status"  # shared points come first
    assert len(toml_suite.cases[1].points) == 3


@pytest.mark.parametrize(("data", "words"), [
    ([], "top level"),
    ({"cases": []}, "no cases"),
    ({"cases": [{"points": [{"type": "x"}]}]}, "no request"),
    ({"cases": [{"request": "r"}]}, "no evaluation points"),
    ({"cases": [{"request": "r", "points": [{}], "threshold": 2}]}, "threshold"),
    ({"cases": [{"id": "a", "request": "r", "points": [{}]}, {"id": "a", "request": "s", "points": [{}]}]}, "duplicate"),
    ({"cases": [{"request": "r", "points": [{}], "files": 3}]}, "files"),
])
def test_bad_suites_name_the_fix(data: object, words: str) -> None:
    with pytest.raises(SuiteError, match=words):
        suite_from_dict(data)


def test_missing_or_malformed_suite_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not exist"):
        load_suite(tmp_path / "none.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("name = ")
    with pytest.raises(UsageError, match="not valid TOML"):
        load_suite(bad)
    yaml = tmp_path / "s.yaml"
    yaml.write_text("x")
    with pytest.raises(UsageError, match=".toml or .json"):
        load_suite(yaml)


def test_run_suite_scores_thresholds_and_errors(suite_file: Path) -> None:
    seen: list[str] = []
    result = run_suite(load_suite(suite_file), fake_agent, on_case=lambda c: seen.append(c.case.id))
    by_id = {c.case.id: c for c in result.cases}
    assert sorted(seen) == ["count", "crash", "words"]
    assert by_id["count"].outcome == "PASS" and by_id["count"].score == 1.0
    # status 1 + keyword 1 pass, length 0.5 fails: 2/2.5 = 0.8 >= 0.6
    assert by_id["words"].outcome == "PASS" and by_id["words"].score == pytest.approx(0.8)
    assert by_id["crash"].outcome == "ERROR" and "fell over" in by_id["crash"].error
    assert by_id["crash"].details == []
    assert result.count("PASS") == 2 and result.count("ERROR") == 1
    assert result.pass_rate == pytest.approx(2 / 3) and result.passed  # threshold 0.5
    assert result.metrics() == {"accuracy": 1.0, "style": 1.0}


def test_suite_below_threshold_fails(suite_file: Path) -> None:
    suite = load_suite(suite_file)
    strict = suite_from_dict({**_raw(), "threshold": 1.0}, suite_file)
    assert run_suite(suite, fake_agent).passed
    assert not run_suite(strict, fake_agent).passed


def _raw() -> dict:
    import tomllib

    return tomllib.loads(SUITE_TOML)


def test_missing_inputs_are_case_errors(tmp_path: Path) -> None:
    data = {"cases": [{"id": "a", "request": "Count the cells", "files": ["nowhere.csv"], "points": [{"type": "status"}]}]}
    suite = suite_from_dict(data, tmp_path / "s.toml")
    result = run_suite(suite, fake_agent)
    assert result.cases[0].outcome == "ERROR" and "nowhere.csv" in result.cases[0].error


def test_cases_run_in_parallel_and_keep_order() -> None:
    active, peak = 0, 0
    lock = threading.Lock()

    def slow_agent(case: Case) -> RunResult:
        nonlocal active, peak
        with lock:
            active += 1
            peak = max(peak, active)
        time.sleep(0.05)
        with lock:
            active -= 1
        return RunResult(case.request, None, [], case.request, "succeeded")

    data = {"cases": [{"id": f"c{i}", "request": f"r{i}", "points": [{"type": "contains", "params": {"value": f"r{i}"}}]}
                      for i in range(8)]}
    result = run_suite(suite_from_dict(data), slow_agent, concurrency=4)
    assert [c.case.id for c in result.cases] == [f"c{i}" for i in range(8)]
    assert all(c.passed for c in result.cases) and peak > 1


def test_judge_cache_makes_a_repeated_suite_run_free(tmp_path: Path) -> None:
    data = {"cases": [{"id": f"c{i}", "request": f"r{i}",
                       "points": [{"type": "llm_rubric", "params": {"rubric": "Is polite."}}]} for i in range(3)]}
    suite = suite_from_dict(data)

    def agent(case: Case) -> RunResult:
        return RunResult(case.request, None, [], f"answer to {case.request}", "succeeded")

    judge = ScriptedLLM(['{"pass": true, "score": 1, "reason": "polite"}'] * 3)
    first = run_suite(suite, agent, judge=judge, cache_dir=tmp_path, concurrency=3)
    assert first.judge_calls == 3 and len(judge.calls) == 3 and first.passed
    silent = ScriptedLLM([])
    second = run_suite(suite, agent, judge=silent, cache_dir=tmp_path, concurrency=3)
    assert second.judge_calls == 0 and silent.calls == [] and second.passed


def test_four_reports(suite_file: Path, tmp_path: Path) -> None:
    result = run_suite(load_suite(suite_file), fake_agent)
    paths = write_suite_reports(result, tmp_path / "reports")
    assert {p.name for p in paths.values()} == {"toy.csv", "toy.md", "toy.json", "toy.junit.xml"}

    rows = list(csv.DictReader(paths["csv"].read_text().splitlines()))
    assert {r["status"] for r in rows} == {"PASS", "FAIL", "ERROR"}
    assert [r for r in rows if r["status"] == "ERROR"][0]["case_id"] == "crash"

    data = json.loads(paths["json"].read_text())
    assert data["counts"] == {"PASS": 2, "FAIL": 0, "ERROR": 1} and data["passed"] is True
    assert data["cases"][0]["checks"][1]["note"].startswith("Found 12")

    md = paths["markdown"].read_text()
    assert "# Suite toy: PASSED" in md and "## Errors" in md and "fell over" in md

    root = ET.parse(paths["junit"]).getroot()
    suite = root.find("testsuite")
    assert suite is not None and suite.get("tests") == "3" and suite.get("errors") == "1" and suite.get("failures") == "0"
    cases = {c.get("name"): c for c in suite.findall("testcase")}
    assert cases["crash"].find("error") is not None
    assert cases["words"].find("failure") is None and "is short" in (cases["words"].findtext("system-out") or "")


def test_shipped_sales_suite_loads() -> None:
    suite = load_suite(REPO / "data" / "suites" / "sales.toml")
    assert suite.cases[0].files == ((REPO / "data" / "examples" / "sales.csv").resolve(),)
    assert suite.cases[0].request == "Analyze data/examples/sales.csv and tell me the average revenue"
