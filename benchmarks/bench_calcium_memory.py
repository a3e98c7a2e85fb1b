"""Peak memory of the whole process tree, streamed from disk versus loaded whole, next to the movie's size.

    .venv/bin/python benchmarks/bench_calcium_memory.py                  # 2,000 and 10,000 frames of 512x512
    .venv/bin/python benchmarks/bench_calcium_memory.py --quick          # 300 frames of 128x128

Each measurement runs in a fresh child process; a sampler reads /proc every 50 ms and sums the
resident memory (VmRSS, and its anonymous part RssAnon) of the child and all its descendants.
The pipeline is the streamed one (`calcium_stream`): rigid registration and mean/max
projections in one pass, blob segmentation of the mean image, then F and neuropil Fneu in a
second pass. "in memory" runs the same functions on the movie loaded whole by `load_stack`
(float32), for the smaller movies only; its F is compared with the streamed F. The goal:
peak <= 1.5 GB on 512x512x10,000 uint8 (2.6 GB). Not part of the test suite (minutes).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

CHILD = r"""
import json, sys, time
import numpy as np
from skimage.feature import blob_log
from planexec.tools.calcium_io import load_stack
from planexec.tools.calcium_movie import open_movie
from planexec.tools.calcium_stream import extract_traces, neuropil_pixels, register_and_project, roi_pixels

path, mode, out = sys.argv[1], sys.argv[2], sys.argv[3]
started = time.perf_counter()
movie = open_movie(path, axes="TYX") if mode == "streamed" else load_stack(path, axes="TYX")[0]
p1 = register_and_project(movie)
blobs = blob_log(p1.mean_image / p1.mean_image.max(), min_sigma=2, max_sigma=5, threshold=0.05)
labels = np.zeros(p1.mean_image.shape, np.int32)
yy, xx = np.mgrid[:labels.shape[0], :labels.shape[1]]
for i, (y, x, s) in enumerate(blobs, start=1):
    labels[(yy - y) ** 2 + (xx - x) ** 2 <= (1.41 * s) ** 2] = i
F, Fneu = extract_traces(movie, roi_pixels(labels), neuropil_pixels(labels), p1.offsets)
np.save(out, F)
print(json.dumps({"seconds": time.perf_counter() - started, "rois": int(labels.max()),
                  "offsets_max": int(np.abs(p1.offsets).max())}))
"""


def write_movie(path: Path, frames: int, size: int, seed: int = 0) -> None:
    """A uint8 movie written chunk by chunk: bright disks blinking on a textured field, jittered by ±3 px."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[:size, :size]
    base = 40 + 10 * np.sin(yy / 7.0) * np.cos(xx / 9.0)
    cells = [(rng.uniform(10, size - 10), rng.uniform(10, size - 10)) for _ in range(max(8, size // 8))]
    masks = [((yy - y) ** 2 + (xx - x) ** 2 <= 16) for y, x in cells]
    out = np.lib.format.open_memmap(path, mode="w+", dtype=np.uint8, shape=(frames, size, size))
    chunk = 100
    for start in range(0, frames, chunk):
        n = min(chunk, frames - start)
        block = np.repeat(base[None], n, axis=0)
        for m in masks:
            block[:, m] += 60 * (rng.random(n) < 0.1)[:, None] + 40
        block += rng.normal(0, 4, block.shape)
        for i in range(n):
            dy, dx = rng.integers(-3, 4, 2)
            block[i] = np.roll(block[i], (dy, dx), axis=(0, 1))
        out[start:start + n] = np.clip(block, 0, 255).astype(np.uint8)
    out.flush()
    del out


def _tree(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


def _memory(pids: list[int]) -> tuple[int, int]:
    rss = anon = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/status") as fh:
                for line in fh:
                    if line.startswith("VmRSS:"):
                        rss += int(line.split()[1]) * 1024
                    elif line.startswith("RssAnon:"):
                        anon += int(line.split()[1]) * 1024
        except OSError:
            continue
    return rss, anon


def measure(path: Path, mode: str, out: Path) -> dict[str, float]:
    """Run the pipeline in a child; return its result plus peak tree RSS / RssAnon and wall time."""
    started = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(path), mode, str(out)], stdout=subprocess.PIPE, text=True)
    peak = [0, 0]
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            rss, anon = _memory(_tree(child.pid))
            peak[0], peak[1] = max(peak[0], rss), max(peak[1], anon)
            time.sleep(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    stdout, _ = child.communicate()
    done.set()
    sampler.join()
    if child.returncode != 0:
        raise SystemExit(f"{mode} run failed with exit code {child.returncode}")
    result = json.loads(stdout.strip().splitlines()[-1])
    return {**result, "wall": time.perf_counter() - started, "peak_rss": peak[0], "peak_anon": peak[1]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, nargs="+", default=[2000, 10000])
    parser.add_argument("--size", type=int, default=512)
    parser.add_argument("--in-memory-up-to", type=int, default=2000,
                        help="also run the in-memory path for movies of at most this many frames")
    parser.add_argument("--workdir", default=None, help="where the movies are written (default: a temp dir)")
    parser.add_argument("--quick", action="store_true", help="300 frames of 128x128 (make bench)")
    args = parser.parse_args()
    if args.quick:
        args.frames, args.size, args.in_memory_up_to = [300], 128, 300
    gb = 1e9
    with tempfile.TemporaryDirectory(dir=args.workdir) as tmp:
        print(f"{'frames':>7} {'movie GB':>9} {'path':>10} {'peak RSS GB':>12} {'peak anon GB':>13} "
              f"{'RSS/movie':>10} {'wall s':>8} {'ROIs':>5}  F vs streamed")
        for frames in args.frames:
            movie = Path(tmp) / f"movie_{frames}.npy"
            write_movie(movie, frames, args.size)
            size = frames * args.size * args.size
            streamed = measure(movie, "streamed", Path(tmp) / "F_streamed.npy")
            rows = [("streamed", streamed, "")]
            if frames <= args.in_memory_up_to:
                whole = measure(movie, "in-memory", Path(tmp) / "F_whole.npy")
                diff = np.abs(np.load(Path(tmp) / "F_whole.npy") - np.load(Path(tmp) / "F_streamed.npy")).max()
                rows.append(("in-memory", whole, f"max |ΔF| = {diff:.2e}"))
            for name, r, note in rows:
                print(f"{frames:>7} {size / gb:>9.2f} {name:>10} {r['peak_rss'] / gb:>12.2f} {r['peak_anon'] / gb:>13.2f} "
                      f"{r['peak_rss'] / size:>10.2f} {r['wall']:>8.1f} {r['rois']:>5}  {note}", flush=True)
            movie.unlink()
    print("goal: peak RSS <= 1.5 GB for 512x512x10,000 uint8 (2.6 GB)")


if __name__ == "__main__":
    main()
