"""A run's calcium results as an NWB file (pynwb): imaging metadata, ROI masks and every trace.

Layout, as NWB viewers and DANDI expect for optical physiology: an `ImagingPlane` (frame
rate, pixel size as grid spacing), and in the `ophys` processing module an
`ImageSegmentation` / `PlaneSegmentation` with one pixel mask per ROI (plus `iscell` and
`probcell` columns), `Fluorescence` with `F` and `Fneu`, `DfOverF` with `dff`, `Deconvolved`
with `spks` (events), and `Images` with the projections. NWB times are in seconds, so the
file needs the frame rate: without it `write_nwb` refuses with one line asking for `--fs`.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from planexec.errors import InputError
from planexec.tools.calcium_export import CalciumResults
from planexec.tools.calcium_meta import Acquisition, require_fs


def _series(name: str, data: np.ndarray, rois: Any, fs: float, unit: str, description: str) -> Any:
    from pynwb.ophys import RoiResponseSeries

    # NWB stores time first: frames × ROIs
    return RoiResponseSeries(name=name, data=np.ascontiguousarray(data.T, dtype=np.float32), rois=rois,
                             unit=unit, rate=float(fs), description=description)


def write_nwb(res: CalciumResults, path: Path, version: str, identifier: str) -> Path:
    """Write `path` (.nwb) and return it; InputError when the frame rate is unknown."""
    # checked before importing pynwb (0.5 s): a run without a frame rate pays nothing for NWB
    fs = require_fs(Acquisition(fs=res.fs), "the NWB export (its times are in seconds)")
    from pynwb import NWBHDF5IO, NWBFile
    from pynwb.base import Images
    from pynwb.image import GrayscaleImage
    from pynwb.ophys import DfOverF, Fluorescence, ImageSegmentation, OpticalChannel

    if not res.stat:
        raise InputError("the NWB export needs ROI masks and the run produced none; segment the cells first")
    source = res.inputs.get("path") or "unknown"
    nwb = NWBFile(
        session_description=f"planexec {version} calcium analysis of {Path(str(source)).name}",
        identifier=identifier, session_start_time=datetime.now(UTC),
        source_script=f"planexec {version}", source_script_file_name="generated_code.py",
        notes="; ".join(f"{k}: {v}" for k, v in res.sources.items()),
    )
    device = nwb.create_device(name="Microscope", description="not recorded in the input")
    channel = OpticalChannel(name="OpticalChannel", description="green", emission_lambda=float("nan"))
    spacing = [res.pixel_size * 1e-6] * 2 if res.pixel_size else None
    plane = nwb.create_imaging_plane(
        name="ImagingPlane", optical_channel=channel, device=device, imaging_rate=float(fs),
        description=f"input {source}, shape {res.inputs.get('shape')}, dtype {res.inputs.get('dtype')}; "
                    f"fs from {res.inputs.get('fs_source', 'not recorded')}",
        excitation_lambda=float("nan"), indicator="unknown", location="unknown",
        **({"grid_spacing": spacing, "grid_spacing_unit": "meters"} if spacing else {}),
    )
    ophys = nwb.create_processing_module(name="ophys", description="planexec calcium analysis")
    segmentation = ImageSegmentation(name="ImageSegmentation")
    ophys.add(segmentation)
    planes = segmentation.create_plane_segmentation(
        name="PlaneSegmentation", description=res.sources.get("stat", ""), imaging_plane=plane)
    planes.add_column(name="iscell", description="1 if classified as a cell")
    planes.add_column(name="probcell", description="probability of being a cell (NaN: not classified)")
    for s, (flag, prob) in zip(res.stat, res.iscell, strict=True):
        mask = [(int(x), int(y), float(w)) for y, x, w in zip(s["ypix"], s["xpix"], s["lam"], strict=True)]
        planes.add_roi(pixel_mask=mask, iscell=bool(flag), probcell=float(prob))
    rois = planes.create_roi_table_region(region=list(range(len(res.stat))), description="all ROIs")
    # containers join the file before their series, so each series' ROI region shares its ancestor
    fluorescence = Fluorescence(name="Fluorescence")
    ophys.add(fluorescence)
    fluorescence.add_roi_response_series(_series("F", res.F, rois, fs, "a.u.", "mean ROI fluorescence (raw)"))
    if res.Fneu is not None:
        fluorescence.add_roi_response_series(_series("Fneu", res.Fneu, rois, fs, "a.u.", res.sources.get("Fneu", "")))
    if res.dff is not None and res.dff.shape == res.F.shape:
        dff = DfOverF(name="DfOverF")
        ophys.add(dff)
        dff.add_roi_response_series(_series("dff", res.dff, rois, fs, "n.a.", "ΔF/F"))
    if res.spks is not None:
        deconvolved = Fluorescence(name="Deconvolved")
        ophys.add(deconvolved)
        deconvolved.add_roi_response_series(_series("spks", res.spks, rois, fs, "a.u.", res.sources.get("spks", "")))
    images = [GrayscaleImage(name=n, data=img.astype(np.float32), description=d)
              for n, img, d in (("meanImg", res.mean_image, "temporal mean"), ("max_proj", res.max_image, "temporal max"))
              if img is not None]
    if images:
        ophys.add(Images(name="Backgrounds_0", images=images, description="projections of the movie"))
    path = Path(path)
    with NWBHDF5IO(str(path), "w") as io:
        io.write(nwb)
    return path


def validate_nwb(path: Path) -> list[str]:
    """pynwb's schema validation: the problems found (empty when the file is valid)."""
    from pynwb import validate

    return [str(e) for e in validate(path=str(path))]
