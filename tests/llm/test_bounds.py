"""Bounds on model use: max_tokens per purpose, one run deadline, request/token budgets, slow bodies cut."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from planexec.config import Config
from planexec.errors import ConfigError, LLMError
from planexec.llm import ScriptedLLM
from planexec.llm.base import Message
from planexec.llm.bounded import BoundedLLM
from planexec.llm.budget import BudgetExhausted, RunBudget, Throughput
from planexec.llm.openai_chat import OpenAIChat
from planexec.llm.retry import RetryPolicy

HI = [Message("user", "hi")]


class _Recorder(ScriptedLLM):
    def complete(self, messages: Any, **kw: Any) -> Any:  # records max_tokens as sent
        self.sent = kw.get("max_tokens")
        return super().complete(messages, **kw)


def test_each_purpose_gets_its_configured_reply_length() -> None:
    cfg = Config(max_tokens_plan=111, max_tokens_answer=22)
    inner = _Recorder(["a", "b"])
    bounded = BoundedLLM(inner, cfg)
    bounded.for_purpose("plan").complete(HI)
    assert inner.sent == 111
    bounded.for_purpose("answer").complete(HI)
    assert inner.sent == 22
    with pytest.raises(ConfigError, match="unknown model purpose 'poem'"):
        bounded.for_purpose("poem")


def test_the_request_budget_counts_every_call_and_stops_with_which_budget() -> None:
    bounded = BoundedLLM(ScriptedLLM(["a"] * 5), Config(llm_max_calls=2))
    bounded.start_run()
    bounded.complete(HI)
    bounded.complete(HI)
    with pytest.raises(BudgetExhausted, match="budget of 2 model requests is spent") as caught:
        bounded.for_purpose("plan").complete(HI)
    assert caught.value.which == "calls" and "plan request" in str(caught.value)
    bounded.start_run()  # a new run gets a fresh budget
    assert bounded.complete(HI).text == "a"


def test_the_token_budget_and_the_deadline_stop_a_run() -> None:
    bounded = BoundedLLM(ScriptedLLM(["x" * 400] * 3), Config(llm_max_tokens=50))
    bounded.start_run()
    bounded.complete(HI)
    with pytest.raises(BudgetExhausted, match="model tokens is spent"):
        bounded.complete(HI)
    budget = RunBudget.starting_now(0.01, 10, 10)
    time.sleep(0.02)
    with pytest.raises(BudgetExhausted, match=r"deadline \(0.01 s\) passed during the plan request"):
        budget.check("the plan request")


def test_a_closed_budget_refuses_every_call_and_says_why() -> None:
    bounded = BoundedLLM(ScriptedLLM(["a"]), Config())
    bounded.start_run().close("the library covers every clause")
    with pytest.raises(BudgetExhausted, match="no model call for the answer request: the library covers"):
        bounded.complete(HI)


class _Trickle(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a: Any) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = b'{"choices": [{"message": {"content": "ok"}}]}' + b" " * 200
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            for b in body:
                self.wfile.write(bytes([b]))
                self.wfile.flush()
                time.sleep(0.1)
        except OSError:
            pass


@pytest.fixture
def trickle_url() -> Any:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Trickle)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_a_server_trickling_bytes_is_cut_at_the_run_deadline(trickle_url: str) -> None:
    """Each read arrives well within the 30 s read timeout; only the whole-request deadline can end it."""
    client = OpenAIChat("m", "k", trickle_url, timeout=30, retry=RetryPolicy(max_retries=3, base=0.05, cap=0.1))
    bounded = BoundedLLM(client, Config(timeout=1.5))
    bounded.start_run()
    started = time.monotonic()
    try:
        with pytest.raises(LLMError) as caught:
            bounded.complete(HI)
    finally:
        client.close()
    took = time.monotonic() - started
    assert took < 1.5 + 5, took  # uncut, the 246-byte body alone would take 25 s; slack for a loaded machine
    message = str(caught.value)
    assert trickle_url in message and "\n" not in message
    assert "deadline" in message or "still arriving" in message


def test_free_react_mode_goes_through_the_bounded_client() -> None:
    """Each turn carries the ReAct reply length; the request budget and the deadline end the loop."""
    from planexec import Orchestrator
    from tests.core.helpers import fast_config, toolbox

    turn = '{"thought": "again", "action": "steady", "action_input": {}}'
    inner = _Recorder([turn] * 5)
    result = Orchestrator(inner, toolbox(), fast_config(llm_max_calls=2, max_tokens_react=77)).react("loop")
    assert inner.sent == 77 and len(inner.calls) == 2
    assert result.status == "partial" and "budget of 2 model requests is spent" in result.errors[0]
    timed_out = Orchestrator(ScriptedLLM([turn]), toolbox(), fast_config(timeout=1e-9)).react("loop")
    assert timed_out.status == "failed" and "deadline (1e-09 s) passed after 0 step(s)" in timed_out.errors[0]


def test_no_reply_is_asked_longer_than_the_measured_speed_delivers_before_the_deadline() -> None:
    """10 tokens/s measured and 5 s left: at most ~50 tokens asked; 2 s left: no request at all."""
    inner = _Recorder(["a"])
    bounded = BoundedLLM(inner, Config(timeout=5.0, max_tokens_code=1536))
    bounded.speed.observe(100, 10.0)
    bounded.start_run()
    bounded.for_purpose("code").complete(HI)
    assert 32 <= inner.sent <= 50
    assert bounded.speed.fit(20, bounded.budget, "x") == 20  # a short reply is asked for as it is
    slow = Throughput()
    slow.observe(100, 10.0)
    with pytest.raises(BudgetExhausted, match=r"leaves 2 s, about 1\d tokens at the 10.0 tokens/s .* too little for"):
        slow.fit(1536, RunBudget.starting_now(2.0, 10, 10_000), "the code request")
