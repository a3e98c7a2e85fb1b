"""llm_rubric with a scripted judge: verdicts, thresholds, the on-disk cache and judge failures."""

from __future__ import annotations

import json
from pathlib import Path

from planexec.evals import EvalContext, JudgeCache, evaluate_answer, run_evaluation_point
from planexec.llm import ScriptedLLM

RUBRIC = {"type": "llm_rubric", "params": {"rubric": "The answer names the capital of France."}}


def verdict(ok: bool, score: float, reason: str = "because") -> str:
    return json.dumps({"pass": ok, "score": score, "reason": reason})


def test_judge_verdict_decides(tmp_path: Path) -> None:
    judge = ScriptedLLM([verdict(True, 0.9, "Names Paris."), verdict(False, 0.1, "No city.")])
    ctx = EvalContext(judge=judge, judge_cache=JudgeCache(tmp_path))
    good = run_evaluation_point(RUBRIC, "Paris", ctx)
    bad = run_evaluation_point(RUBRIC, "London", ctx)
    assert good["ok"] and good["score"] == 0.9 and "Names Paris." in good["note"]
    assert not bad["ok"] and "No city." in bad["note"]
    prompt = judge.calls[0]["messages"][-1].content
    assert "capital of France" in prompt and "Paris" in prompt
    assert judge.calls[0]["json_schema"]["required"] == ["pass", "score", "reason"]


def test_threshold_overrides_the_pass_flag() -> None:
    judge = ScriptedLLM([verdict(True, 0.4)])
    point = {"type": "llm_rubric", "params": {"rubric": "r", "threshold": 0.5}}
    assert not run_evaluation_point(point, "a", EvalContext(judge=judge))["ok"]


def test_repeated_evaluation_makes_zero_judge_calls(tmp_path: Path) -> None:
    answers = ["Paris", "Lyon", "Paris is the capital"]
    first = ScriptedLLM([verdict(True, 1.0), verdict(False, 0.0), verdict(True, 0.8)])
    cache = JudgeCache(tmp_path)
    scores = [evaluate_answer(a, [RUBRIC], EvalContext(judge=first, judge_cache=cache))[0] for a in answers]
    assert len(first.calls) == 3 and cache.asked == 3

    again = ScriptedLLM([], model="scripted")  # any call would raise: the script is empty
    cache2 = JudgeCache(tmp_path)
    repeat = [evaluate_answer(a, [RUBRIC], EvalContext(judge=again, judge_cache=cache2))[0] for a in answers]
    assert repeat == scores == [1.0, 0.0, 1.0]
    assert again.calls == [] and cache2.hits == 3 and cache2.asked == 0


def test_cache_key_covers_model_prompt_and_answer(tmp_path: Path) -> None:
    cache = JudgeCache(tmp_path)
    run_evaluation_point(RUBRIC, "Paris", EvalContext(judge=ScriptedLLM([verdict(True, 1)], model="m1"), judge_cache=cache))
    other_model = ScriptedLLM([verdict(False, 0)], model="m2")
    assert not run_evaluation_point(RUBRIC, "Paris", EvalContext(judge=other_model, judge_cache=cache))["ok"]
    other_rubric = {"type": "llm_rubric", "params": {"rubric": "Mentions Germany."}}
    judge3 = ScriptedLLM([verdict(False, 0)], model="m1")
    run_evaluation_point(other_rubric, "Paris", EvalContext(judge=judge3, judge_cache=cache))
    assert len(other_model.calls) == 1 and len(judge3.calls) == 1
    assert len(list(tmp_path.rglob("*.json"))) == 3


def test_invalid_verdict_is_asked_again_then_reported(tmp_path: Path) -> None:
    judge = ScriptedLLM(["not json", verdict(True, 1.0)])
    assert run_evaluation_point(RUBRIC, "Paris", EvalContext(judge=judge))["ok"]
    stubborn = ScriptedLLM(["nope", '{"pass": "yes"}'])
    result = run_evaluation_point({**RUBRIC, "type": "not-llm_rubric"}, "Paris", EvalContext(judge=stubborn))
    assert not result["ok"] and result["error"] and "judge failed" in result["note"]


def test_no_judge_is_a_clear_failure_even_negated() -> None:
    result = run_evaluation_point({**RUBRIC, "type": "not-llm_rubric"}, "Paris")
    assert not result["ok"] and "needs a judge LLM" in result["note"]


def test_corrupt_cache_entry_is_ignored(tmp_path: Path) -> None:
    cache = JudgeCache(tmp_path)
    judge = ScriptedLLM([verdict(True, 1.0), verdict(True, 1.0)])
    run_evaluation_point(RUBRIC, "Paris", EvalContext(judge=judge, judge_cache=cache))
    for f in tmp_path.rglob("*.json"):
        f.write_text("{broken")
    assert run_evaluation_point(RUBRIC, "Paris", EvalContext(judge=judge, judge_cache=cache))["ok"]
    assert len(judge.calls) == 2
