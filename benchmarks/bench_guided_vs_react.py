"""Guided execution vs free ReAct on the same scripted N-step tasks: LLM calls and prompt text.

Each task needs N tools called in turn (N = 2, 4, 8) out of 8 task tools that each return a
small structured result. Two catalogues are measured: the task tools registered beside
planexec's built-in tools (what a user's registry holds) and the 8 task tools alone. The model is a deterministic FunctionLLM that answers each
kind of prompt correctly, so the two modes do the same work and differ only in what they ask.
Goals: guided makes at most N+2 calls, and sends at least 2x less prompt text than ReAct at
N >= 4 (ReAct resends its whole growing history on every call).

    .venv/bin/python benchmarks/bench_guided_vs_react.py [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

CATALOGUE = 8


def registry(with_builtins: bool):
    from planexec.tools import ToolOutput, ToolRegistry, default_registry, tool

    def make(k: int):
        @tool(name=f"measure_{k}", type="statistics",
              description=f"Measure quantity {k} of a named target and report its statistics (mean, spread, range).")
        def measure(target: str, window: int = 10) -> ToolOutput:
            values = [round((k * 7 + i * 3) % 11 + 0.25 * i, 2) for i in range(window)]
            value = {f"value_{k}": sum(values) / len(values), "target": target, "window": window,
                     "min": min(values), "max": max(values), "values": values}
            return ToolOutput(value, summary=json.dumps(value), state={f"value_{k}": value[f"value_{k}"]},
                              results={f"value_{k}": value[f"value_{k}"]})

        return measure

    reg = default_registry() if with_builtins else ToolRegistry()
    for k in range(1, CATALOGUE + 1):
        reg.register(make(k))
    return reg


def request(n: int) -> str:
    return "For the target 'reactor', " + ", then ".join(f"measure quantity {k}" for k in range(1, n + 1)) + \
        ", and report every value."


def guided_llm(n: int):
    from planexec.llm import FunctionLLM, Message

    def answer(messages: Sequence[Message]) -> str:
        text = messages[-1].content
        if messages[0].role == "system" and "You plan work" in messages[0].content:
            return json.dumps({"rationale": "one tool per quantity", "steps": [
                {"step_num": k, "goal": f"Measure quantity {k} of reactor", "primary_tools": [f"measure_{k}"],
                 "success_criteria": f"produces value_{k}", "depends_on": [k - 1] if k > 1 else []}
                for k in range(1, n + 1)]})
        if "Reply with only the JSON arguments" in text:
            return json.dumps({"target": "reactor"})
        if "Did the output achieve the goal" in text:
            return json.dumps({"ok": True, "reason": "values present"})
        return "All quantities were measured: " + text[-200:]

    return FunctionLLM(answer)


def react_llm(n: int):
    from planexec.llm import FunctionLLM, Message

    def answer(messages: Sequence[Message]) -> str:
        done = sum(1 for m in messages if m.role == "user" and m.content.startswith("Observation:"))
        if done < n:
            k = done + 1
            return json.dumps({"thought": f"Next I measure quantity {k}.", "action": f"measure_{k}",
                               "action_input": {"target": "reactor"}})
        return json.dumps({"thought": "All measured.", "final_answer": "All quantities were measured."})

    return FunctionLLM(answer)


def run_both(n: int, with_builtins: bool) -> dict[str, dict[str, int]]:
    from planexec.config import Config
    from planexec.orchestrator import Orchestrator

    config = Config.from_env(embedder="none", rag=False, write_outputs=False, checkpoint=False, tool_learning=False)
    out: dict[str, dict[str, int]] = {}
    llm = guided_llm(n)
    result = Orchestrator(llm, registry(with_builtins), config).run(request(n))
    assert result.status == "succeeded" and len(result.steps) == n, (result.status, result.errors)
    out["guided"] = {"calls": result.usage.calls, "chars": result.usage.prompt_chars}
    llm = react_llm(n)
    result = Orchestrator(llm, registry(with_builtins), config).react(request(n), max_steps=n + 1)
    assert result.status == "succeeded" and len(result.steps) == n, (result.status, result.errors)
    out["react"] = {"calls": result.usage.calls, "chars": result.usage.prompt_chars}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="N = 2 and 4 only")
    args = parser.parse_args()
    sizes = (2, 4) if args.quick else (2, 4, 8)
    all_met = True
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["PLANEXEC_HOME"] = str(Path(tmp) / "home")
        for with_builtins in (True, False):
            rows = [(n, run_both(n, with_builtins)) for n in sizes]
            size = len(registry(with_builtins))
            label = "built-in tools + 8 task tools" if with_builtins else "the 8 task tools alone"
            met = table(rows, f"catalogue: {label} ({size} tools)")
            all_met &= met if with_builtins else True
    print("goals (built-in catalogue): " + ("all met" if all_met else "some NOT met"))


def table(rows: list[tuple[int, dict[str, dict[str, int]]]], title: str) -> bool:
    print(f"guided vs free ReAct, scripted N-step tasks; {title}")
    print(f"{'N':>3} {'guided calls':>13} {'react calls':>12} {'guided chars':>13} {'react chars':>12}"
          f" {'react/guided chars':>19}  goals")
    all_met = True
    for n, r in rows:
        g, f = r["guided"], r["react"]
        ratio = f["chars"] / g["chars"]
        calls_ok = g["calls"] <= n + 2
        chars_ok = ratio >= 2 if n >= 4 else True
        all_met &= calls_ok and chars_ok
        goals = f"calls<=N+2 {'met' if calls_ok else 'NOT met'}" + (
            f", chars>=2x {'met' if chars_ok else 'NOT met'}" if n >= 4 else "")
        print(f"{n:>3} {g['calls']:>13} {f['calls']:>12} {g['chars']:>13} {f['chars']:>12} {ratio:>18.2f}x  {goals}")
    print()
    return all_met

if __name__ == "__main__":
    main()
