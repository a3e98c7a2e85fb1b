"""The calcium job through the whole product: `Orchestrator().run()` on 1,000 frames of 256x256.

Plans offline, runs every capability in the run's sandbox session, writes reports and figures.
Prints wall time per phase, accuracy against ground truth, and peak memory (this process and
the sandbox worker, as RSS high-water marks) against the movie's float32 size.
Targets: analysed in <= 10 s on 2 cores; memory below 4x the movie's size.
Run: .venv/bin/python benchmarks/bench_calcium_run.py [--quick]
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="200 frames of 128x128")
    args = parser.parse_args()
    frames, size, cells = (200, 128, 15) if args.quick else (1000, 256, 30)

    import numpy as np

    from planexec import Config, Orchestrator
    from planexec.knowledge.embedder import get_embedder
    from planexec.sandbox import Sandbox
    from planexec.tools.calcium_demo import generate_demo
    from planexec.tools.calcium_metrics import event_f1, match_cells

    movie, truth = generate_demo(frames=frames, cells=cells, size=size, seed=1, noise=0.02)
    movie = movie.astype(np.float32)
    movie_mb = movie.nbytes / 2**20
    t = time.perf_counter()
    get_embedder("auto").embed(["warm up"])
    Sandbox().run("results = {}")
    warm = time.perf_counter() - t
    base_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    with tempfile.TemporaryDirectory() as tmp:
        stack = Path(tmp) / "movie.npy"
        np.save(stack, movie)
        del movie
        config = Config.from_env(home=Path(tmp) / "home", output_root=Path(tmp) / "out")
        orch = Orchestrator(config=config)
        orch.run("Count the cells", images=stack)  # a first run fills the capability store and indexes
        t = time.perf_counter()
        result = orch.run("Detect calcium transients and measure their amplitude", images=stack)
        wall = time.perf_counter() - t
    assert result.status == "succeeded", result.errors
    peak_parent = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    peak_child = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    r = result.results
    cell = match_cells(truth.cell_centroids, r["cell_centroids"])
    ev = event_f1(truth.spike_frames, r["events"], cell, len(r["cell_centroids"]))
    steps = sum(s.duration for s in result.steps)
    print(f"movie: {frames} frames of {size}x{size} float32 = {movie_mb:.0f} MiB; warm-up {warm:.1f} s (once per process)")
    print(f"wall: {wall:.2f} s  (context {result.timings['context']:.2f}, plan {result.timings['plan']:.2f}, "
          f"steps {steps:.2f} summed over {len(result.steps)} steps)   goal <= 10 s: {'met' if wall <= 10 else 'MISSED'}")
    print(f"cells: F1 {cell.f1:.3f} ({r['n_cells'] if 'n_cells' in r else len(r['cell_centroids'])} found, "
          f"{len(truth.cell_centroids)} true); events: F1 {ev.f1:.3f} ({r['n_transients']} found, {truth.n_spikes} true)")
    extra_parent = peak_parent - base_rss
    print(f"peak RSS: this process {peak_parent:.0f} MiB (+{extra_parent:.0f} over the warm process), "
          f"sandbox worker {peak_child:.0f} MiB")
    worst = max(extra_parent, peak_child)
    print(f"largest of the two vs movie: {worst / movie_mb:.2f}x   goal < 4x: {'met' if worst < 4 * movie_mb else 'MISSED'}")


if __name__ == "__main__":
    main()
