"""A real model can only add: each request offline and with gemma-3-270m, each transport fault, and plan prompt size.

Starts llama-cpp-python's server (the `local-llm` extra) on a free loopback port and prints:
1. each request of issue 21: status offline and with the model, right / honest (not done, says
   so) / wrong, wall time, model requests and tokens, the run's deadline;
2. each transport fault through the fault-injecting proxy (persistent, and once-then-healthy
   for the transient ones): outcome, time against the deadline, the one-line error;
3. the plan prompt's tokens (the server's tokenizer) with 18 stored capabilities, the starter
   library, and 1,000, offering the retrieved capabilities vs listing the whole library.
Run: .venv/bin/python benchmarks/bench_real_llm.py [--timeout 90] [--skip-requests] [--skip-faults] [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")


def _config(tmp: Path, base_url: str | None, timeout: float):  # noqa: ANN202 - planexec imported lazily
    from planexec import Config

    return Config.from_env(llm="openai" if base_url else "none", base_url=base_url, model="gemma-3-270m",
                           timeout=timeout, llm_timeout=min(60.0, timeout), llm_max_retries=2,
                           home=tmp / "home", output_root=tmp / "out", checkpoint=False, llm_stream=bool(base_url))


def requests_table(base_url: str, tmp: Path, timeout: float) -> list[str]:
    from planexec import Orchestrator
    from tests.real_llm.cases import cases, judge

    rows = [f"{'request':<44} {'offline':<22} {'with the model':<22} {'s':>6} {'calls':>5} {'tokens':>7} "
            f"{'deadline':>8}  why not done (with the model)"]
    wrong = 0
    for case in cases(tmp):
        offline = Orchestrator.from_config(_config(tmp, None, timeout)).run(case.request)
        started = time.monotonic()
        online = Orchestrator.from_config(_config(tmp, base_url, timeout)).run(case.request)
        took = time.monotonic() - started
        a, b = judge(offline, case.check), judge(online, case.check)
        wrong += b == "wrong" and a != "wrong"
        late = " LATE" if took > timeout + 5 else ""
        rows.append(f"{case.name:<44} {offline.status + ' / ' + a:<22} {online.status + ' / ' + b:<22} "
                    f"{took:6.1f} {online.usage.calls:5d} {online.usage.prompt_tokens + online.usage.completion_tokens:7d} "
                    f"{timeout:7.0f}s{late}  {_why(online)}")
    rows.append(f"runs the model made wrong (right or honest offline): {wrong}")
    return rows


def _why(result) -> str:  # noqa: ANN001 - a RunResult
    """The first reason a run that did not succeed gives, on one short line."""
    if result.status == "succeeded":
        return ""
    reasons = list(result.errors) or [line for line in result.answer.splitlines() if line.strip()]
    return (reasons[0] if reasons else "")[:110]


def faults_table(base_url: str, deadline: float) -> list[str]:
    from planexec.config import Config
    from planexec.errors import PlanexecError
    from planexec.llm.base import Message
    from planexec.llm.bounded import BoundedLLM
    from planexec.llm.openai_chat import OpenAIChat
    from planexec.llm.retry import RetryPolicy
    from tests.real_llm.proxy import FAULTS, FaultProxy

    rows = [f"{'fault':<26} {'script':<12} {'outcome':<8} {'s':>6} {'deadline':>8}  message"]
    plans = [(name, "persistent", [FAULTS[name]] * 20) for name in FAULTS]
    plans += [(name, "once", [FAULTS[name]]) for name in ("429 with Retry-After", "429 without Retry-After", "500", "503")]
    for name, script, faults in plans:
        with FaultProxy(base_url, faults) as proxy:
            client = OpenAIChat("gemma-3-270m", None, proxy.base_url, timeout=deadline,
                                retry=RetryPolicy(max_retries=3, base=0.2, cap=1.0))
            llm = BoundedLLM(client, Config(timeout=deadline, llm_timeout=deadline))
            llm.start_run()
            started = time.monotonic()
            try:
                llm.complete([Message("user", "Say yes.")], max_tokens=4)
                outcome, message = "answer", f"requests: {' -> '.join(proxy.seen)}"
            except PlanexecError as exc:
                outcome, message = "error", str(exc)
            finally:
                client.close()
            took = time.monotonic() - started
        late = " LATE" if took > deadline + 5 else ""
        rows.append(f"{name:<26} {script:<12} {outcome:<8} {took:6.1f} {deadline:7.0f}s{late}  {message[:150]}")
    return rows


def _tokens(base_url: str, text: str) -> int:
    root = base_url.rsplit("/v1", 1)[0]
    req = urllib.request.Request(f"{root}/extras/tokenize", data=json.dumps({"input": text}).encode(),
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as reply:
            return len(json.loads(reply.read())["tokens"])
    except OSError:
        return len(text) // 4


def prompt_table(base_url: str, tmp: Path) -> list[str]:
    from planexec.context import capability_store
    from planexec.planner_llm import _SYSTEM, LLMPlanner, offer_for
    from planexec.protocols import PlanningContext
    from planexec.similarity import default_scorer
    from planexec.tools import default_registry

    config = _config(tmp, None, 60)
    starters = list(capability_store(config).list())
    topics = ["spike", "baseline", "correlation", "roi", "curve", "table", "histogram", "wavelet", "trend", "filter"]
    extra = [SimpleNamespace(id=f"cap_{i:04d}", name=f"cap {i}", inputs=("traces",), outputs=(f"out_{i}",), examples=(),
                             metadata={}, description=f"Compute the {topics[i % 10]} statistic variant {i} of each trace "
                                                      f"with window {i % 17} and method m{i % 7}")
             for i in range(1000 - len(starters))]
    scorer = default_scorer(config.embedder, tmp / "index")
    request = "Compute the skewness of each cell trace and plot a histogram of it"
    rows = [f"{'stored capabilities':<20} {'offered':>8} {'prompt tokens (retrieved)':>26} {'prompt tokens (all listed)':>27}"]
    for caps in (starters[:18], starters, starters + extra):
        ctx = PlanningContext(request, default_registry(), capabilities=tuple(caps), variables=("traces",))
        planner = LLMPlanner(None, scorer)  # type: ignore[arg-type] - only the prompt is built
        offer = offer_for(ctx, scorer)
        retrieved = _tokens(base_url, _SYSTEM + planner.prompt(ctx, offer))
        everything = _tokens(base_url, _SYSTEM + LLMPlanner(None, None).prompt(ctx, offer_for(ctx, None)))  # type: ignore[arg-type]
        rows.append(f"{len(caps):<20} {len(offer.capabilities):>8} {retrieved:>26} {everything:>27}")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--timeout", type=float, default=90.0, help="each run's deadline in seconds")
    parser.add_argument("--fault-deadline", type=float, default=10.0, help="each faulty call's deadline")
    parser.add_argument("--skip-requests", action="store_true")
    parser.add_argument("--skip-faults", action="store_true")
    parser.add_argument("--quick", action="store_true", help="faults and prompt size only (what `make bench` runs)")
    args = parser.parse_args()
    args.skip_requests = args.skip_requests or args.quick
    from planexec.llm.local_server import LocalServer

    with tempfile.TemporaryDirectory() as tmp_name, LocalServer() as server:
        tmp = Path(tmp_name)
        print(f"llama-cpp-python server with gemma-3-270m at {server.base_url}; load average {os.getloadavg()[0]:.1f}")
        if not args.skip_requests:
            print("\n".join(["", "Requests", *requests_table(server.base_url, tmp, args.timeout)]))
        if not args.skip_faults:
            print("\n".join(["", "Transport faults", *faults_table(server.base_url, args.fault_deadline)]))
        print("\n".join(["", "Plan prompt", *prompt_table(server.base_url, tmp)]))


if __name__ == "__main__":
    main()
