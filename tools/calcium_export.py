"""A run's calcium results in suite2p's folder layout: `suite2p/plane0/{stat,F,Fneu,spks,iscell,ops}.npy`.

The arrays mean what suite2p users' scripts expect: `F` and `Fneu` are ROIs × frames,
`spks` the same shape, `iscell` ROIs × 2 (is-cell flag, probability), `stat` an object array
of per-ROI dicts (`ypix`, `xpix`, `lam`, `med`, `radius`, `npix`, `overlap`), `ops` a dict
with the settings, `yoff`/`xoff` registration offsets, `meanImg`, `fs`. Label image and
projections are written beside them as TIFF. `collect` takes what the run produced under
the agreed names and derives what today's pipeline lacks (stat from the label image, F from
`roi_traces`, Fneu from a neuropil ring, spks from detected events), saying in
`ops["sources"]` how each array was obtained.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from planexec.tools.calcium_stream import extract_traces, neuropil_pixels, roi_pixels


@dataclass
class CalciumResults:
    """Everything the exports write, gathered from one run (ROIs × frames arrays, per-ROI stat)."""

    F: np.ndarray
    stat: list[dict[str, Any]]
    iscell: np.ndarray
    labels: np.ndarray | None = None
    Fneu: np.ndarray | None = None
    dff: np.ndarray | None = None
    spks: np.ndarray | None = None
    reg_offsets: np.ndarray | None = None
    bad_frames: np.ndarray | None = None
    mean_image: np.ndarray | None = None
    max_image: np.ndarray | None = None
    inputs: dict[str, Any] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    """How each array was obtained ("run variable roi_traces", "derived at export: ...")."""

    @property
    def n_rois(self) -> int:
        return int(self.F.shape[0])

    @property
    def n_frames(self) -> int:
        return int(self.F.shape[1])

    @property
    def fs(self) -> float | None:
        return self.inputs.get("fs")

    @property
    def pixel_size(self) -> float | None:
        return self.inputs.get("pixel_size_um")


def stat_from_labels(labels: np.ndarray, weights: np.ndarray | None = None) -> list[dict[str, Any]]:
    """suite2p-style stat for each label 1..N: pixel coordinates, weights (the image there), median, radius."""
    h, w = labels.shape
    stat = []
    for idx in roi_pixels(labels):
        ypix, xpix = np.unravel_index(idx, (h, w))
        lam = np.clip(weights.ravel()[idx], 0, None).astype(np.float32) if weights is not None else np.ones(idx.size, np.float32)
        if lam.size and lam.sum() <= 0:
            lam = np.ones(idx.size, np.float32)
        med = [int(np.median(ypix)), int(np.median(xpix))] if idx.size else [0, 0]
        radius = float(np.sqrt(idx.size / np.pi))
        stat.append({"ypix": ypix.astype(np.int32), "xpix": xpix.astype(np.int32), "lam": lam,
                     "med": med, "radius": radius, "npix": int(idx.size),
                     "overlap": np.zeros(idx.size, dtype=bool)})
    return stat


def labels_from_stat(stat: list[dict[str, Any]], shape: tuple[int, int]) -> np.ndarray:
    labels = np.zeros(shape, dtype=np.int32)
    for i, s in enumerate(stat, start=1):
        labels[np.asarray(s["ypix"]), np.asarray(s["xpix"])] = i
    return labels


def _array(variables: dict[str, Any], *names: str) -> tuple[np.ndarray | None, str]:
    for name in names:
        value = variables.get(name)
        if isinstance(value, np.ndarray) or (isinstance(value, list) and value):
            return np.asarray(value), name
    return None, ""


def spikes_from_events(events: list[dict[str, Any]], shape: tuple[int, int]) -> np.ndarray:
    """ROIs × frames: each detected event's amplitude at its frame, zero elsewhere."""
    spks = np.zeros(shape, dtype=np.float32)
    for e in events:
        cell, frame = int(e.get("cell", -1)), int(e.get("frame", -1))
        if 0 <= cell < shape[0] and 0 <= frame < shape[1]:
            spks[cell, frame] += float(e.get("amplitude", 1.0))
    return spks


