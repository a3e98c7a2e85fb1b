"""Twelve demo recordings: a sequential loop of `planexec run` CLI runs vs one `planexec batch`.

Both are real subprocesses on this machine, with the same library (created once beforehand, so
neither side pays for seeding it). The batch starts its own embedded Ray (2 CPUs here) and its
time includes Ray's start-up and each worker's cold start. Prints both wall times, the ratio
(goal >= 5x) and whether every recording's key figures are identical between the two.
Run: .venv/bin/python benchmarks/bench_batch.py [--recordings 12] [--frames 200] [--size 128]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
REQUEST = "Count the cells in the images"


def planexec(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", "from planexec.cli import main; main()", *args],
                          env=env, capture_output=True, text=True, check=False)


def sync_round_trip(root: Path, rounds: int = 10) -> tuple[int, float]:
    """Two clones of the library alternately record a reuse and sync: the per-run cost on a node."""
    from planexec.knowledge.embedder import get_embedder
    from planexec.knowledge.store import CapabilityStore
    from planexec.knowledge.sync import LibrarySync

    remote = str(root / "library.git")
    clones = [root / "clone-a", root / "clone-b"]
    for c in clones:
        CapabilityStore(c, get_embedder("none")).close()
        LibrarySync(c, remote).sync()
    took = 0.0
    for i in range(rounds):
        clone = clones[i % 2]
        store = CapabilityStore(clone, get_embedder("none"))
        store.record_use("compute_dff", True, 1.0)
        count = len(store)
        store.close()
        took += LibrarySync(clone, remote).sync().seconds
    return count, took / rounds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--recordings", type=int, default=12)
    parser.add_argument("--frames", type=int, default=200)
    parser.add_argument("--size", type=int, default=128)
    parser.add_argument("--num-cpus", type=int, default=2)
    args = parser.parse_args()

    from planexec.tools.calcium_demo import write_demo

    root = Path(tempfile.mkdtemp(prefix="bench-batch-"))
    env = dict(os.environ, PLANEXEC_HOME=str(root / "home"), PLANEXEC_OUTPUT_ROOT=str(root / "outputs"))
    sessions = root / "sessions"
    for i in range(args.recordings):
        write_demo(sessions / f"s{i:02d}", frames=args.frames, cells=15, size=args.size, seed=100 + i)
    first = planexec("run", REQUEST, "--images", str(sessions / "s00"), "--json", env=env)  # creates the library
    assert first.returncode == 0, first.stderr

    started = time.perf_counter()
    single: dict[str, dict[str, object]] = {}
    for rec in sorted(sessions.iterdir()):
        done = planexec("run", REQUEST, "--images", str(rec), "--json", env=env)
        result = json.loads(done.stdout)
        single[rec.name] = {"status": result["status"], "n_cells": result["results"].get("n_cells")}
    loop_s = time.perf_counter() - started

    started = time.perf_counter()
    done = planexec("batch", REQUEST, "--images-glob", str(sessions / "*"), "--output", str(root / "batch"),
                    "--num-cpus", str(args.num_cpus), env=env)
    batch_s = time.perf_counter() - started
    assert done.returncode == 0, done.stderr[-2000:]
    with (root / "batch" / "batch.csv").open() as fh:
        rows = {r["name"]: r for r in csv.DictReader(fh)}
    batched = {name: {"status": r["status"], "n_cells": int(r["n_cells"]) if r["n_cells"] else None}
               for name, r in rows.items()}
    warm = [float(r["seconds"]) for r in rows.values() if r["warm"] == "True"]
    cold = [float(r["seconds"]) for r in rows.values() if r["warm"] != "True"]
    same = single == batched
    sync_caps, sync_s = sync_round_trip(root)

    print(f"{args.recordings} recordings of {args.frames} frames {args.size}x{args.size}, request {REQUEST!r}")
    print(f"{'sequential planexec run loop':32s} {loop_s:8.1f} s  ({loop_s / args.recordings:.1f} s per recording)")
    print(f"{'planexec batch (local Ray)':32s} {batch_s:8.1f} s  ({batch_s / args.recordings:.1f} s per recording)")
    print(f"ratio (loop / batch)             {loop_s / batch_s:8.2f}x   goal >= 5x")
    if warm:
        print(f"inside the batch: cold runs {len(cold)} (mean {sum(cold) / max(len(cold), 1):.1f} s), "
              f"warm runs {len(warm)} (mean {sum(warm) / len(warm):.2f} s)")
    print(f"results identical to the single runs: {same}")
    if not same:
        for name in sorted(single):
            if single[name] != batched.get(name):
                print(f"  {name}: single {single[name]} batch {batched.get(name)}")
    print(f"library sync (fetch, merge, push) with {sync_caps} capabilities: "
          f"{sync_s * 1000:.0f} ms per round trip that merges a reuse record from another node")
    print(f"(files kept in {root})")


if __name__ == "__main__":
    main()
