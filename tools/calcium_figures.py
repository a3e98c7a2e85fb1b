"""Report figures and the per-cell table for a run's calcium results.

Figures a reader can use without the code: the ROI map with readable numbered labels, a
colour bar and a scale bar (when the pixel size is known), every cell's trace labelled with
its ID against time in seconds (frames, said so, when the rate is unknown), and an event
raster. Drawn with matplotlib's object API (no global pyplot state), so reports can be
written from any thread.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from planexec.tools.calcium_export import CalciumResults

CELLS_PER_PAGE = 50


@dataclass(frozen=True)
class CellRow:
    """One line of the per-cell table."""

    cell: int
    y: float
    x: float
    npix: int
    area_um2: float | None
    snr: float
    n_events: int
    event_rate_hz: float | None
    """Events per second; None when the frame rate is unknown (then `events_per_1000_frames`)."""
    events_per_1000_frames: float
    iscell: bool
    probcell: float | None


def robust_noise(trace: np.ndarray) -> float:
    """Noise of a trace from its frame-to-frame differences (MAD / √2): insensitive to transients."""
    steps = np.diff(trace.astype(np.float64))
    if steps.size == 0:
        return 0.0
    return float(1.4826 * np.median(np.abs(steps - np.median(steps))) / np.sqrt(2.0))


def cell_table(res: CalciumResults, events: list[dict[str, Any]] | None) -> list[CellRow]:
    """SNR (99th percentile of ΔF/F above its median, in noise units), event counts and rates per ROI."""
    traces = res.dff if res.dff is not None and res.dff.shape == res.F.shape else res.F
    counts = np.zeros(res.n_rois, dtype=int)
    for e in events or []:
        if 0 <= int(e.get("cell", -1)) < res.n_rois:
            counts[int(e["cell"])] += 1
    duration_s = res.n_frames / res.fs if res.fs else None
    rows = []
    for i in range(res.n_rois):
        s = res.stat[i] if i < len(res.stat) else {}
        trace = traces[i]
        noise = robust_noise(trace)
        snr = float((np.percentile(trace, 99) - np.median(trace)) / noise) if noise > 0 else 0.0
        med = s.get("med", [np.nan, np.nan])
        npix = int(s.get("npix", 0))
        prob = float(res.iscell[i, 1])
        rows.append(CellRow(
            cell=i, y=float(med[0]), x=float(med[1]), npix=npix,
            area_um2=npix * res.pixel_size ** 2 if res.pixel_size else None, snr=round(snr, 2),
            n_events=int(counts[i]),
            event_rate_hz=round(counts[i] / duration_s, 4) if duration_s else None,
            events_per_1000_frames=round(1000.0 * counts[i] / max(res.n_frames, 1), 3),
            iscell=bool(res.iscell[i, 0]), probcell=None if np.isnan(prob) else prob,
        ))
    return rows


def _nice_length(um: float) -> float:
    """A round scale-bar length near a fifth of the field width (in µm)."""
    target = um / 5
    for v in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000):
        if v >= target * 0.7:
            return float(v)
    return float(round(target, -3))


def roi_figure(res: CalciumResults, path: Path) -> Path | None:
    """Mean image with numbered ROI outlines, colour bar and scale bar; None without an image."""
    from matplotlib import patheffects
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    image = res.mean_image
    if image is None:
        return None
    h, w = image.shape
    fig = Figure(figsize=(7, 7 * h / w + 0.4), dpi=110)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    shown = ax.imshow(image, cmap="gray", interpolation="nearest")
    fig.colorbar(shown, ax=ax, fraction=0.046, pad=0.02, label="mean intensity (fraction of full scale)")
    if res.labels is not None and res.labels.max() > 0:
        ax.contour(res.labels > 0, levels=[0.5], colors=["#ffcc00"], linewidths=0.8)
    outline = [patheffects.withStroke(linewidth=2.5, foreground="black")]
    size = max(6, min(11, int(240 / max(res.n_rois, 1) ** 0.5)))
    for i, s in enumerate(res.stat):
        ax.text(s["med"][1], s["med"][0], str(i), color="white", fontsize=size, ha="center", va="center",
                fontweight="bold", path_effects=outline)
    if res.pixel_size:
        length_um = _nice_length(w * res.pixel_size)
        px = length_um / res.pixel_size
        y0, x0 = h - max(3, h * 0.05), w - px - max(3, w * 0.05)
        ax.plot([x0, x0 + px], [y0, y0], color="white", linewidth=4, solid_capstyle="butt",
                path_effects=[patheffects.withStroke(linewidth=6, foreground="black")])
        ax.text(x0 + px / 2, y0 - max(2, h * 0.03), f"{length_um:g} µm", color="white", ha="center",
                va="bottom", fontsize=9, path_effects=outline)
        ax.set_title(f"{res.n_rois} ROIs on the mean image ({res.pixel_size:g} µm/pixel)")
    else:
        ax.set_title(f"{res.n_rois} ROIs on the mean image (pixel size unknown: no scale bar)")
    ax.set_axis_off()
    fig.savefig(path, bbox_inches="tight")
    return path


def _time_axis(res: CalciumResults) -> tuple[np.ndarray, str]:
    if res.fs:
        return np.arange(res.n_frames) / res.fs, "time (s)"
    return np.arange(res.n_frames, dtype=float), "frame (frame rate unknown: pass --fs for seconds)"


def traces_figures(res: CalciumResults, folder: Path) -> list[Path]:
    """Every ROI's ΔF/F (or F) stacked with its ID, CELLS_PER_PAGE cells per figure."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    traces = res.dff if res.dff is not None and res.dff.shape == res.F.shape else res.F
    what = "ΔF/F" if traces is res.dff else "F"
    t, xlabel = _time_axis(res)
    paths = []
    for page, start in enumerate(range(0, res.n_rois, CELLS_PER_PAGE)):
        ids = list(range(start, min(start + CELLS_PER_PAGE, res.n_rois)))
        fig = Figure(figsize=(10, 1.2 + 0.45 * len(ids)), dpi=100)
        FigureCanvasAgg(fig)
        ax = fig.add_subplot()
        spread = float(np.nanpercentile(traces[ids], 99.5) - np.nanpercentile(traces[ids], 0.5)) or 1.0
        for row, i in enumerate(ids):
            trace = traces[i]
            ax.plot(t, (trace - np.median(trace)) / spread - row, linewidth=0.7)
        ax.set_yticks([-row for row in range(len(ids))], [f"cell {i}" for i in ids], fontsize=7)
        ax.set_xlabel(xlabel)
        ax.set_xlim(t[0], t[-1] if len(t) > 1 else 1)
        ax.set_title(f"{what} of cells {ids[0]}–{ids[-1]} of {res.n_rois} (each scaled by the same factor)")
        path = folder / f"report_traces_{page + 1}.png"
        fig.savefig(path, bbox_inches="tight")
        paths.append(path)
    return paths


def raster_figure(res: CalciumResults, events: list[dict[str, Any]] | None, path: Path) -> Path | None:
    """One row per ROI, one tick per detected event; None when the run detected no events."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    if events is None:
        return None
    per_cell: list[list[float]] = [[] for _ in range(res.n_rois)]
    scale = 1.0 / res.fs if res.fs else 1.0
    for e in events:
        if 0 <= int(e.get("cell", -1)) < res.n_rois:
            per_cell[int(e["cell"])].append(int(e["frame"]) * scale)
    fig = Figure(figsize=(10, 1.5 + 0.12 * res.n_rois), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ax.eventplot(per_cell, lineoffsets=np.arange(res.n_rois), linelengths=0.8, colors="black", linewidths=1)
    ax.set_ylim(res.n_rois - 0.5, -0.5)
    ax.set_ylabel("cell")
    ax.set_xlabel(_time_axis(res)[1])
    ax.set_xlim(0, res.n_frames * scale)
    ax.set_title(f"event raster: {sum(map(len, per_cell))} events in {res.n_rois} cells")
    fig.savefig(path, bbox_inches="tight")
    return path
