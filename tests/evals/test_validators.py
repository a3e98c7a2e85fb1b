"""Each validator: a passing case, a failing case and bad params (a failed check naming the problem)."""

from __future__ import annotations

import pytest

from planexec.evals import EvalContext, default_validators, run_evaluation_point
from planexec.models import Plan, PlanStep, RunResult, StepResult, ToolAttempt, Usage

REPORT = 'Summary: the Transformer model wins. Revenue: $45,230.\n```json\n{"name": "Ada", "tags": ["x", "y"]}\n```'


def sample_run() -> RunResult:
    step = PlanStep(1, "Load the table", ("describe_table",), ("python_code",))
    attempts = (ToolAttempt("python_code", {}, ok=False, error="boom"), ToolAttempt("describe_table", {}, ok=True))
    return RunResult(
        request="r",
        plan=Plan((step, PlanStep(2, "Answer", ("describe_table",)))),
        steps=[StepResult(step, "succeeded", attempts)],
        answer="a",
        status="succeeded",
        results={"n_cells": 12, "stats": {"mean": 2.5}},
        usage=Usage(calls=3, prompt_tokens=900, completion_tokens=100),
        timings={"total": 1.5, "plan": 0.2},
    )


CTX = EvalContext(run=sample_run())

# (type, params, answer, expected ok)
CASES = [
    ("keyword", {"keywords": ["transformer", "revenue"]}, REPORT, True),
    ("keyword", {"keywords": ["transformer", "LSTM"]}, REPORT, False),
    ("keyword", {"keywords": ["transformer", "LSTM"], "mode": "any"}, REPORT, True),
    ("keyword", {"keywords": ["transformer"], "case_sensitive": True}, REPORT, False),
    ("negation", {"keywords": ["maybe", "perhaps"]}, REPORT, True),
    ("negation", {"keywords": ["maybe", "wins"]}, REPORT, False),
    ("regex", {"pattern": r"\$[\d,]+"}, REPORT, True),
    ("regex", {"pattern": r"^\d+$"}, REPORT, False),
    ("length", {"min": 5, "max": 40}, REPORT, True),
    ("length", {"max": 3}, REPORT, False),
    ("length", {"min": 2, "unit": "sentences"}, "One. Two! Three?", True),
    ("length", {"max": 5, "unit": "characters"}, "too long", False),
    ("equals", {"value": "Paris"}, "  Paris\n", True),
    ("equals", {"value": "paris"}, "Paris", False),
    ("equals", {"value": "paris", "case_sensitive": False}, "Paris", True),
    ("contains", {"value": "model wins"}, REPORT, True),
    ("contains", {"value": "model loses"}, REPORT, False),
    ("starts_with", {"value": "Summary:"}, "\n  " + REPORT, True),
    ("starts_with", {"value": "Result:"}, REPORT, False),
    ("ends_with", {"value": "```"}, REPORT + "\n", True),
    ("ends_with", {"value": "fin"}, REPORT, False),
    ("numeric", {"label": "revenue", "value": 45230}, REPORT, True),
    ("numeric", {"label": "revenue", "value": 45000, "tolerance": 100}, REPORT, False),
    ("numeric", {"label": "revenue", "value": 45000, "rel_tolerance": 0.01}, REPORT, True),
    ("numeric", {"min": 0, "max": 10}, "about 7.5 units", True),
    ("numeric", {"min": 0, "max": 10}, "no numbers here", False),
    ("is_json", {}, '{"a": 1}', True),
    ("is_json", {}, REPORT, False),
    ("is_json", {"extract": True}, REPORT, True),
    ("json_schema", {"schema": {"type": "object", "required": ["name"]}}, REPORT, True),
    ("json_schema", {"schema": {"type": "object", "required": ["age"]}}, REPORT, False),
    ("json_path", {"path": "$.tags[1]", "equals": "y"}, REPORT, True),
    ("json_path", {"path": "name", "contains": "Bob"}, REPORT, False),
    ("json_path", {"path": "missing.key"}, REPORT, False),
    ("levenshtein", {"value": "kitten"}, "kitten!", True),
    ("levenshtein", {"value": "kitten", "max_distance": 2}, "sitting", False),
    ("rouge_l", {"value": "the transformer model wins", "threshold": 0.3}, REPORT, True),
    ("rouge_l", {"value": "completely unrelated words here"}, REPORT, False),
    ("latency", {"max_seconds": 2}, "", True),
    ("latency", {"max_seconds": 1}, "", False),
    ("cost", {"max_tokens": 1000, "max_calls": 3}, "", True),
    ("cost", {"max_usd": 0.001, "usd_per_1k_prompt": 1.0, "usd_per_1k_completion": 2.0}, "", False),
    ("tool_used", {"tools": ["describe_table"], "succeeded": True}, "", True),
    ("tool_used", {"tools": ["python_code"], "succeeded": True}, "", False),
    ("tool_used", {"tools": ["python_code", "plot"], "mode": "any"}, "", True),
    ("step_count", {"max": 2}, "", True),
    ("step_count", {"min": 3}, "", False),
    ("status", {}, "", True),
    ("status", {"value": ["failed", "partial"]}, "", False),
]


