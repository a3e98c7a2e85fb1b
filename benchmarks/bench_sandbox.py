"""Sandbox latency: warm fork-server runs vs a cold `python -c` importing numpy+scipy+skimage.

Prints p50/p95 of an isolated run of a trivial numpy snippet, the cold start, the ratio,
and the throughput of sequential runs, all measured in this one process. "Before/after":
the same runs with only the previous round's layers (rlimits, capabilities, landlock,
seccomp deny-list era) and with every layer, interleaved so machine load hits both alike.
`--profile` prints where an isolated run's time goes instead: each start-up phase the worker
reports (negative: done by the spare before the request came) and the host's own steps.
Run: .venv/bin/python benchmarks/bench_sandbox.py [--quick] [--profile]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

from planexec.sandbox import Sandbox, shutdown
from planexec.sandbox.handle import Worker
from planexec.sandbox.preload import PRELOAD

SNIPPET = "results = {'mean': float(np.arange(100).mean())}"
# The baseline: the three top-level packages (skimage loads its submodules lazily).
COLD = "import numpy, scipy, skimage; print(float(numpy.arange(100).mean()))"
# What a cold worker must import to offer the same environment as a warm one.
COLD_SAME_ENV = f"import importlib; [importlib.import_module(m) for m in {list(PRELOAD)!r}]"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def profile(n: int) -> None:
    """Median end time and duration of each phase of an isolated run (every layer)."""
    sb = Sandbox()
    ends: dict[str, list[float]] = {}
    spans: dict[str, list[float]] = {}
    for i in range(n + 3):
        t0 = time.perf_counter()
        worker = Worker(sb, {}, cpu_seconds=31)
        ready = time.perf_counter()
        worker.run(SNIPPET, 30)
        ran = time.perf_counter()
        worker.close()
        closed = time.perf_counter()
        host = [("host: worker ready", ready), ("host: run answered", ran), ("host: closed", closed)]
        phases = worker.phases + [(name, (t - t0) * 1e3) for name, t in host]
        if i < 3:
            continue  # the first runs start the server and its spares
        previous = None
        for name, end in phases:
            ends.setdefault(name, []).append(end)
            if previous is not None:
                spans.setdefault(name, []).append(end - previous)
            previous = end
    shutdown()
    print(f"isolated run, every layer, n={n}: phase end (ms after the spawn request) and its "
          "duration, medians")
    for name, values in ends.items():
        span = spans.get(name)
        took = f"{statistics.median(span):7.2f}" if span else "       "
        print(f"  {name:24s} end {statistics.median(values):7.2f}   took {took}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes (a few seconds)")
    parser.add_argument("--profile", action="store_true", help="where an isolated run's time goes")
    args = parser.parse_args()
    warm_n, cold_n, batch = (20, 3, 20) if args.quick else (100, 10, 100)
    load = os.getloadavg()[0]
    if args.profile:
        profile(warm_n)
        print(f"load average (1 min): {load:.2f} at start, {os.getloadavg()[0]:.2f} at end ({os.cpu_count()} cpus)")
        return

    sb = Sandbox()
    started = time.perf_counter()
    assert sb.run(SNIPPET).ok
    first = time.perf_counter() - started
    for _ in range(3):
        sb.run(SNIPPET)

    before_layers = tuple(n for n in ("rlimits", "capabilities", "landlock", "seccomp")
                          if n in Sandbox.capabilities().layers)
    old = Sandbox(layers=before_layers)
    warm, warm_old = [], []
    for _ in range(warm_n):
        for box, into in ((sb, warm), (old, warm_old)):
            t = time.perf_counter()
            result = box.run(SNIPPET)
            into.append(time.perf_counter() - t)
            assert result.ok, result.error

    def cold_runs(code: str) -> list[float]:
        times = []
        for _ in range(cold_n):
            t = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
            times.append(time.perf_counter() - t)
        return times

    cold = cold_runs(COLD)
    cold_env = cold_runs(COLD_SAME_ENV)

    t = time.perf_counter()
    for _ in range(batch):
        sb.run(SNIPPET)
    elapsed = time.perf_counter() - t

    with sb.session() as session:
        session.run("results = {}")
        sess = []
        for _ in range(warm_n):
            t = time.perf_counter()
            session.run(SNIPPET)
            sess.append(time.perf_counter() - t)
    shutdown()

    w50, w95 = percentile(warm, 0.5) * 1e3, percentile(warm, 0.95) * 1e3
    c50, c95 = percentile(cold, 0.5) * 1e3, percentile(cold, 0.95) * 1e3
    print(f"layers: {', '.join(Sandbox.capabilities().layers)} + policy")
    print(f"first run (starts the fork server): {first * 1e3:8.1f} ms")
    print(f"warm isolated run   p50 {w50:8.1f} ms   p95 {w95:8.1f} ms   (n={warm_n}, every layer)")
    o50, o95 = percentile(warm_old, 0.5) * 1e3, percentile(warm_old, 0.95) * 1e3
    print(f"  same, before-layers p50 {o50:6.1f} ms   p95 {o95:8.1f} ms   ({', '.join(before_layers)}; "
          f"interleaved) -> every layer costs {w50 / o50:4.2f}x")
    print(f"cold python -c      p50 {c50:8.1f} ms   p95 {c95:8.1f} ms   (n={cold_n})")
    print(f"session run         p50 {percentile(sess, 0.5) * 1e3:8.1f} ms   "
          f"p95 {percentile(sess, 0.95) * 1e3:8.1f} ms")
    e50, e95 = percentile(cold_env, 0.5) * 1e3, percentile(cold_env, 0.95) * 1e3
    print(f"cold, same env      p50 {e50:8.1f} ms   p95 {e95:8.1f} ms   (imports the warm server's {len(PRELOAD)} modules)")
    print(f"speed-up warm vs cold numpy+scipy+skimage (p50): {c50 / w50:6.1f}x   (goal >= 10x; warm p50 goal <= 20 ms)")
    print(f"speed-up warm vs cold with the same environment (p50): {e50 / w50:6.1f}x")
    print(f"throughput: {batch} isolated runs in {elapsed:.2f} s = {batch / elapsed:.1f} runs/s "
          f"(mean {statistics.fmean(warm) * 1e3:.1f} ms)")
    print(f"load average (1 min): {load:.2f} at start, {os.getloadavg()[0]:.2f} at end ({os.cpu_count()} cpus)")


if __name__ == "__main__":
    main()