def collect(state: dict[str, Any]) -> CalciumResults | None:
    """The run's calcium results under the agreed names, or None when it extracted no traces."""
    variables: dict[str, Any] = state.get("variables") or {}
    F, f_name = _array(variables, "F", "roi_traces")
    if F is None or F.ndim != 2:
        return None
    F = F.astype(np.float32)
    sources = {"F": f"run variable {f_name}"}
    meta = state.get("stack_meta")
    inputs = meta.describe() if meta is not None and hasattr(meta, "describe") else {}
    labels, _ = _array(variables, "cell_labels")
    mean_image, _ = _array(variables, "mean_image")
    raw_stat = variables.get("stat")
    plain = f_name == "roi_traces" and labels is not None and labels.ndim == 2 and int(labels.max()) == F.shape[0]
    if plain:
        # plain traces (extract_traces) are each label's unweighted pixel mean: the stat that says how F was
        # made has those pixels with equal weights, not a segmenter's weighted footprints
        stat = stat_from_labels(labels)
        sources["stat"] = "derived at export from cell_labels (lam = 1: F is each mask's plain mean)"
    elif isinstance(raw_stat, list) and len(raw_stat) == F.shape[0]:
        stat, sources["stat"] = raw_stat, "run variable stat"
        if labels is None and mean_image is not None:
            labels = labels_from_stat(stat, mean_image.shape)
    elif labels is not None and labels.ndim == 2:
        stat = stat_from_labels(labels, mean_image)
        sources["stat"] = "derived at export from cell_labels (lam = mean image at each pixel)"
    else:
        stat, sources["stat"] = [], "none (the run produced no ROI masks)"
    out = CalciumResults(F=F, stat=stat, iscell=np.zeros((F.shape[0], 2), np.float32), labels=labels,
                         inputs=inputs, params=dict(variables.get("params") or {}), sources=sources,
                         mean_image=mean_image)
    out.max_image, _ = _array(variables, "max_image")
    _fill_neuropil(out, variables)
    out.dff, name = _array(variables, "dff")
    if name:
        sources["dff"] = "run variable dff"
    _fill_spikes(out, variables)
    _fill_iscell(out, variables)
    out.reg_offsets, name = _array(variables, "reg_offsets")
    if name:
        sources["reg_offsets"] = "run variable reg_offsets"
    out.bad_frames, _ = _array(variables, "bad_frames")
    return out


def _fill_neuropil(out: CalciumResults, variables: dict[str, Any]) -> None:
    Fneu, name = _array(variables, "Fneu")
    images = variables.get("images")
    if name:
        out.Fneu, out.sources["Fneu"] = Fneu.astype(np.float32), "run variable Fneu"
    elif out.labels is not None and isinstance(images, np.ndarray) and images.ndim == 3 \
            and int(out.labels.max()) == out.n_rois and images.shape[0] == out.n_frames:
        _, out.Fneu = extract_traces(images, roi_pixels(out.labels), neuropil_pixels(out.labels))
        out.sources["Fneu"] = ("derived at export: mean of a ring 2 px outside all ROIs, grown to 350 px; "
                               "the run's ΔF/F did not subtract it")
    else:
        out.sources["Fneu"] = "none (no neuropil estimate and no movie to derive one)"


def _fill_spikes(out: CalciumResults, variables: dict[str, Any]) -> None:
    spks, name = _array(variables, "spks")
    events = variables.get("events")
    if name:
        out.spks, out.sources["spks"] = spks.astype(np.float32), "run variable spks"
    elif isinstance(events, list):
        out.spks = spikes_from_events(events, out.F.shape)
        out.sources["spks"] = "derived at export: detected event amplitudes (ΔF/F) at their frames, not deconvolved"
    else:
        out.sources["spks"] = "none (no deconvolution or events in the run)"


