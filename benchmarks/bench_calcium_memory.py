"""Peak memory and wall time of `planexec run` on large movies, next to the movie's size.

    .venv/bin/python benchmarks/bench_calcium_memory.py                  # 2,000 and 10,000 frames of 512x512
    .venv/bin/python benchmarks/bench_calcium_memory.py --quick          # 300 frames of 128x128

Each measurement is a real `planexec run "Count the cells in the images" --images MOVIE.npy`
subprocess (the offline planner, the sandbox worker, reports and NWB export included). A sampler
reads /proc every 50 ms over the process and all its descendants and keeps three peaks: summed
VmRSS, summed RssAnon, and summed Pss. The sums count the ~90 MB of warm heap that the fork
server, its spare maker, the spares and the worker share once per process; Pss counts a shared
page once, so it is the memory the tree holds. "streamed" is the default for these sizes (the
movie stays on disk, memory-mapped read-only; the worker's reads leave no pages of it mapped);
"loaded" forces the whole movie into memory as float32 (`--param stream=false`), for the smaller
movies only, and its cell count is compared. Goal (issue 14): the tree at most 1.5 GB on
10,000 x 512 x 512 uint8 (2.6 GB). Movies are written under --workdir (default: a temp dir) and
deleted. Without --timeout a run keeps its own deadline (it grows with the movie). Not part of
the test suite (tens of minutes).

Measured 2026-11-24 02:22-02:28 UTC (2 CPUs shared with other jobs, load 4.8 at the start and
4.4 at the end; uint8 movies of bright disks, --fs 30, 218 cells both times, default deadlines):
  frames  movie GB  peak RSS GB  peak anon GB  peak PSS GB  wall s
    2000      0.52         1.15          0.99         0.82    68.4
   10000      2.62         1.21          1.08         0.94   215.0
At the 10,000-frame anon peak the worker held 0.76 GB (in-process at 2,000 frames the chain peaks in
segment_cells, which holds two time-binned movies of 256 MB each).
Before (2026-11-23, load 3-7): 2,000 frames RSS 1.95 / anon 1.31 GB, 196 s; 10,000 frames RSS
4.59 / anon 1.84 GB, 446 s (the worker held the movie's file pages, the run process JSON
checkpoints of per-ROI traces, segment_cells its binned movies after it ended).
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
from dataclasses import dataclass
from pathlib import Path

import numpy as np

REQUEST = "Count the cells in the images"


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


def _memory(pids: list[int]) -> tuple[int, int, int, dict[str, int]]:
    """Summed VmRSS, RssAnon and Pss of `pids`, and RssAnon per process (named by pid and command).

    VmRSS and RssAnon count a page once in every process that maps it: the fork server, its spare
    maker, the spares and the worker share the warm interpreter's ~90 MB copy-on-write heap, which
    their sum counts 4-5 times. Pss (from smaps_rollup) divides each page among its sharers, so the
    tree's Pss counts it once: the memory the tree holds.
    """
    rss = anon = pss = 0
    each: dict[str, int] = {}
    for pid in pids:
        try:
            with open(f"/proc/{pid}/status") as fh:
                for line in fh:
                    if line.startswith("VmRSS:"):
                        rss += int(line.split()[1]) * 1024
                    elif line.startswith("RssAnon:"):
                        anon += int(line.split()[1]) * 1024
                        each[f"{pid}"] = int(line.split()[1]) * 1024
            with open(f"/proc/{pid}/smaps_rollup") as fh:
                for line in fh:
                    if line.startswith("Pss:"):
                        pss += int(line.split()[1]) * 1024
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                name = fh.read().replace(b"\0", b" ").decode(errors="replace").strip()
            each[f"{pid} {_short(name)}"] = each.pop(f"{pid}", 0)
        except OSError:
            continue
    return rss, anon, pss, each


def _short(cmd: str) -> str:
    if "planexec.sandbox" in cmd or "forkserver" in cmd or cmd.endswith("-I -"):
        return "sandbox (fork server / spare / worker)"
    return "planexec run" if " run " in f" {cmd} " else cmd[:40]


@dataclass
class Measured:
    """One `planexec run`: its answer's cell count, wall time and the process tree's peak memory."""

    cells: int | None
    wall: float
    peak_rss: int
    peak_anon: int
    peak_pss: int
    status: str
    at_peak: dict[str, int]
    """RssAnon per process when the tree's RssAnon peaked."""