@pytest.mark.parametrize(("kind", "params", "answer", "expected"), CASES)
def test_validator_pass_and_fail(kind: str, params: dict, answer: str, expected: bool) -> None:
    result = run_evaluation_point({"type": kind, "params": params}, answer, CTX)
    assert result["ok"] is expected, result["note"]
    assert "error" not in result
    negated = run_evaluation_point({"type": f"not-{kind}", "params": params}, answer, CTX)
    assert negated["ok"] is (not expected)
    assert negated["note"].startswith("Negated")


# (type, params, a word the note must contain)
BAD = [
    ("keyword", {}, "keywords"),
    ("keyword", {"keywords": []}, "keywords"),
    ("keyword", {"keywords": ["a"], "mode": "most"}, "mode"),
    ("negation", {"keywords": [3]}, "keywords"),
    ("regex", {"pattern": "(unclosed"}, "invalid regex"),
    ("regex", {"pattern": "a", "capture": 2}, "capture"),
    ("regex", {"pattern": "a", "flags": "q"}, "flags"),
    ("length", {}, "min"),
    ("length", {"min": 5, "max": 1}, "above"),
    ("length", {"min": 1, "unit": "pages"}, "unit"),
    ("equals", {}, "value"),
    ("contains", {"value": 3}, "value"),
    ("starts_with", {}, "value"),
    ("ends_with", {"value": None}, "value"),
    ("numeric", {}, "min"),
    ("numeric", {"value": "ten"}, "value"),
    ("numeric", {"value": 1, "tolerance": -1}, "tolerance"),
    ("is_json", {"extract": "yes"}, "extract"),
    ("json_schema", {}, "schema"),
    ("json_schema", {"schema": {"type": 5}}, "invalid JSON schema"),
    ("json_path", {}, "path"),
    ("json_path", {"path": "a..b[x"}, "path"),
    ("levenshtein", {}, "value"),
    ("levenshtein", {"value": "a", "threshold": 2}, "threshold"),
    ("rouge_l", {"value": 5}, "value"),
    ("semantic_similarity", {}, "value"),
    ("llm_rubric", {}, "rubric"),
    ("llm_rubric", {"rubric": "  "}, "rubric"),
    ("python", {}, "code"),
    ("python", {"code": "def check(:"}, "not valid Python"),
    ("latency", {}, "max_seconds"),
    ("cost", {}, "at least one"),
    ("cost", {"max_usd": 1}, "usd_per_1k"),
    ("tool_used", {}, "tool"),
    ("step_count", {}, "min"),
    ("status", {"value": 3}, "value"),
    ("chain", {}, "steps"),
    ("no_such_type", {}, "known types"),
]


