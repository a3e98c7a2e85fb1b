"""Calcium-imaging targets against demo ground truth: accuracy table, then speed and memory.

    .venv/bin/python benchmarks/bench_calcium.py            # full: 4 seeds x 4 noise levels, 1000x256x256
    .venv/bin/python benchmarks/bench_calcium.py --quick    # 2 seeds x 2 noise levels, 200x128x128

Targets: cell F1 >= 0.90 (4 px, one-to-one), event F1 >= 0.85 (±2 frames, same cell), and the
analysis chain (registration through classification) on 1,000 frames of 256x256 in <= 10 s with peak extra
memory below 4x the movie's float32 size. The chain runs the shipped capability snippets in
order in one namespace, in-process (the sandbox adds process start-up, not analysis time).
"""

from __future__ import annotations

import argparse
import time
import tracemalloc
from typing import Any

import numpy as np

from planexec.tools.calcium_demo import generate_demo
from planexec.tools.calcium_metrics import event_f1, match_cells
from planexec.tools.calcium_pipeline import CHAIN as FIELD_CHAIN
from planexec.tools.calcium_pipeline import run_in

CHAIN = list(FIELD_CHAIN)
FIRST_CHAIN = ["mean_projection", "segment_blobs", "extract_traces", "baseline_running",
               "compute_dff", "detect_events"]
"""The first release's chain (mean-image blobs, disk means, peak detection), kept for comparison."""


def run_chain(images: np.ndarray, ids: list[str] = CHAIN) -> tuple[dict[str, Any], dict[str, float]]:
    """Execute the snippets in order in one namespace; return it (cells only, when classified) and seconds."""
    result = run_in({"images": images}, ids)
    ns = dict(result.namespace)
    ns["cell_centroids"], ns["events"] = result.cells(), result.cell_events()
    return ns, result.seconds


def accuracy(seeds: list[int], noises: list[float], frames: int, cells: int, size: int) -> bool:
    print(f"accuracy: {frames} frames, {size}x{size}, {cells} cells; cell match 4 px, events ±2 frames")
    print(f"{'noise':>6} {'seed':>4} | {'cells P':>7} {'R':>5} {'F1':>5} | "
          f"{'events P':>8} {'R':>5} {'F1':>5} | {'true ev':>7}")
    worst_cell, worst_event = 1.0, 1.0
    sums = {"ctp": 0, "cfp": 0, "cfn": 0, "etp": 0, "efp": 0, "efn": 0}
    for noise in noises:
        for seed in seeds:
            movie, truth = generate_demo(frames, cells, size, seed, noise)
            ns, _ = run_chain(movie)
            cm = match_cells(truth.cell_centroids, ns["cell_centroids"])
            ev = event_f1(truth.spike_frames, ns["events"], cm, len(ns["cell_centroids"]))
            worst_cell, worst_event = min(worst_cell, cm.f1), min(worst_event, ev.f1)
            for key, val in zip(sums, (cm.tp, cm.fp, cm.fn, ev.tp, ev.fp, ev.fn), strict=True):
                sums[key] += val
            print(f"{noise:>6.3f} {seed:>4} | {cm.precision:>7.3f} {cm.recall:>5.3f} {cm.f1:>5.3f} | "
                  f"{ev.precision:>8.3f} {ev.recall:>5.3f} {ev.f1:>5.3f} | {truth.n_spikes:>7}")
    cell_f1 = 2 * sums["ctp"] / max(2 * sums["ctp"] + sums["cfp"] + sums["cfn"], 1)
    event_f1_all = 2 * sums["etp"] / max(2 * sums["etp"] + sums["efp"] + sums["efn"], 1)
    ok = worst_cell >= 0.90 and worst_event >= 0.85
    print(f"pooled: cell F1 {cell_f1:.3f} (worst {worst_cell:.3f}, target >= 0.90); "
          f"event F1 {event_f1_all:.3f} (worst {worst_event:.3f}, target >= 0.85) -> "
          f"{'MET' if ok else 'MISSED'}")
    return ok


