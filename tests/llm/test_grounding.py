"""Answers grounded in results: a model's number that no result holds sends the run to the templated answer."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planexec.llm import ScriptedLLM
from planexec.models import StepResult
from planexec.synthesis import LLMSynthesizer, UngroundedAnswer, not_done, numbers_in, ungrounded
from tests.core.helpers import step


def ok_step() -> StepResult:
    return StepResult(step(1, "steady"), "succeeded", summary="sales.csv: 50 rows")


RESULTS = {"mean_revenue": 3674.47983, "n_rows": 50}


def test_numbers_as_written_are_matched_within_their_rounding() -> None:
    assert ungrounded("The mean revenue is 3,674.48 over 50 rows.", "r", [ok_step()], RESULTS) == ""
    assert ungrounded("The mean revenue is 3674.5.", "r", [ok_step()], RESULTS) == ""
    why = ungrounded("France has a population of over 12.2 million people", "r", [ok_step()], RESULTS)
    assert "12.2" in why


def test_code_json_and_empty_text_are_never_an_answer() -> None:
    assert "JSON" in ungrounded('{"result": "ok", "items": [1, 2, 3]}', "r", [ok_step()], RESULTS)
    assert "code" in ungrounded("```python\nprint(1)\n```", "r", [ok_step()], RESULTS)
    assert "empty" in ungrounded("  ", "r", [ok_step()], RESULTS)


def test_an_ungrounded_model_answer_is_refused_with_the_reason() -> None:
    llm = ScriptedLLM(["Revenue was 9999."])
    with pytest.raises(UngroundedAnswer, match="states 9999"):
        LLMSynthesizer(llm).synthesize("mean revenue?", [ok_step()], RESULTS)
    assert LLMSynthesizer(ScriptedLLM(["Mean revenue 3674.48."])).synthesize("q", [ok_step()], RESULTS) == "Mean revenue 3674.48."


def test_a_failed_run_never_asks_the_model_for_its_answer() -> None:
    failed = StepResult(step(1, "broken"), "failed", summary="")
    llm = ScriptedLLM([])
    text = LLMSynthesizer(llm).synthesize("q", [failed], {})
    assert llm.calls == [] and "failed" in text
    assert "not done: \"x\": the model could not" in not_done(type("P", (), {"unplanned": ('"x": the model could not',)})(), [])


@given(st.floats(min_value=-1e6, max_value=1e6, allow_nan=False).filter(lambda v: abs(v) > 1e-3))
def test_any_result_written_at_two_decimals_is_grounded(value: float) -> None:
    assert ungrounded(f"The value is {value:.2f}.", "q", [ok_step()], {"v": value}) == ""
    assert [round(x, 2) for x, _, _ in numbers_in(f"{value:.2f}")] == [round(float(f"{value:.2f}"), 2)]
