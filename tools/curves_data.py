"""Data tools for curve ensembles: generate a synthetic ensemble, or load one from .npy/.csv.

Both put the curves (n_curves × n_points) into the run state under "curves", where the
statistics, plot and report tools find them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import numpy as np

from planexec.errors import ToolError
from planexec.tools.base import ToolContext, ToolOutput
from planexec.tools.decorator import tool
from planexec.tools.fbplot import CurveDataError, as_curves

CURVE_SUFFIXES = (".npy", ".csv", ".tsv", ".txt")
_SPLIT = re.compile(r"[,;\t ]+")


def read_curves(path: str | Path, transpose: bool = False) -> np.ndarray:
    """Curves from a .npy array or a delimited text file (one curve per row), validated."""
    p = Path(path)
    if not p.is_file():
        raise CurveDataError(f"file not found: {p}; pass an existing .npy or .csv file")
    suffix = p.suffix.lower()
    if suffix == ".npy":
        try:
            from planexec.sandbox.parsing import load_npy
            data = load_npy(p, allow_pickle=False)
        except ValueError as exc:
            raise CurveDataError(f"{p.name} is not a plain numeric .npy array ({exc})") from None
    elif suffix in CURVE_SUFFIXES:
        data = _read_text(p)
    else:
        raise CurveDataError(
            f"{p.name}: unsupported file type {suffix or '(none)'}; use .npy or .csv"
        )
    if transpose and np.ndim(data) == 2:
        data = np.asarray(data).T
    return as_curves(data, name=p.name)


def _read_text(path: Path) -> np.ndarray:
    """Rows of numbers; a first line that is not numeric is taken as a header."""
    rows: list[list[float]] = []
    width = 0
    first_line = 0
    for number, line in enumerate(path.read_text(encoding="utf-8-sig").splitlines(), 1):
        cells = [c for c in _SPLIT.split(line.strip()) if c]
        if not cells:
            continue
        try:
            values = [float(c) for c in cells]
        except ValueError:
            if not rows and number == 1:
                continue
            bad = next(c for c in cells if not _is_number(c))
            raise CurveDataError(f"{path.name}, line {number}: {bad!r} is not a number") from None
        if not rows:
            width, first_line = len(values), number
        elif len(values) != width:
            raise CurveDataError(
                f"{path.name}, line {number}: {len(values)} values, but line {first_line} has "
                f"{width}; every row must be one curve with the same number of points"
            )
        rows.append(values)
    if not rows:
        raise CurveDataError(f"{path.name} holds no numbers; put one curve per row")
    return np.array(rows)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def curves_from_context(ctx: ToolContext | None, path: str = "") -> tuple[np.ndarray, str, bool]:
    """The curves to work on: `path`, else the run state, else the first curve file given.

    Returns (curves, source, loaded) where `loaded` says whether they came from a file.
    """
    if path:
        return read_curves(path), str(path), True
    state = ctx.state if ctx else {}
    if state.get("curves") is not None:
        return as_curves(state["curves"]), str(state.get("curves_source", "run state")), False
    files = [f for f in (ctx.files if ctx else ()) if Path(f).suffix.lower() in CURVE_SUFFIXES]
    if files:
        return read_curves(files[0]), str(files[0]), True
    raise ToolError(
        "no curves in the run state; run generate_ensemble_curves or load_curves first, "
        "or pass path= to a .npy/.csv file"
    )


def _base_family(shape: str, n: int, grid: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """n regular members of a family with random phase, amplitude, level (and centre or bend)."""
    amp = rng.uniform(0.8, 1.2, (n, 1))
    level = rng.normal(0.0, 0.1, (n, 1))
    if shape == "sine":
        phase = rng.normal(0.0, 0.04, (n, 1))
        return level + amp * np.sin(2 * np.pi * (grid + phase))
    if shape == "gaussian":
        centre = rng.normal(0.5, 0.04, (n, 1))
        width = rng.uniform(0.1, 0.14, (n, 1))
        return level + amp * np.exp(-0.5 * ((grid - centre) / width) ** 2)
    bend = rng.normal(0.0, 0.15, (n, 1))
    return level + amp * (grid + bend * grid * (1 - grid))


def _plant(kind: str, curve: np.ndarray, grid: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Turn one regular curve into an outlier: shifted, bumped or reshaped."""
    sign = rng.choice([-1.0, 1.0])
    if kind == "shift":
        return curve + sign * rng.uniform(1.5, 2.0)
    if kind == "bump":
        where = rng.uniform(0.25, 0.75)
        return curve + sign * 2.5 * np.exp(-0.5 * ((grid - where) / 0.12) ** 2)
    return 1.8 * np.sin(2 * np.pi * 3 * grid + rng.uniform(0, 2 * np.pi))


def _planted_count(n_curves: int, n_outliers: int | None) -> int:
    return max(1, round(0.07 * n_curves)) if n_outliers is None else n_outliers


