"""Suite schema checks: each problem found at load time, named with file and line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planexec.evals import SuiteError, load_suite
from planexec.evals.registry import shared_validators
from planexec.evals.suite_schema import Lines, point_problems

REG = shared_validators()


@pytest.mark.parametrize(("point", "words"), [
    ({"type": "nope"}, "unknown validator"),
    ({"params": {}}, "no type"),
    ({"type": "keyword", "weight": "2"}, "weight"),
    ({"type": "keyword", "weight": -1}, "weight"),
    ({"type": "keyword", "weight": True}, "weight"),
    ({"type": "keyword", "depends_on": ["a", "zzz"]}, "zzz"),
    ({"type": "keyword", "on": "answer.x"}, "'on'"),
    ({"type": "keyword", "params": [1]}, "params"),
    ({"type": "keyword", "id": 3}, "id"),
    ({"type": "chain", "steps": [{"type": "nope"}]}, "chain step 1: unknown validator"),
    ("keyword", "table/object"),
])
def test_point_problems(point: object, words: str) -> None:
    problems = point_problems(point, REG, {"a"})
    assert any(words in p for p in problems), problems


def test_valid_points_have_no_problems() -> None:
    assert point_problems({"type": "not-keyword", "params": {"keywords": ["x"]}, "weight": 2.5,
                           "on": "results.n", "id": "b", "depends_on": "a"}, REG, {"a"}) == []
    chain = {"type": "chain", "steps": [{"type": "is_json"}, {"type": "json_path", "params": {"path": "$.a"}}]}
    assert point_problems(chain, REG, set()) == []


def test_toml_problems_name_the_line_of_each_point(tmp_path: Path) -> None:
    text = ('name = "s"\n[[points]]\ntype = "keyword"\nparams = { keywords = ["a"] }\n\n'
            '[[cases]]\nrequest = "r1"\n[[cases.points]]\ntype = "keyword"\n\n'
            '[[cases]]\nrequest = "r2"\n[[cases.points]]\ntype = "keyword"\n[[cases.points]]\ntype = "bad"\n')
    path = tmp_path / "s.toml"
    path.write_text(text)
    lines = Lines.of(path, text)
    assert lines.cases == (6, 11) and lines.shared_points == (2,)
    assert lines.case_points == ((8,), (13, 15))
    with pytest.raises(SuiteError, match=rf"{path}:15: unknown validator type 'bad'"):
        load_suite(path)


def test_json_problems_name_the_case_line(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"cases": [{"request": "r", "points": [{"type": "keyword", "weight": "x"}]}]}, indent=1))
    with pytest.raises(SuiteError, match=rf"{path}:\d+: weight must be a non-negative number"):
        load_suite(path)


def test_all_problems_are_listed_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text('[[cases]]\nrequest = "r"\n[[cases.points]]\ntype = "x1"\n[[cases.points]]\nweight = "w"\n')
    with pytest.raises(SuiteError) as info:
        load_suite(path)
    message = str(info.value)
    assert "\n" not in message and "3 problem(s)" in message and "s.toml:3:" in message and "s.toml:5:" in message
