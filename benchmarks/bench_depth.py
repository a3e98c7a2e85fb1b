"""Band-depth speed: planexec's exact MBD and BD next to scikit-fda's, measured in one run.

    .venv/bin/python benchmarks/bench_depth.py           # MBD 1000×200, BD 200×100
    .venv/bin/python benchmarks/bench_depth.py --quick   # small sizes

Goals: MBD >= 5x faster than scikit-fda's ModifiedBandDepth; BD >= 20x faster than its
pairwise BandDepth loop and equal to it. Times are the best of several repeats.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
from scipy.stats import spearmanr

from planexec.tools.curves_data import generate_ensemble_curves
from planexec.tools.fbplot import band_depth, modified_band_depth


def best_time(fn: Callable[[], np.ndarray], repeats: int) -> tuple[float, np.ndarray]:
    """Fastest wall time of `repeats` calls (after one warm-up) and the last result."""
    result = fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


def datasets(n: int, p: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    return {
        "sine ensemble": generate_ensemble_curves(n_curves=n, n_points=p, seed=0).state["curves"],
        "random walks": rng.normal(size=(n, p)).cumsum(axis=1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (seconds)")
    args = parser.parse_args()
    import skfda
    from skfda.exploratory.depth import BandDepth, ModifiedBandDepth

    mbd_size, bd_size = ((200, 50), (60, 40)) if args.quick else ((1000, 200), (200, 100))
    print(f"{'case':44s} {'planexec':>10s} {'scikit-fda':>11s} {'ratio':>7s}  check")

    n, p = mbd_size
    for name, x in datasets(n, p).items():
        fd = skfda.FDataGrid(x, np.linspace(0, 1, p))
        ours_t, ours = best_time(lambda x=x: modified_band_depth(x), 7)
        theirs_t, theirs = best_time(lambda fd=fd: ModifiedBandDepth()(fd), 7)
        rho = spearmanr(ours, theirs).statistic
        print(
            f"{f'MBD {n}x{p} {name}':44s} {ours_t * 1e3:8.2f}ms {theirs_t * 1e3:9.2f}ms "
            f"{theirs_t / ours_t:6.1f}x  Spearman {rho:.5f} (goal >= 5x)"
        )

    n, p = bd_size
    for name, x in datasets(n, p).items():
        fd = skfda.FDataGrid(x, np.linspace(0, 1, p))
        ours_t, ours = best_time(lambda x=x: band_depth(x), 5)
        theirs_t, theirs = best_time(lambda fd=fd: BandDepth()(fd), 2)
        diff = float(np.abs(ours - theirs).max())
        print(
            f"{f'BD {n}x{p} {name}':44s} {ours_t * 1e3:8.2f}ms {theirs_t * 1e3:9.2f}ms "
            f"{theirs_t / ours_t:6.1f}x  max |diff| {diff:.1e} (goal >= 20x, exact)"
        )


if __name__ == "__main__":
    main()