def ensemble_problem(args: Mapping[str, Any]) -> str | None:
    """What keeps `generate_ensemble_curves` from making an ensemble with these arguments (all but n_outliers
    given), or None. The coverage decision asks it too: "30 curves of which 15 are outliers" is refused first."""
    n_curves, n_points = int(args["n_curves"]), int(args["n_points"])
    if n_curves < 3:
        return f"n_curves is {n_curves}; an ensemble needs at least 3 curves"
    if n_points < 2:
        return f"n_points is {n_points}; each curve needs at least 2 points"
    if float(args["noise"]) < 0:
        return f"noise must be >= 0, got {args['noise']}"
    planted = _planted_count(n_curves, args.get("n_outliers"))
    if not 0 <= planted <= n_curves // 3:
        return f"n_outliers is {planted}; use between 0 and a third of n_curves ({n_curves // 3})"
    return None


@tool(type="data")
def generate_ensemble_curves(
    n_curves: int = 30,
    n_points: int = 100,
    seed: int = 0,
    shape: Literal["sine", "gaussian", "linear"] = "sine",
    n_outliers: int | None = None,
    noise: float = 0.02,
    ctx: ToolContext | None = None,
) -> ToolOutput:
    """Generate N synthetic ensemble curves with random phase and amplitude and a few planted outliers.

    `shape` picks the family (sine, gaussian bump or linear ramp); planted outliers are
    shifted, bumped or reshaped curves, and their indices are reported.
    """
    problem = ensemble_problem({"n_curves": n_curves, "n_points": n_points, "noise": noise, "n_outliers": n_outliers})
    if problem:
        raise CurveDataError(problem)
    planted_count = _planted_count(n_curves, n_outliers)
    rng = np.random.default_rng(seed)
    grid = np.linspace(0.0, 1.0, n_points)
    curves = _base_family(shape, n_curves, grid, rng)
    planted = sorted(int(i) for i in rng.choice(n_curves, planted_count, replace=False))
    for k, i in enumerate(planted):
        curves[i] = _plant(("shift", "bump", "shape")[k % 3], curves[i], grid, rng)
    curves += noise * rng.normal(size=curves.shape)
    source = f"generated:{shape}(n_curves={n_curves}, n_points={n_points}, seed={seed})"
    return _data_output(curves, source, planted, ctx, save_as="curves.npy")


@tool(type="data")
def load_curves(path: str = "", transpose: bool = False, ctx: ToolContext | None = None) -> ToolOutput:
    """Load curves from a .npy or .csv file (one curve per row) into the run state.

    `transpose=True` reads a file holding one curve per column.
    """
    if not path:
        files = [f for f in (ctx.files if ctx else ()) if Path(f).suffix.lower() in CURVE_SUFFIXES]
        if not files:
            raise CurveDataError("no curve file to load: pass path= to a .npy or .csv file (or --file)")
        path = str(files[0])
    curves = read_curves(path, transpose=transpose)
    return _data_output(curves, str(path), [], ctx, save_as=None)


def _data_output(
    curves: np.ndarray,
    source: str,
    planted: list[int],
    ctx: ToolContext | None,
    save_as: str | None,
) -> ToolOutput:
    """Publish curves to the state (clearing statistics of earlier data) and key figures."""
    n, p = curves.shape
    artifacts: list[str] = []
    value: dict[str, Any] = {
        "n_curves": n,
        "n_points": p,
        "source": source,
        "planted_outliers": planted,
        "value_range": [float(curves.min()), float(curves.max())],
    }
    if save_as and ctx is not None and ctx.output_dir is not None:
        target = Path(ctx.output_dir) / save_as
        target.parent.mkdir(parents=True, exist_ok=True)
        np.save(target, curves)
        artifacts.append(str(target))
        value["path"] = str(target)
    results: dict[str, Any] = {"n_curves": n, "n_points": p}
    summary = f"{n} curves × {p} points from {source}"
    if planted:
        results["planted_outliers"] = planted
        summary += f"; planted outliers at {planted}"
    state = {
        "curves": curves,
        "curves_source": source,
        "planted_outliers": planted,
        "statistics": None,
        "statistics_summary": None,
    }
    return ToolOutput(value=value, summary=summary, artifacts=artifacts, results=results, state=state)


# Variables for the offline planner's backward chaining (read by planexec.actions).
for _t in (generate_ensemble_curves, load_curves):
    _t.produces = ("curves",)
load_curves.consumes = ("files",)  # a given file is read, not replaced by generated curves
for _t in (generate_ensemble_curves, load_curves):
    _t.reports = ("n_curves", "n_points")  # what the coverage decision may take a count question to
generate_ensemble_curves.check = ensemble_problem  # arguments it cannot take, read by the coverage decision

TOOLS = [generate_ensemble_curves, load_curves]