VARIANTS = {
    "field order (default)": CHAIN,
    "first release (blobs)": FIRST_CHAIN,
    "watershed": [c if c != "segment_blobs" else "segment_watershed" for c in FIRST_CHAIN],
}


def variants(seeds: list[int], noises: list[float], frames: int, cells: int, size: int) -> None:
    """Side by side: pooled F1 of each chain variant, including noise beyond the target range."""
    print(f"\nvariants (pooled over seeds {seeds}; {frames} frames, {size}x{size}, {cells} cells; "
          "informative, not gated)")
    print(f"{'noise':>6} | " + " | ".join(f"{name:>26}" for name in VARIANTS))
    for noise in noises:
        cols = []
        for ids in VARIANTS.values():
            c = [0, 0, 0]
            e = [0, 0, 0]
            for seed in seeds:
                movie, truth = generate_demo(frames, cells, size, seed, noise)
                ns, _ = run_chain(movie, ids)
                cm = match_cells(truth.cell_centroids, ns["cell_centroids"])
                ev = event_f1(truth.spike_frames, ns["events"], cm, len(ns["cell_centroids"]))
                c = [a + b for a, b in zip(c, (cm.tp, cm.fp, cm.fn), strict=True)]
                e = [a + b for a, b in zip(e, (ev.tp, ev.fp, ev.fn), strict=True)]
            cf = 2 * c[0] / max(2 * c[0] + c[1] + c[2], 1)
            ef = 2 * e[0] / max(2 * e[0] + e[1] + e[2], 1)
            cols.append(f"cells {cf:.3f} events {ef:.3f}")
        print(f"{noise:>6.3f} | " + " | ".join(f"{col:>26}" for col in cols))


def speed(frames: int, size: int, cells: int, repeats: int) -> bool:
    movie, truth = generate_demo(frames, cells, size, seed=0, noise=0.02)
    movie_bytes = movie.nbytes
    print(f"\nspeed: {frames} frames of {size}x{size} ({movie_bytes / 2**20:.0f} MiB float32), "
          f"{cells} cells; best of {repeats}")
    best, best_times = float("inf"), {}
    for _ in range(repeats):
        start = time.perf_counter()
        ns, times = run_chain(movie)
        total = time.perf_counter() - start
        if total < best:
            best, best_times = total, times
    tracemalloc.start()
    run_chain(movie)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    for cid, sec in best_times.items():
        print(f"  {cid:<18} {sec:7.3f} s")
    cm = match_cells(truth.cell_centroids, ns["cell_centroids"])
    ev = event_f1(truth.spike_frames, ns["events"], cm, len(ns["cell_centroids"]))
    ratio = peak / movie_bytes
    limit_s = 10.0 * frames * size * size / (1000 * 256 * 256)
    ok = best <= limit_s and ratio < 4.0
    print(f"  total {best:.2f} s (target <= {limit_s:.2f} s: {limit_s / best:.1f}x headroom); "
          f"peak extra memory {peak / 2**20:.0f} MiB = {ratio:.2f}x the movie (target < 4x); "
          f"cells F1 {cm.f1:.3f}, events F1 {ev.f1:.3f} -> {'MET' if ok else 'MISSED'}")
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, a few seconds")
    args = parser.parse_args()
    if args.quick:
        ok = accuracy([0, 1], [0.02, 0.05], 200, 15, 128)
        variants([0], [0.02, 0.1], 200, 15, 128)
        ok &= speed(200, 128, 15, repeats=2)
    else:
        ok = accuracy([0, 1, 2, 3], [0.01, 0.02, 0.04, 0.06], 200, 15, 128)
        ok &= accuracy([0, 1], [0.02, 0.05], 1000, 30, 256)
        variants([0, 1, 2, 3], [0.02, 0.06, 0.1, 0.15], 200, 15, 128)
        ok &= speed(1000, 256, 30, repeats=3)
    print("\nall targets met" if ok else "\nSOME TARGETS MISSED")


if __name__ == "__main__":
    main()
