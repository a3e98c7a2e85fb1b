"""The same run flows with a model: ScriptedLLM, then the real OpenAI and Anthropic SDK clients
pointed at the fake provider server, faults included."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from planexec import Orchestrator
from planexec.llm import ScriptedLLM
from planexec.llm.anthropic_chat import AnthropicChat
from planexec.llm.openai_chat import OpenAIChat
from planexec.llm.retry import RetryPolicy
from tests.core.helpers import fast_config, plan, plan_json, step, toolbox
from tests.fakeprovider import FakeProvider, rate_limited, text

REQUEST = "Compute the spectral flatness of x and double it"  # in scope, covered by no tool: the model plans it
# The model's last step serves the clauses it was asked for (planner_additive._serving); this test is about the
# flow, and flatness is no quantity the answer check knows (a request for the spectral entropy now ends partial).
PLAN = plan_json(
    {"step_num": 1, "goal": "Publish x", "primary_tools": ["broken"], "fallback_tools": ["publish"],
     "success_criteria": "x is published and looks plausible"},
    {"step_num": 2, "goal": "Double x", "primary_tools": ["double"], "depends_on": [1]},
)
ARGS = json.dumps({"x": 7})
VERDICT = json.dumps({"ok": True, "reason": "x is there and plausible"})
ANSWER = "Doubled, x is 14."
SCRIPT = [PLAN, ARGS, VERDICT, ANSWER]


def check_flow(result: Any, calls: int = 4) -> None:
    """Planning, input generation, an LLM verdict and synthesis all happened, in that order."""
    assert result.status == "succeeded", result.errors
    assert result.plan.planner == "llm"
    s1 = result.step_result(1)
    assert [a.tool for a in s1.attempts] == ["broken", "publish"]
    assert s1.attempts[1].input == {"x": 7}
    assert s1.attempts[1].verdict.decided_by == "llm" and s1.attempts[1].verdict.reason == "x is there and plausible"
    assert result.step_result(2).output == 14
    assert result.results["doubled"] == 14
    assert result.answer == ANSWER
    assert result.usage.calls == calls


def orchestrator(llm: Any) -> Orchestrator:
    return Orchestrator(llm, toolbox(), fast_config())


def test_scripted_llm_plans_generates_inputs_verifies_and_answers() -> None:
    llm = ScriptedLLM(SCRIPT)
    result = orchestrator(llm).run(REQUEST)
    check_flow(result)
    schemas = [c["json_schema"] for c in llm.calls]
    assert "steps" in schemas[0]["properties"] and schemas[1] == toolbox().get("publish").input_schema
    assert schemas[2]["required"] == ["ok", "reason"] and schemas[3] is None
    assert result.usage.prompt_chars == sum(len(m.content) for c in llm.calls for m in c["messages"])
    assert result.to_dict()["usage"]["calls"] == 4


def test_usage_is_per_run_when_one_client_serves_two_runs() -> None:
    llm = ScriptedLLM(SCRIPT * 2)
    orch = orchestrator(llm)
    first, second = orch.run(REQUEST), orch.run(REQUEST)
    assert first.usage.calls == second.usage.calls == 4 and llm.usage.calls == 8


def test_a_caller_plan_with_an_llm_makes_no_planning_call() -> None:
    llm = ScriptedLLM([])
    result = orchestrator(llm).run("r", plan=plan(step(1, "steady")))
    assert result.ok and llm.calls == [] and result.usage.calls == 0
    assert "Step 1, do part 1 (steady)" in result.answer  # no model was needed, so the answer is templated


def test_an_llm_verdict_can_reject_and_the_fallback_runs() -> None:
    p = plan(step(1, "steady", fallback=("publish",), success_criteria="the answer looks plausible", args={"x": 3}))
    llm = ScriptedLLM(['{"ok": false, "reason": "42 is a joke"}', '{"ok": true, "reason": "fine"}', "x is 3"])
    result = orchestrator(llm).run("r", plan=p)
    s = result.step_result(1)
    assert [(a.tool, a.ok, a.verdict.reason) for a in s.attempts] == [("steady", False, "42 is a joke"),
                                                                       ("publish", True, "fine")]
    assert result.answer == "x is 3" and result.ok


def test_invalid_plan_json_then_a_valid_one_on_the_reask() -> None:
    llm = ScriptedLLM(["Sure! Step 1: publish x. Step 2: double it.", *SCRIPT])
    result = orchestrator(llm).run(REQUEST)
    check_flow(result, calls=5)
    assert "That plan was not valid" in llm.calls[1]["messages"][-1].content


def test_invalid_plan_json_twice_fails_the_run_with_the_fix_named() -> None:
    llm = ScriptedLLM(["not json", "still {not json", "Nothing was done."])
    result = orchestrator(llm).run(REQUEST)
    assert result.status == "failed" and result.steps == []
    assert any("plan was not valid JSON for the schema after one re-ask" in e and "--llm none" in e
               for e in result.errors)


def test_a_synthesis_failure_falls_back_to_the_template() -> None:
    llm = ScriptedLLM([PLAN, ARGS, VERDICT])  # nothing left for the answer
    result = orchestrator(llm).run(REQUEST)
    assert result.status == "succeeded"
    assert "doubled = 14" in result.answer
    assert any(e.startswith("synthesis failed, templated answer given instead") for e in result.errors)


def test_free_react_mode_calls_tools_and_answers() -> None:
    llm = ScriptedLLM([
        json.dumps({"thought": "publish first", "action": "publish", "action_input": {"x": 4}}),
        json.dumps({"thought": "oops", "action": "nope", "action_input": {}}),
        json.dumps({"thought": "now double", "action": "double", "action_input": {}}),
        json.dumps({"thought": "done", "final_answer": "8"}),
    ])
    result = orchestrator(llm).react("double 4")
    assert result.status == "succeeded" and result.answer == "8" and result.plan is None
    assert [(s.tool, s.status) for s in result.steps] == [("publish", "succeeded"), ("nope", "failed"),
                                                          ("double", "succeeded")]
    assert result.steps[2].output == 8  # state from the first tool reached the third
    assert result.usage.calls == 4
    observation = llm.calls[2]["messages"][-1].content
    assert observation.startswith("Observation: tool nope failed: unknown tool 'nope'") and "try another" in observation
    # the whole history is resent every turn
    assert [len(c["messages"]) for c in llm.calls] == [2, 4, 6, 8]


def test_free_react_mode_stops_at_the_step_limit_and_needs_an_llm() -> None:
    from planexec.errors import ConfigError

    turn = json.dumps({"thought": "again", "action": "steady", "action_input": {}})
    result = orchestrator(ScriptedLLM([turn] * 3)).react("loop", max_steps=3)
    assert result.status == "partial" and result.errors == ["no final answer within 3 steps"]
    with pytest.raises(ConfigError, match="free ReAct mode needs an LLM"):
        orchestrator(None).react("r")


# -- the real SDK clients against the fake provider -------------------------------------------


@pytest.fixture(params=["openai", "anthropic"])
def provider(request: pytest.FixtureRequest) -> Iterator[tuple[str, list[float]]]:
    yield request.param, []


def client(kind: str, fake: FakeProvider, sleeps: list[float]) -> Any:
    policy = RetryPolicy(max_retries=2, sleep=sleeps.append)
    if kind == "openai":
        return OpenAIChat("fake-model", "sk-test", fake.openai_url, timeout=5, retry=policy)
    return AnthropicChat("fake-model", "sk-ant-test", fake.anthropic_url, timeout=5, retry=policy)


def fake_run(kind: str, replies: list[Any], sleeps: list[float]) -> tuple[Any, FakeProvider]:
    with FakeProvider(replies) as fake:
        llm = client(kind, fake, sleeps)
        try:
            result = orchestrator(llm).run(REQUEST)
        finally:
            llm.close()
    return result, fake


def test_real_clients_run_the_whole_flow(provider: tuple[str, list[float]]) -> None:
    kind, sleeps = provider
    result, fake = fake_run(kind, list(SCRIPT), sleeps)
    check_flow(result)
    assert result.usage.prompt_tokens == 4 * 11 and result.usage.completion_tokens == 4 * 7
    path = "/v1/chat/completions" if kind == "openai" else "/v1/messages"
    assert [r.path for r in fake.requests] == [path] * 4 and sleeps == []
    sent = json.dumps(fake.requests[0].body)
    assert REQUEST in sent and "publish [statistics]" in sent


def test_real_clients_wait_out_a_429_then_succeed(provider: tuple[str, list[float]]) -> None:
    kind, sleeps = provider
    result, fake = fake_run(kind, [rate_limited(retry_after=0.25), *SCRIPT], sleeps)
    check_flow(result)
    assert sleeps == [0.25] and len(fake.requests) == 5


def test_real_clients_reask_after_invalid_plan_json(provider: tuple[str, list[float]]) -> None:
    kind, sleeps = provider
    result, fake = fake_run(kind, [text('{"steps": [ {"step_num": 1, "goal": '), *SCRIPT], sleeps)
    check_flow(result, calls=5)
    assert "That plan was not valid" in json.dumps(fake.requests[1].body)


def test_real_clients_invalid_json_twice_fails_clearly(provider: tuple[str, list[float]]) -> None:
    kind, sleeps = provider
    result, _ = fake_run(kind, ["no plan here", "{still: not json", "Nothing could be done."], sleeps)
    assert result.status == "failed" and result.steps == []
    assert any("plan was not valid JSON" in e and "try a stronger model or --llm none" in e for e in result.errors)
