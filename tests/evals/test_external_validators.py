"""Validators backed by other parts: python (the real sandbox) and semantic_similarity (the real embedder)."""

from __future__ import annotations

import pytest

from planexec.evals import EvalContext, run_evaluation_point
from planexec.models import RunResult


def py(code: str, answer: object, **params: object) -> dict:
    return run_evaluation_point({"type": "python", "params": {"code": code, **params}}, answer,
                                EvalContext(run=RunResult("r", None, [], "a", "succeeded", results={"n": 3})))


def test_python_expression_function_and_score() -> None:
    assert py("len(answer.split()) == 3", "one two three")["ok"]
    assert not py("answer.endswith('!')", "calm.")["ok"]
    fn = "def check(answer):\n    return [answer.count('cell') == 2, 'two mentions']"
    result = py(fn, "cell and cell")
    assert result["ok"] and "two mentions" in result["note"]
    assert not py("0.3", "x")["ok"] and py("0.3", "x", threshold=0.2)["ok"]
    assert py("run_results['n'] == 3", "x")["ok"]  # the run's results are visible too


def test_python_failures_are_never_inverted() -> None:
    for code in ("1/0", "import os\nresult = os.getcwd()", "'a string'"):
        result = run_evaluation_point({"type": "not-python", "params": {"code": code}}, "x")
        assert not result["ok"] and result["error"], code
    assert "ZeroDivisionError" in py("1/0", "x")["note"]
    assert "not allowed" in py("import os\nresult = os.getcwd()", "x")["note"]
    assert "define check(answer) or assign result" in py("x = 1\ny = 2", "x")["note"]


@pytest.mark.slow
def test_semantic_similarity_with_the_packaged_model() -> None:
    ref = {"value": "A cat was sitting on a rug."}
    close = run_evaluation_point({"type": "semantic_similarity", "params": ref}, "The cat sat on the mat.")
    far = run_evaluation_point({"type": "semantic_similarity", "params": ref}, "Quarterly revenue grew ten percent.")
    assert close["ok"] and not far["ok"], (close, far)
    assert close["score"] > far["score"]
    strict = run_evaluation_point({"type": "semantic_similarity", "params": {**ref, "threshold": 0.99}},
                                  "The cat sat on the mat.")
    assert not strict["ok"]
