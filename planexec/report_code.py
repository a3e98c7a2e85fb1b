"""generated_code.py: the run's analysis as a script a colleague runs with numpy, scipy and scikit-image.

`python generated_code.py MOVIE [--fs HZ] [--out DIR]` loads the movie the way planexec does
(float32 in [0, 1]), runs every step's code in order inside `analyse()`, prints the results
and saves them in DIR (arrays as .npy, the rest in results.json, figures as PNG when
matplotlib is installed). It imports nothing from planexec and holds no absolute path.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence
from typing import Any

from planexec.serialize import to_jsonable

_HEADER = '''"""{title}

Written by planexec {version}. Runs on its own with numpy, scipy and scikit-image
(matplotlib only for the figures):

    python generated_code.py MOVIE [--fs HZ] [--out DIR]

MOVIE is a folder of PNG/TIFF frames, a multi-page TIFF or a .npy stack (T x H x W). Results
are printed and saved in DIR (default: results/): arrays as .npy, everything else in
results.json, figures as PNG.
"""

import argparse
import json
import re
import sys
from pathlib import Path

import numpy as np
import scipy
import skimage

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    HAVE_MATPLOTLIB = True
except ImportError:  # figures are skipped, the analysis is not
    HAVE_MATPLOTLIB = False

TIME_AXIS = {time_axis}
"""Which axis of a .npy stack is time (the run used axis {time_axis})."""
RUN_PARAMS = {params!r}
"""The analysis parameters the run used (`fs` in Hz; None: estimated from the data or unknown)."""
'''

_LOADER = '''

def _natural(name):
    return [int(p) if p.isdigit() else p for p in re.split(r"(\\d+)", name.lower())]


def _gray(frame):
    if frame.ndim == 3:
        if frame.shape[-1] in (2, 4):
            frame = frame[..., :-1]
        if frame.shape[-1] == 1:
            return frame[..., 0]
        gray = frame @ np.array([0.299, 0.587, 0.114])
        return np.rint(gray).astype(frame.dtype) if np.issubdtype(frame.dtype, np.integer) else gray
    return frame


def _to_unit(raw):
    if np.issubdtype(raw.dtype, np.integer):
        info = np.iinfo(raw.dtype)
        if info.min < 0:
            return ((raw.astype(np.float32) - info.min) / float(info.max - info.min)).astype(np.float32)
        return (raw / np.float32(info.max)).astype(np.float32)
    out = raw.astype(np.float32)
    lo, hi = float(out.min()), float(out.max())
    if lo >= 0.0 and hi <= 1.0:
        return out
    if lo >= 0.0:
        return out / np.float32(hi)
    return (out - np.float32(lo)) / np.float32(max(hi - lo, np.finfo(np.float32).tiny))


def load_movie(path, time_axis=TIME_AXIS):
    """The movie as float32 T x H x W in [0, 1]: integers divided by their type's maximum.

    A .npy of unsigned integers whose float32 copy would exceed 1 GB stays on disk, memory-mapped
    read-only; registration then reads it a block of frames at a time, as planexec does.
    """
    from skimage import io

    path = Path(path)
    if path.is_dir():
        files = sorted((p for p in path.iterdir() if p.suffix.lower() in (".png", ".tif", ".tiff")),
                       key=lambda p: _natural(p.name))
        pieces = []
        for p in files:
            try:
                frame = io.imread(p)
            except Exception as exc:  # a corrupted frame is left out, as planexec does
                print(f"skipped {{p.name}}: {{exc}}", file=sys.stderr)
                continue
            frame = _gray(frame) if p.suffix.lower() == ".png" else frame
            pieces.append(frame.reshape(-1, *frame.shape[-2:]))
        raw = np.concatenate(pieces)
    elif path.suffix.lower() == ".npy":
        raw = np.moveaxis(np.load(path, mmap_mode="r", allow_pickle=False), time_axis, 0)
        if raw.dtype.kind == "u" and raw.size * 4 > 2 ** 30:
            return raw
    else:
        raw = io.imread(path)
        raw = raw.reshape(-1, *raw.shape[-2:])
    return np.ascontiguousarray(_to_unit(raw), dtype=np.float32)

'''

_MAIN = '''

def _save(results, out):
    out.mkdir(parents=True, exist_ok=True)
    plain = {{}}
    for name, value in results.items():
        if hasattr(value, "savefig"):
            value.savefig(out / f"{{name}}.png")
            print(f"{{name}}: figure saved as {{out / (name + '.png')}}")
        elif isinstance(value, np.ndarray) and value.size > 20:
            np.save(out / f"{{name}}.npy", value)
            print(f"{{name}}: array{{value.shape}} {{value.dtype}} saved as {{out / (name + '.npy')}}")
        else:
            value = value.tolist() if isinstance(value, (np.ndarray, np.generic)) else value
            try:
                json.dumps(value)
            except TypeError:
                continue
            plain[name] = value
            shown = json.dumps(value)
            print(f"{{name}} = {{shown if len(shown) < 200 else shown[:197] + '...'}}")
    (out / "results.json").write_text(json.dumps(plain, indent=1), encoding="utf-8")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("movie", help="folder of frames, TIFF or .npy stack")
    parser.add_argument("--fs", type=float, default=None, help="frame rate in Hz (default: the run's)")
    parser.add_argument("--out", default="results", help="folder for the results")
    args = parser.parse_args(argv)
    params = dict(RUN_PARAMS)
    if args.fs is not None:
        params["fs"] = args.fs
    results = analyse(load_movie(args.movie), params)
    _save(results, Path(args.out))


if __name__ == "__main__":
    main()
'''

_KEEP = ("ndarray", "int", "float", "str", "bool", "list", "dict", "tuple", "Figure", "int64", "float64",
         "float32", "int32", "bool_")


def _outputs(header: str) -> list[str]:
    match = re.search(r"-> outputs \[(.*?)\]", header)
    return re.findall(r"'([^']+)'", match.group(1)) if match else []


def standalone_script(request: str, blocks: Sequence[tuple[str, str]], version: str, params: dict[str, Any],
                      time_axis: int = 0) -> str:
    """The script for the run's code blocks; the run's own input-loading block is replaced by `load_movie`."""
    steps = [(h, c) for h, c in blocks if not h.startswith("Inputs:")]
    title = f"planexec analysis: {request.strip().splitlines()[0][:90]}".replace('"""', "'''")
    body: list[str] = ["", "def analyse(images, params=None):",
                       '    """Every step of the run, in order; returns the variables they made."""']
    for header, code in steps:
        body.append("    # " + "=" * 72)
        body += [f"    # {line}" for line in header.splitlines()]
        body.append("    # " + "=" * 72)
        code = code.rstrip()
        figures = _outputs(header)
        if figures and all(o.startswith("fig") for o in figures):
            body.append("    if HAVE_MATPLOTLIB:")
            body.append(textwrap.indent(code, " " * 8))
        else:
            body.append(textwrap.indent(code, " " * 4))
        body.append("")
    declared = [o for h, _ in steps for o in _outputs(h)]
    if steps and all(_outputs(h) for h, _ in steps):  # every step said what it makes: return just that
        body += [f"    outputs = {list(dict.fromkeys(declared))!r}",
                 "    return {k: v for k, v in locals().items() if k in outputs}", ""]
    else:  # code without declared outputs (written by a model): return every plain variable
        body += [f"    keep = {_KEEP!r}",
                 "    return {k: v for k, v in locals().items()",
                 "            if not k.startswith('_') and k not in ('images', 'params', 'keep') and type(v).__name__ in keep}",
                 ""]
    body.insert(3, "    params = dict(RUN_PARAMS if params is None else params)")
    head = _HEADER.format(title=title, version=version, time_axis=int(time_axis), params=to_jsonable(params))
    return head + _LOADER.format() + "\n".join(body) + _MAIN.format()


def time_axis_of(meta: Any) -> int:
    """The time axis the run's loader chose for a .npy stack (0 unless its note says otherwise)."""
    note = getattr(meta, "axes_note", "") or ""
    match = re.search(r"axis (\d)", note)
    return int(match.group(1)) if match else 0
