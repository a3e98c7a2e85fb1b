"""Analysis parameters: parsed from request text, `--param KEY=VALUE` and the API, validated,
passed to capabilities as the variable `params` and recorded in the report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from planexec import Config, Orchestrator, Plan, PlanStep
from planexec.cli import cli
from planexec.errors import UsageError
from planexec.params import SPECS, from_pairs, from_request, resolve
from planexec.tools import ToolRegistry, tool


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Find cells about 10 px wide, imaged at 30 Hz", {"diameter": 10.0, "fs": 30.0}),
        ("neurons roughly 14 pixels across recorded at 7.5 fps", {"diameter": 14.0, "fs": 7.5}),
        ("detect events; frame rate of 15, decay time 400 ms", {"fs": 15.0, "tau": 0.4}),
        ("subtract neuropil with a neuropil coefficient of 0.8", {"neuropil_coefficient": 0.8}),
        ("cell diameter 12 and tau = 1.2 s", {"diameter": 12.0, "tau": 1.2}),
        ("count the cells", {}),
        ("count the 3 brightest cells", {}),
    ],
)
def test_request_text_sets_parameters(text: str, expected: dict[str, float]) -> None:
    assert from_request(text) == pytest.approx(expected)


@given(st.floats(2.0, 200.0, allow_nan=False).map(lambda x: round(x, 2)),
       st.floats(0.5, 500.0, allow_nan=False).map(lambda x: round(x, 2)))
def test_parsed_numbers_round_trip(diameter: float, fs: float) -> None:
    found = from_request(f"segment cells about {diameter} px wide imaged at {fs} Hz")
    assert found["diameter"] == pytest.approx(diameter)
    assert found["fs"] == pytest.approx(fs)


def test_explicit_values_override_the_request_and_sources_say_so() -> None:
    p = resolve("cells about 10 px wide, imaged at 30 Hz", {"fs": "15", "neuropil": 0.5, "custom": "3"})
    assert p.values["diameter"] == 10.0 and p.sources["diameter"] == "request"
    assert p.values["fs"] == 15.0 and p.sources["fs"] == "api"
    assert p.values["neuropil_coefficient"] == 0.5  # alias
    assert p.values["custom"] == 3  # unknown keys pass through, typed
    assert p.sources["tau"] == "default" and p.values["tau"] is None
    assert set(SPECS) <= set(p.values)
    assert p.given() == {"diameter": 10.0, "fs": 15.0, "neuropil_coefficient": 0.5, "custom": 3}


@pytest.mark.parametrize(("params", "fix"), [({"fs": "fast"}, "not a number"), ({"diameter": -3}, "out of range"),
                                             ({"register": "maybe"}, "true, false or auto")])
def test_bad_values_are_usage_errors_naming_the_fix(params: dict, fix: str) -> None:
    with pytest.raises(UsageError, match=fix):
        resolve("x", params)


def test_pairs_need_an_equals_sign() -> None:
    assert from_pairs(["diameter=10", " fs = 30 "]) == {"diameter": "10", "fs": "30"}
    with pytest.raises(UsageError, match="KEY=VALUE"):
        from_pairs(["diameter"])


@tool(type="data")
def echo_params() -> dict:
    """Return nothing; the run records the parameters."""
    return {"ok": True}


def test_run_records_params_in_result_and_report(tmp_path: Path) -> None:
    config = Config.from_env(embedder="none", rag=False, output_root=tmp_path)
    plan = Plan((PlanStep(1, "echo", ("echo_params",)),))
    result = Orchestrator(tools=ToolRegistry([echo_params]), config=config).run(
        "analyse cells about 9 px wide at 20 Hz", plan=plan, params={"tau": 0.5})
    assert result.params["values"]["diameter"] == 9.0 and result.params["values"]["tau"] == 0.5
    assert result.params["sources"]["fs"] == "request"
    report = (Path(result.output_dir) / "report.md").read_text()
    assert "## Parameters" in report and "| tau | 0.5 | api |" in report
    saved = json.loads((Path(result.output_dir) / "report.json").read_text())
    assert saved["params"]["values"]["fs"] == 20.0


def test_cli_param_option_reaches_the_report_and_bad_ones_exit_2(tmp_path: Path) -> None:
    env = {"PLANEXEC_EMBEDDER": "none", "PLANEXEC_RAG": "0"}
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"steps": [{"step_num": 1, "goal": "list tools", "primary_tools": ["describe_table"], "args": {"path": "data/examples/sales.csv"}}]}))
    ok = CliRunner().invoke(cli, ["run", "list files", "--llm", "none", "--json", "--plan", str(plan), "--output",
                                  str(tmp_path / "o"), "--param", "diameter=11", "--param", "fs=30"], env=env)
    assert ok.exit_code in (0, 1), ok.output
    data = json.loads(ok.stdout)
    assert data["params"]["values"]["diameter"] == 11.0 and data["params"]["sources"]["fs"] == "api"
    bad = CliRunner().invoke(cli, ["run", "list files", "--llm", "none", "--param", "fs=fast"], env=env)
    assert bad.exit_code == 2 and "not a number" in bad.stderr