def _fill_iscell(out: CalciumResults, variables: dict[str, Any]) -> None:
    iscell, name = _array(variables, "iscell")
    if name and iscell.shape == (out.n_rois, 2):
        out.iscell, out.sources["iscell"] = iscell.astype(np.float32), "run variable iscell"
    else:
        out.iscell = np.column_stack([np.ones(out.n_rois), np.full(out.n_rois, np.nan)]).astype(np.float32)
        out.sources["iscell"] = "not classified: every ROI is flagged 1 with probability NaN"


def ops_dict(res: CalciumResults, save_path: Path, version: str) -> dict[str, Any]:
    """suite2p's ops keys this run can fill, plus planexec's own (pixel size, params, sources)."""
    ops: dict[str, Any] = {
        "fs": res.fs if res.fs is not None else np.nan,
        "nframes": res.n_frames,
        "save_path": str(save_path),
        "data_path": [str(Path(res.inputs["path"]).parent)] if res.inputs.get("path") else [],
        "filelist": [res.inputs["path"]] if res.inputs.get("path") else [],
        "pixel_size_um": res.pixel_size if res.pixel_size is not None else np.nan,
        "inputs": res.inputs,
        "params": res.params,
        "sources": res.sources,
        "planexec_version": version,
    }
    if res.mean_image is not None:
        ops["Ly"], ops["Lx"] = (int(n) for n in res.mean_image.shape)
        ops["meanImg"] = res.mean_image.astype(np.float32)
    if res.max_image is not None:
        ops["max_proj"] = res.max_image.astype(np.float32)
    if res.reg_offsets is not None and res.reg_offsets.shape == (res.n_frames, 2):
        ops["yoff"], ops["xoff"] = res.reg_offsets[:, 0].astype(np.float32), res.reg_offsets[:, 1].astype(np.float32)
    if res.bad_frames is not None:
        bad = np.zeros(res.n_frames, dtype=bool)
        arr = np.asarray(res.bad_frames)
        bad[arr.astype(int) if arr.dtype != bool else np.flatnonzero(arr)] = True
        ops["badframes"] = bad
    return ops


def _tiff(path: Path, image: np.ndarray, pixel_size: float | None) -> None:
    import tifffile

    kwargs: dict[str, Any] = {}
    if pixel_size:
        kwargs = {"imagej": True, "resolution": (1 / pixel_size, 1 / pixel_size), "metadata": {"unit": "um"}}
        if image.dtype == np.int32:
            image = image.astype(np.uint16 if image.max() < 65536 else np.float32)
    tifffile.imwrite(path, image, **kwargs)


def write_suite2p(res: CalciumResults, folder: Path, version: str) -> list[Path]:
    """Write `folder/suite2p/plane0/` and return the files written."""
    plane = Path(folder) / "suite2p" / "plane0"
    plane.mkdir(parents=True, exist_ok=True)
    written = []

    def save(name: str, value: Any) -> None:
        np.save(plane / name, value, allow_pickle=True)
        written.append(plane / name)

    stat = np.empty(len(res.stat), dtype=object)
    for i, s in enumerate(res.stat):
        stat[i] = s
    save("stat.npy", stat)
    save("F.npy", res.F)
    if res.Fneu is not None:
        save("Fneu.npy", res.Fneu)
    if res.spks is not None:
        save("spks.npy", res.spks)
    if res.dff is not None and res.dff.shape == res.F.shape:
        save("dff.npy", res.dff.astype(np.float32))
    save("iscell.npy", res.iscell)
    save("ops.npy", np.array(ops_dict(res, plane, version), dtype=object))
    for name, image in (("labels.tif", res.labels), ("meanImg.tif", res.mean_image), ("max_proj.tif", res.max_image)):
        if image is not None:
            _tiff(plane / name, image if name == "labels.tif" else image.astype(np.float32), res.pixel_size)
            written.append(plane / name)
    return written
