"""A model only adds: for a request the library does not cover, a model plan that writes no code
(only library actions the coverage check has just ruled out) is refused, never run as an answer."""

from __future__ import annotations

import json

from planexec import Orchestrator
from planexec.config import Config
from planexec.llm import ScriptedLLM
from tests.core.helpers import REPO

REQUEST = f"What is the total revenue per region in {REPO / 'data' / 'examples' / 'sales.csv'}?"
CURVES = {"steps": [{"step_num": 1, "goal": "predicting", "primary_tools": ["python_code"],
                     "fallback_tools": ["generate_ensemble_curves"], "args": {"code": "results = {}"}}],
          "rationale": "curves as a fallback, as gemma-3-270m planned it"}


def test_a_plan_of_library_actions_for_an_uncovered_request_is_refused(monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.setenv("PLANEXEC_EMBEDDER", "none")
    llm = ScriptedLLM([json.dumps(CURVES)] * 6)
    result = Orchestrator(llm, config=Config.from_env()).run(REQUEST)
    assert result.status == "not_covered", result.answer  # as offline: the model added nothing
    assert "model was asked, and its plan was refused" in result.answer  # not "use an LLM backend"
    assert "generated data" in result.answer and "LLM backend" not in result.answer
    assert "30 curves" not in result.answer  # the substitute was never run, nor presented as the answer
    assert not any("generate_ensemble_curves" in (*r.step.primary_tools, *r.step.fallback_tools)
                   and r.status == "succeeded" for r in result.steps)


ENTROPY = f"Compute the spectral entropy of the revenue column in {REPO / 'data' / 'examples' / 'sales.csv'}"
SEARCH_THEN_CODE = {"steps": [
    {"step_num": 1, "goal": "compute-the-spectral-entropy", "primary_tools": ["rag_retrieval"],
     "args": {"query": "spectral entropy"}},
    {"step_num": 2, "goal": "predict-a-value-in-an-array-of-numbers", "primary_tools": ["python_code"],
     "depends_on": [1], "args": {"code": "x = 1"}}],
    "rationale": "as gemma-3-270m planned it: a literature search and code with no result"}


def test_a_model_plan_that_computes_nothing_asked_does_not_succeed(tmp_path) -> None:  # noqa: ANN001
    """gemma-3-270m answered the entropy request with a search and code that set no result, and the run
    'succeeded' with no results: the model's last step now serves the clause, and is checked against it."""
    llm = ScriptedLLM([json.dumps(SEARCH_THEN_CODE)] * 6)
    config = Config.from_env(embedder="none", rag=True, home=tmp_path / "home", output_root=tmp_path / "out")
    result = Orchestrator(llm, config=config).run(ENTROPY)
    assert result.plan is not None and result.plan.steps[-1].serves, result.plan
    assert result.status != "succeeded", result.answer
    assert "entropy" in result.answer


def test_a_model_step_whose_goal_echoes_the_request_is_judged_by_what_it_made(tmp_path) -> None:  # noqa: ANN001
    """A one-step model plan titled with the request's words ("compute-the-spectral-entropy") over a literature
    search: the goal a planner wrote explains nothing; the passages it returned name no entropy."""
    echo = {"steps": [{"step_num": 1, "goal": "compute-the-spectral-entropy", "primary_tools": ["rag_retrieval"],
                       "args": {"query": "spectral entropy"}}], "rationale": "one search"}
    llm = ScriptedLLM([json.dumps(echo)] * 6)
    config = Config.from_env(embedder="none", rag=True, home=tmp_path / "home", output_root=tmp_path / "out")
    result = Orchestrator(llm, config=config).run(ENTROPY)
    assert result.status != "succeeded", result.answer
    assert "computes no entropy" in result.answer
