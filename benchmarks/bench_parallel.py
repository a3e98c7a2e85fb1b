"""Parallel plan steps: wall time of independent and of dependent steps, parallel scheduler vs one at a time.

    .venv/bin/python benchmarks/bench_parallel.py [--quick] [--latency S] [--repeats N]

Prints, measured side by side in one run:
- 4 independent steps whose tool waits `latency` seconds: max_parallel=4 vs max_parallel=1
  (target: <= 1.4 s with 1 s latency, against ~4 s sequential);
- a chain of 4 dependent steps: the parallel scheduler must not slow it (target: < 5 %).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from planexec import Orchestrator
from planexec.config import Config
from planexec.models import Plan, PlanStep
from planexec.tools import ToolOutput, ToolRegistry, tool


def registry(latency: float) -> ToolRegistry:
    @tool(type="data")
    def remote_call(name: str) -> ToolOutput:
        """Stands for a tool waiting on I/O (an API, a database, a model server)."""
        time.sleep(latency)
        return ToolOutput({"name": name}, summary=name, results={name: len(name)})

    return ToolRegistry([remote_call])


def independent(n: int) -> Plan:
    return Plan(tuple(PlanStep(i, f"fetch part {i}", ("remote_call",), args={"name": f"part{i}"})
                      for i in range(1, n + 1)))


def chain(n: int) -> Plan:
    return Plan(tuple(PlanStep(i, f"stage {i}", ("remote_call",), args={"name": f"stage{i}"},
                               depends_on=(i - 1,) if i > 1 else ()) for i in range(1, n + 1)))


def wall(plan: Plan, max_parallel: int, latency: float, home: Path) -> float:
    config = Config(embedder="none", rag=False, write_outputs=False, max_replans=0, tool_learning=False,
                    max_parallel=max_parallel, home=home)
    orch = Orchestrator(tools=registry(latency), config=config)
    started = time.perf_counter()
    result = orch.run("fetch every part", plan=plan)
    elapsed = time.perf_counter() - started
    if result.status != "succeeded":
        sys.exit(f"benchmark run failed: {result.errors}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="0.2 s latency, 3 repeats")
    parser.add_argument("--latency", type=float, default=None, help="simulated tool latency in seconds (default 1)")
    parser.add_argument("--repeats", type=int, default=None, help="runs per configuration (median is shown)")
    args = parser.parse_args()
    latency = args.latency if args.latency is not None else (0.2 if args.quick else 1.0)
    repeats = args.repeats or 3
    steps = 4
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        wall(independent(1), 1, 0.0, home)  # warm-up: imports, first registry
        rows = []
        for name, plan in (("independent", independent(steps)), ("dependent chain", chain(steps))):
            times: dict[int, list[float]] = {1: [], 4: []}
            for _ in range(repeats):
                for width in (1, 4):  # interleaved, so drift affects both alike
                    times[width].append(wall(plan, width, latency, home))
            rows.append((name, statistics.median(times[1]), statistics.median(times[4])))
    print(f"{steps} steps, {latency:.2f} s simulated tool latency, median of {repeats} runs each")
    print(f"{'plan':<17}{'max_parallel=1':>16}{'max_parallel=4':>16}{'ratio 4/1':>11}")
    for name, seq, par in rows:
        print(f"{name:<17}{seq:>15.3f}s{par:>15.3f}s{par / seq:>11.3f}")
    (_, seq_i, par_i), (_, seq_c, par_c) = rows
    limit = 1.4 * latency
    print(f"independent: speed-up {seq_i / par_i:.2f}x; parallel wall {par_i:.3f} s "
          f"(target <= {limit:.2f} s: {'met' if par_i <= limit else 'MISSED'})")
    slower = par_c / seq_c - 1
    print(f"dependent chain: parallel scheduler {slower:+.2%} vs one at a time "
          f"(target < +5%: {'met' if slower < 0.05 else 'MISSED'})")


if __name__ == "__main__":
    main()