@pytest.mark.parametrize(("kind", "params", "word"), BAD)
@pytest.mark.parametrize("negate", [False, True])
def test_bad_params_fail_with_a_note(kind: str, params: dict, word: str, negate: bool) -> None:
    point = {"type": ("not-" if negate else "") + kind, "params": params}
    result = run_evaluation_point(point, REPORT, CTX)
    assert result["ok"] is False  # never inverted into a pass
    assert result["error"] is True
    assert result["note"].startswith("Bad params")
    assert word in result["note"]


def test_every_validator_has_pass_fail_and_bad_params_cases() -> None:
    names = set(default_validators().names())
    assert len(names) >= 20
    covered_pass = {k for k, _, _, ok in CASES if ok} | {"semantic_similarity", "llm_rubric", "python", "chain"}
    covered_fail = {k for k, _, _, ok in CASES if not ok} | {"semantic_similarity", "llm_rubric", "python", "chain"}
    assert names <= covered_pass and names <= covered_fail
    assert names <= {k for k, _, _ in BAD}


def test_run_checks_need_a_run() -> None:
    result = run_evaluation_point({"type": "not-latency", "params": {"max_seconds": 1}}, "x")
    assert result["ok"] is False and result["error"] is True
    assert "RunResult" in result["note"]


def test_latency_of_a_missing_phase_is_reported() -> None:
    result = run_evaluation_point({"type": "latency", "params": {"max_seconds": 1, "key": "execute"}}, "", CTX)
    assert result["ok"] is False and "no timing 'execute'" in result["note"]


def test_regex_capture_is_the_output() -> None:
    result = run_evaluation_point({"type": "regex", "params": {"pattern": r"Revenue: \$([\d,]+)", "capture": 1}}, REPORT)
    assert result["output"] == "45,230"


def test_numeric_reads_the_number_before_or_after_a_label() -> None:
    text = "sales.csv: 1000 rows, 5 columns; mean revenue = 3,674.48"
    for label, value in (("rows", 1000), ("columns", 5), ("mean revenue", 3674.48)):
        result = run_evaluation_point({"type": "numeric", "params": {"label": label, "value": value}}, text)
        assert result["ok"], result["note"]
        assert result["output"] == value


def test_points_over_results() -> None:
    ok = run_evaluation_point({"type": "numeric", "on": "results.n_cells", "params": {"value": 12}}, "", CTX)
    nested = run_evaluation_point({"type": "numeric", "on": "results.stats.mean", "params": {"min": 2, "max": 3}}, "", CTX)
    wrong = run_evaluation_point({"type": "numeric", "on": "results.n_cells", "params": {"value": 13}}, "", CTX)
    missing = run_evaluation_point({"type": "not-numeric", "on": "results.n_spikes", "params": {"value": 1}}, "", CTX)
    bad_on = run_evaluation_point({"type": "numeric", "on": "plan", "params": {"value": 1}}, "", CTX)
    assert ok["ok"] and nested["ok"] and not wrong["ok"]
    assert not missing["ok"] and "n_spikes" in missing["note"] and "n_cells" in missing["note"]
    assert not bad_on["ok"] and "'on' must be" in bad_on["note"]


def test_equals_compares_structured_results_as_values() -> None:
    assert run_evaluation_point({"type": "equals", "on": "results.n_cells", "params": {"value": 12}}, "", CTX)["ok"]
    assert not run_evaluation_point({"type": "equals", "on": "results.n_cells", "params": {"value": "12"}}, "", CTX)["ok"]


def test_levenshtein_reports_distance_and_similarity() -> None:
    result = run_evaluation_point({"type": "levenshtein", "params": {"value": "kitten", "threshold": 0.5}}, "sitting")
    assert "distance 3" in result["note"] and result["ok"]
    assert result["score"] == pytest.approx(1 - 3 / 7)
