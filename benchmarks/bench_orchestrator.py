"""Orchestrator overhead per step with instant tools (goal: < 2 ms per step).

Runs an N-step plan (a chain: each step depends on the one before) of a tool that returns at
once, with no LLM, and divides the run's wall time, minus the tools' own time, by N. Measured
twice side by side: lean (no report files, no checkpoints, no tool learning) and with those
defaults on.

    .venv/bin/python benchmarks/bench_orchestrator.py [--quick] [--steps N] [--repeats R]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

GOAL_MS = 2.0


def build(n_steps: int):
    from planexec.models import Plan, PlanStep
    from planexec.tools import ToolRegistry, tool

    @tool(type="data")
    def instant(k: int = 0) -> dict:
        """Return a small structured value at once."""
        return {"k": k, "ok": True}

    steps = tuple(
        PlanStep(i, f"instant step {i}", ("instant",), depends_on=(i - 1,) if i > 1 else (), args={"k": i})
        for i in range(1, n_steps + 1)
    )
    return ToolRegistry([instant]), Plan(steps, planner="bench"), instant


def tool_time(instant, n_steps: int) -> float:
    """Seconds the tool itself takes for n_steps calls (subtracted: we measure the orchestrator)."""
    from planexec.tools import ToolContext

    ctx = ToolContext()
    started = time.perf_counter()
    for i in range(n_steps):
        instant.run({"k": i}, ctx)
    return time.perf_counter() - started


def measure(config, n_steps: int, repeats: int) -> tuple[float, float]:
    """Median and best ms per step over `repeats` runs (after one warm-up run)."""
    from planexec.orchestrator import Orchestrator

    registry, plan, instant = build(n_steps)
    orch = Orchestrator(None, registry, config)
    orch.run("bench", plan=plan)  # warm-up: imports, first-use caches
    per_step = []
    for _ in range(repeats):
        started = time.perf_counter()
        result = orch.run("bench", plan=plan)
        elapsed = time.perf_counter() - started
        assert result.status == "succeeded" and len(result.steps) == n_steps, result.errors
        per_step.append((elapsed - tool_time(instant, n_steps)) / n_steps * 1000)
    return statistics.median(per_step), min(per_step)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10 steps, 3 repeats")
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    n, repeats = (10, 3) if args.quick else (args.steps, args.repeats)

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["PLANEXEC_HOME"] = str(Path(tmp) / "home")
        from planexec.config import Config

        base = Config.from_env(embedder="none", rag=False, output_root=Path(tmp) / "outputs")
        lean = base.replace(write_outputs=False, checkpoint=False, tool_learning=False)
        rows = [
            ("lean (no files, no checkpoints, no learning)", *measure(lean, n, repeats)),
            ("defaults (report files, checkpoint per step, learning)", *measure(base, n, repeats)),
        ]
    print(f"orchestrator overhead, {n}-step chain of an instant tool, no LLM, median of {repeats} runs")
    print(f"{'configuration':<58}{'median ms/step':>16}{'best ms/step':>14}{'goal ratio':>12}")
    for name, med, best in rows:
        print(f"{name:<58}{med:>16.3f}{best:>14.3f}{med / GOAL_MS:>11.2f}x")
    print(f"defaults / lean: {rows[1][1] / rows[0][1]:.2f}x")
    print(f"goal < {GOAL_MS} ms/step (lean): {'met' if rows[0][1] < GOAL_MS else 'NOT met'}")


if __name__ == "__main__":
    main()
