"""`planexec eval`: runs a suite offline through the real orchestrator, writes four reports, exits by threshold."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from planexec.cli import cli

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_sales_suite_passes_offline(tmp_path: Path) -> None:
    reports = tmp_path / "reports"
    result = CliRunner().invoke(
        cli, ["eval", str(REPO / "data" / "suites" / "sales.toml"), "--report-dir", str(reports),
              "--llm", "none", "--concurrency", "2"],
        env={"HF_HUB_OFFLINE": "1"},
    )
    assert result.exit_code == 0, result.output
    assert "PASSED: 2/2 cases passed" in result.output
    assert sorted(p.name for p in reports.iterdir() if p.is_file()) == [
        "sales.csv", "sales.json", "sales.junit.xml", "sales.md"]
    data = json.loads((reports / "sales.json").read_text())
    revenue = data["cases"][0]
    assert revenue["results"]["mean_revenue"] == pytest.approx(3674.47983)
    assert data["metrics"]["accuracy"] == 1.0


def test_failing_suite_exits_non_zero(tmp_path: Path) -> None:
    suite = tmp_path / "bad.json"
    suite.write_text(json.dumps({
        "name": "bad",
        "cases": [{"id": "missing-input", "request": "Describe the table", "files": ["absent.csv"],
                   "points": [{"type": "status"}]}],
    }))
    result = CliRunner().invoke(cli, ["eval", str(suite), "--report-dir", str(tmp_path / "r"), "--llm", "none"])
    assert result.exit_code == 1, result.output
    assert "FAILED: 0/1 cases passed" in result.output and "absent.csv" in result.output
    assert (tmp_path / "r" / "bad.junit.xml").exists()


def test_usage_errors_are_one_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["eval", str(tmp_path / "nope.toml")])
    assert result.exit_code == 2
    assert "Error:" in result.output and "does not exist" in result.output
    bad = tmp_path / "x.toml"
    bad.write_text("[[cases]]\nrequest = 'r'\n")
    result = CliRunner().invoke(cli, ["eval", str(bad)])
    assert result.exit_code == 2 and "no evaluation points" in result.output
