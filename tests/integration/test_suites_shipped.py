"""Every suite in data/suites/ is well formed, and each one passes offline through the evals runner."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from planexec.evals import default_validators, load_suite
from planexec.evals.code_check import wrap
from planexec.evals.suite import missing_inputs
from planexec.sandbox.policy import check as policy_violations
from planexec.tools.curves_data import generate_ensemble_curves

from .conftest import REPO, SUITES, SuiteRuns

SHIPPED = sorted(p for p in SUITES.iterdir() if p.suffix in (".toml", ".json"))


def all_points(point: dict[str, Any]) -> list[dict[str, Any]]:
    """A point and, for chains, every step inside it."""
    return [point, *(q for step in point.get("steps", []) for q in all_points(step))]


def test_the_expected_suites_ship() -> None:
    assert {p.stem for p in SHIPPED} >= {"sales", "calcium", "curves"}


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_a_shipped_suite_is_well_formed(path: Path) -> None:
    suite = load_suite(path)
    known = set(default_validators().names())
    assert suite.name == path.stem and suite.description and suite.threshold > 0
    for case in suite.cases:
        assert not missing_inputs(case), f"{case.id}: inputs missing"
        assert all(p.is_relative_to(REPO) for p in (*case.files, *([case.images] if case.images else [])))
        ids: list[str] = []
        for point in case.points:
            for p in all_points(point):
                kind = p["type"].removeprefix("not-")
                assert kind in known, f"{case.id}: unknown type {p['type']!r}"
                if kind == "python":
                    program = wrap(p["params"]["code"])
                    assert policy_violations(program) == [], f"{case.id}: {p['text']}"
            deps = point.get("depends_on")
            for dep in [deps] if isinstance(deps, str) else deps or []:
                assert dep in ids, f"{case.id}: {point['text']!r} depends on {dep!r}, not an earlier point"
            if "id" in point:
                ids.append(point["id"])
            assert point.get("text"), f"{case.id}: every point says what it checks"


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_the_readme_lists_each_suite(path: Path) -> None:
    assert f"`{path.name}`" in (SUITES / "README.md").read_text()


def test_the_curve_suites_ground_truth() -> None:
    """Default generation plants outliers 0 and 25; data/curves.npy is seed 7's 40 curves (0, 34, 36)."""
    assert generate_ensemble_curves().results["planted_outliers"] == [0, 25]
    sample = generate_ensemble_curves(n_curves=40, n_points=100, seed=7)
    # Tolerance, not bits: numpy builds differ in the last ulp of sin() on some processors.
    np.testing.assert_allclose(sample.state["curves"], np.load(REPO / "data" / "curves.npy"), rtol=0, atol=1e-9)
    assert sample.results["planted_outliers"] == [0, 34, 36]


@pytest.mark.parametrize("name", ["sales", "curves", "calcium"])
def test_a_shipped_suite_passes_offline(suite_runs: SuiteRuns, name: str) -> None:
    result = suite_runs.get(name)
    problems = {
        c.case.id: c.error or [f"{d['point']}: {d['note']}" for d in c.details if not d["ok"]]
        for c in result.cases if not c.passed
    }
    assert result.passed and result.count("ERROR") == 0, problems
    assert result.pass_rate >= result.suite.threshold
    assert result.judge_calls == 0
    assert all(c.run_status == "succeeded" for c in result.cases)