def measure(movie: Path, out: Path, extra: list[str], fs: float, timeout: float | None) -> Measured:
    """Run `planexec run` on `movie` in a child process and sample its tree's memory until it ends
    (`timeout` None: the run's default deadline, which grows with the movie)."""
    cmd = [str(Path(sys.executable).with_name("planexec")), "run", REQUEST, "--images", str(movie), "--json",
           "--llm", "none", "--output", str(out), "--fs", str(fs),
           *(["--timeout", str(timeout)] if timeout is not None else []), *extra]
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    started = time.perf_counter()
    child = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    peak = [0, 0, 0]
    at_peak: dict[str, int] = {}
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            rss, anon, pss, each = _memory(_tree(child.pid))
            if anon > peak[1]:
                at_peak.clear()
                at_peak.update(each)
            peak[0], peak[1], peak[2] = max(peak[0], rss), max(peak[1], anon), max(peak[2], pss)
            time.sleep(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    stdout, stderr = child.communicate()
    done.set()
    sampler.join()
    wall = time.perf_counter() - started
    try:
        report = json.loads(stdout)
    except ValueError:
        raise SystemExit(f"planexec run failed (exit {child.returncode}): {stderr.strip()[-2000:]}") from None
    cells = (report.get("results") or {}).get("n_cells")
    return Measured(cells, wall, peak[0], peak[1], peak[2], str(report.get("status")), dict(at_peak))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, nargs="+", default=[2000, 10000])
    parser.add_argument("--size", type=int, default=512)
    parser.add_argument("--fs", type=float, default=30.0, help="frame rate passed with --fs (Hz)")
    parser.add_argument("--loaded-up-to", type=int, default=2000,
                        help="also run with the movie loaded whole (--param stream=false) up to this many frames")
    parser.add_argument("--workdir", default=None, help="where movies and run outputs go (default: a temp dir)")
    parser.add_argument("--timeout", type=float, default=None,
                        help="planexec run --timeout (s); default: the run's own, which grows with the movie")
    parser.add_argument("--quick", action="store_true", help="300 frames of 128x128, streamed forced (make bench)")
    args = parser.parse_args()
    streamed_flag: list[str] = []
    if args.quick:
        args.frames, args.size, args.loaded_up_to = [300], 128, 300
        streamed_flag = ["--param", "stream=true"]  # too small to stream by default
    gb = 1e9
    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f} (1/5/15 min), "
          f"{os.cpu_count()} CPUs", flush=True)
    with tempfile.TemporaryDirectory(dir=args.workdir) as tmp:
        print(f"{'frames':>7} {'movie GB':>9} {'path':>9} {'peak RSS GB':>12} {'peak anon GB':>13} "
              f"{'peak PSS GB':>12} {'RSS/movie':>10} {'wall s':>8} {'cells':>6}  status", flush=True)
        for frames in args.frames:
            movie = Path(tmp) / f"movie_{frames}.npy"
            write_movie(movie, frames, args.size)
            size = movie.stat().st_size
            runs = [("streamed", streamed_flag)]
            if frames <= args.loaded_up_to:
                runs.append(("loaded", ["--param", "stream=false"]))
            for name, extra in runs:
                r = measure(movie, Path(tmp) / f"out_{frames}_{name}", extra, args.fs, args.timeout)
                print(f"{frames:>7} {size / gb:>9.2f} {name:>9} {r.peak_rss / gb:>12.2f} {r.peak_anon / gb:>13.2f} "
                      f"{r.peak_pss / gb:>12.2f} {r.peak_rss / size:>10.2f} {r.wall:>8.1f} {r.cells!s:>6}  {r.status}",
                      flush=True)
                top = sorted(r.at_peak.items(), key=lambda kv: -kv[1])[:4]
                print("        at the anon peak: " + ", ".join(f"{k} {v / gb:.2f} GB" for k, v in top), flush=True)
            movie.unlink()
    print("goal (issue 14): the tree at most 1.5 GB (RSS, anon and PSS) on 10,000 x 512 x 512 uint8 (2.6 GB); "
          "suite2p peaked at 2.8 GB on 2,000 frames")


if __name__ == "__main__":
    main()
