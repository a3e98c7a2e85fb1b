"""What the event stream costs: run() (the loop in its own thread, each event handed to the caller)
vs the same loop called in the caller's thread with a plain subscriber, as run() was before iter().

A chain of trivial steps (a tool that returns at once), so the handoff is most of what differs.
Run: .venv/bin/python benchmarks/bench_stream.py [--quick]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="10 steps, 3 repeats instead of 30 and 7")
    args = parser.parse_args()
    n_steps, repeats = (10, 3) if args.quick else (30, 7)

    from planexec import Orchestrator
    from planexec.events import Event
    from tests.orchestration.helpers import Calls, config, nap_tools, plan, step

    steps = plan(*(step(i, "nap", args={"name": f"p{i}"}, deps=(i - 1,) if i > 1 else ())
                   for i in range(1, n_steps + 1)))
    orch = Orchestrator(tools=nap_tools(Calls()), config=config(max_parallel=1))
    seen: list[Event] = []

    def in_caller() -> str:  # the private loop, called as run() called it before it consumed iter()
        run = orch._start("run the parts", (), None, seen.append)
        return orch._drive(run, lambda: orch._plan(run, steps), None, None).status

    def streamed() -> str:
        return orch.run("run the parts", plan=steps, on_event=seen.append).status

    times: dict[str, list[float]] = {"in_caller": [], "streamed": []}
    for fn in (in_caller, streamed):
        fn()  # warm
    for _ in range(repeats):
        for name, fn in (("in_caller", in_caller), ("streamed", streamed)):
            seen.clear()
            started = time.perf_counter()
            assert fn() == "succeeded"
            times[name].append(time.perf_counter() - started)
    events = len(seen)
    base, stream = statistics.median(times["in_caller"]), statistics.median(times["streamed"])
    print(f"{n_steps}-step run, {events} events, median of {repeats}: loop in the caller {base * 1e3:.1f} ms, "
          f"run() over iter() {stream * 1e3:.1f} ms ({stream / base:.2f}x); "
          f"{(stream - base) / events * 1e6:.0f} us per event")
    print(f"load: {os.getloadavg()[0]:.2f} (1-min average, {os.cpu_count()} cores)")


if __name__ == "__main__":
    main()
