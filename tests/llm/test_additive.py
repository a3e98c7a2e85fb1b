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
