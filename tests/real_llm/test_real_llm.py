"""A real model (gemma-3-270m on llama.cpp's server) and a fault-injecting proxy: a model can only add.

Every run is right or honestly not done, never `succeeded` with a missing or wrong result;
every run and call ends within its deadline; every transport failure is one line naming
the server. One server serves the whole module (session fixture in conftest).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from planexec import Config, Orchestrator
from planexec.errors import PlanexecError
from planexec.llm.base import Message
from planexec.llm.bounded import BoundedLLM
from planexec.llm.local_server import MODEL_ALIAS, LocalServer
from planexec.llm.openai_chat import OpenAIChat
from planexec.llm.retry import RetryPolicy
from tests.real_llm.cases import cases, judge
from tests.real_llm.proxy import FAULTS, FaultProxy

pytestmark = [pytest.mark.slow, pytest.mark.real_llm]

SLACK = 5.0
IMAGES = Path(__file__).resolve().parents[2] / "data" / "images"
"""Seconds a run or call may end after its deadline (closing sockets, writing reports)."""


def config(tmp_path: Path, base_url: str | None, timeout: float) -> Config:
    return Config.from_env(llm="openai" if base_url else "none", base_url=base_url, model=MODEL_ALIAS,
                           timeout=timeout, llm_timeout=min(timeout, 30.0), llm_max_retries=2, embedder="none",
                           rag=False, home=tmp_path / "home", output_root=tmp_path / "out", checkpoint=False,
                           max_tokens_plan=256, llm_stream=True)  # a cut reply must not keep the shared server busy


def _bounded(url: str, timeout: float) -> BoundedLLM:
    client = OpenAIChat(MODEL_ALIAS, None, url, timeout=timeout, retry=RetryPolicy(max_retries=3, base=0.2, cap=1.0))
    bounded = BoundedLLM(client, Config(timeout=timeout, llm_timeout=timeout))
    bounded.start_run()
    return bounded


@pytest.mark.parametrize("fault", ["429 with Retry-After", "429 without Retry-After", "500", "503"])
def test_a_transient_fault_is_retried_and_the_real_answer_arrives(local_server: LocalServer, fault: str) -> None:
    with FaultProxy(local_server.base_url, [FAULTS[fault]]) as proxy:
        llm = _bounded(proxy.base_url, 60)
        try:
            done = llm.complete([Message("user", "Say yes.")], max_tokens=4)
        finally:
            llm.close()
        assert proxy.seen == [fault, "forward"] and done.usage.calls == 1
        assert llm.budget.calls == 2  # the retry counted against the run's request budget


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_a_persistent_fault_ends_by_the_deadline_with_one_line_naming_the_server(
        local_server: LocalServer, fault: str) -> None:
    deadline = 8.0
    with FaultProxy(local_server.base_url, [FAULTS[fault]] * 20) as proxy:
        llm = _bounded(proxy.base_url, deadline)
        started = time.monotonic()
        try:
            with pytest.raises(PlanexecError) as caught:
                llm.complete([Message("user", "Say yes.")], max_tokens=4)
        finally:
            llm.close()
        took = time.monotonic() - started
    message = str(caught.value)
    assert took < deadline + SLACK, f"{fault}: took {took:.1f} s"
    assert "\n" not in message and proxy.base_url in message, message


def test_a_streamed_reply_cut_at_the_deadline_frees_the_server_for_the_next_request(local_server: LocalServer) -> None:
    """llama-cpp-python writes a non-streamed reply to the end after its client left; a streamed one it stops."""
    client = OpenAIChat(MODEL_ALIAS, None, local_server.base_url, timeout=60, retry=RetryPolicy(max_retries=0))
    client.stream = True
    try:
        cut = BoundedLLM(client, Config(timeout=3.0))
        cut.start_run()
        with pytest.raises(PlanexecError, match="deadline|did not answer in time"):
            cut.complete([Message("user", "Write a long story about a lighthouse keeper.")], max_tokens=600)
        after = BoundedLLM(client, Config(timeout=30.0))  # 600 tokens still being written would take minutes here
        after.start_run()
        assert after.complete([Message("user", "Say yes.")], max_tokens=4).finish_reason
    finally:
        client.close()


# After the fault tests: a covered request makes no call, but a cut-off one may leave the server busy.
def test_every_request_right_offline_is_right_with_the_model(local_server: LocalServer, tmp_path: Path) -> None:
    for case in cases(tmp_path):
        offline = Orchestrator.from_config(config(tmp_path, None, 120)).run(case.request)
        started = time.monotonic()
        online = Orchestrator.from_config(config(tmp_path, local_server.base_url, 60)).run(case.request)
        took = time.monotonic() - started
        before, after = judge(offline, case.check), judge(online, case.check)
        assert took < 60 + SLACK, f"{case.name}: ran {took:.0f} s past a 60 s deadline"
        assert after != "wrong" or before == "wrong", f"{case.name}: the model made a run wrong: {online.answer}"
        if before == "right":
            assert after == "right", f"{case.name}: right offline, {online.status} with the model: {online.errors}"
            assert online.usage.calls == 0, f"{case.name}: a covered request asked the model"


def test_a_quantity_no_step_computes_is_not_succeeded_with_the_model_either(
        local_server: LocalServer, tmp_path: Path) -> None:
    """Offline this ends partial ("computes no fraction"); a model may add a step that computes it, never a claim."""
    request = "what fraction of the neurons fire at least one transient?"
    started = time.monotonic()
    result = Orchestrator.from_config(config(tmp_path, local_server.base_url, 45)).run(request, images=IMAGES)
    assert time.monotonic() - started < 45 + SLACK
    if result.status == "succeeded":
        assert any(w in k for k in result.results for w in ("fraction", "proportion", "percent")), result.results
    else:
        assert "fraction" in result.answer, result.answer


# Last in the module: a run cut at its deadline leaves the server finishing the abandoned reply.
def test_an_uncovered_request_goes_to_the_model_and_ends_honestly_by_its_deadline(
        local_server: LocalServer, tmp_path: Path) -> None:
    request = "Compute the spectral entropy of the revenue column in data/examples/sales.csv"
    started = time.monotonic()
    result = Orchestrator.from_config(config(tmp_path, local_server.base_url, 45)).run(request)
    took = time.monotonic() - started
    assert took < 45 + SLACK
    assert result.plan is None or result.plan.planner != "heuristic"  # the model was asked, not the offline planner
    if result.status == "succeeded":  # only with a result that names what was asked
        assert any("entropy" in k for k in result.results), result.results
    elif result.status == "not_covered":  # the model's plan was refused: the answer says so
        assert "model was asked, and its plan was refused" in result.answer, result.answer
    else:
        assert result.errors or "Not done" in result.answer or "failed" in result.answer  # says what did not happen
