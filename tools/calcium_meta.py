"""Acquisition metadata of a movie: frame rate and pixel size, and where each value came from.

Read from TIFF tags (ImageJ `finterval` and resolution, OME `TimeIncrement` and
`PhysicalSizeX`) and overridden by what the user states (`--fs`, `--pixel-size`). A value
nobody stated stays None: a frame rate is never guessed, and code that needs seconds asks
for it with `require_fs`.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Any

from planexec.errors import InputError

# micrometres per unit, for the length units ImageJ and OME write
_UM_PER = {"um": 1.0, "µm": 1.0, "micron": 1.0, "microns": 1.0, "micrometer": 1.0, "nm": 1e-3,
           "mm": 1e3, "cm": 1e4, "m": 1e6, "\\u00B5m": 1.0}
# seconds per unit, for OME's TimeIncrementUnit
ASSUMED_FS = 10.0
"""The rate (Hz) analyses use when the movie records none and nobody gave one: an assumption, never a measurement."""
ASSUMED_FS_NOTE = (f"not recorded and not given: analyses that need a rate assumed {ASSUMED_FS:g} Hz (baseline "
                   "window, segmentation bins, decay tau_used, events_per_min of cell_features); times are in frames; "
                   "pass --fs HZ")


def assumed_rate_note(inputs: dict[str, Any]) -> str:
    """The line a report shows when the analyses ran on an assumed frame rate ('' when it was known)."""
    assumed = inputs.get("fs_assumed_by_analyses")
    if inputs.get("fs") is not None or assumed is None:
        return ""
    return (f"Frame rate not recorded and not given: analyses that need one assumed {assumed:g} Hz. Values "
            "derived from it (tau_used in s, baseline window, segmentation bins, events_per_min of cell_features) hold only "
            "if the movie was recorded at that rate; times are in frames. Pass --fs HZ.")


_S_PER = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "min": 60.0, "h": 3600.0}


@dataclass
class Acquisition:
    """Frame rate (Hz) and pixel size (µm per pixel), each with its source ('' when unknown)."""

    fs: float | None = None
    pixel_size: float | None = None
    fs_source: str = ""
    pixel_size_source: str = ""

    def with_overrides(self, fs: float | None, pixel_size: float | None) -> Acquisition:
        """The user's values win over the file's; each is checked to be a positive number."""
        out = Acquisition(self.fs, self.pixel_size, self.fs_source, self.pixel_size_source)
        if fs is not None:
            out.fs, out.fs_source = _positive(fs, "fs", "--fs 30"), "given (--fs / params)"
        if pixel_size is not None:
            out.pixel_size = _positive(pixel_size, "pixel_size", "--pixel-size 0.8")
            out.pixel_size_source = "given (--pixel-size / params)"
        return out


def _positive(value: Any, name: str, example: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{name}={value!r} is not a number; pass e.g. {example}") from None
    if not number > 0 or number == float("inf"):
        raise InputError(f"{name}={value!r} must be a positive number; pass e.g. {example}")
    return number


def require_fs(acq: Acquisition | None, what: str) -> float:
    """The frame rate, or one line saying that `what` needs it and how to give it."""
    if acq is None or acq.fs is None:
        raise InputError(f"{what} needs the frame rate, and the movie does not record one; pass --fs HZ")
    return acq.fs


def from_tiff(tif: Any) -> Acquisition:
    """What an open `tifffile.TiffFile` says about timing and pixel size (ImageJ, then OME)."""
    acq = Acquisition()
    ij = tif.imagej_metadata or {}
    interval = ij.get("finterval")
    if interval:
        try:
            if float(interval) > 0:
                acq.fs, acq.fs_source = 1.0 / float(interval), "TIFF ImageJ finterval"
        except (TypeError, ValueError):
            pass
    if ij:
        size = _resolution_um(tif.pages[0], str(ij.get("unit") or ""))
        if size is not None:
            acq.pixel_size, acq.pixel_size_source = size, "TIFF ImageJ resolution"
    if tif.ome_metadata and (acq.fs is None or acq.pixel_size is None):
        _from_ome(tif.ome_metadata, acq)
    return acq


def _resolution_um(page: Any, unit: str) -> float | None:
    """µm per pixel from XResolution (pixels per unit), when the unit is a length ImageJ names."""
    factor = _UM_PER.get(unit.strip().lower()) or _UM_PER.get(unit.strip())
    tag = page.tags.get("XResolution")
    if factor is None or tag is None:
        return None
    num, den = tag.value
    if not num or not den or (num, den) == (1, 1):
        return None
    return factor * den / num


def _from_ome(xml: str, acq: Acquisition) -> None:
    try:
        root = ET.fromstring(xml)
    except ET.ParseError:
        return
    pixels = next((el for el in root.iter() if re.sub(r"\{.*\}", "", el.tag) == "Pixels"), None)
    if pixels is None:
        return
    a = pixels.attrib
    if acq.fs is None and a.get("TimeIncrement"):
        seconds = _S_PER.get(a.get("TimeIncrementUnit", "s"), None)
        step = float(a["TimeIncrement"]) * seconds if seconds else 0.0
        if step > 0:
            acq.fs, acq.fs_source = 1.0 / step, "TIFF OME TimeIncrement"
    if acq.pixel_size is None and a.get("PhysicalSizeX"):
        factor = _UM_PER.get(a.get("PhysicalSizeXUnit", "µm"), None)
        size = float(a["PhysicalSizeX"]) * factor if factor else 0.0
        if size > 0:
            acq.pixel_size, acq.pixel_size_source = size, "TIFF OME PhysicalSizeX"


def from_hdf5_attrs(attrs: Any) -> Acquisition:
    """Frame rate and pixel size from common HDF5 attribute names (`fs`, `frame_rate`, `pixel_size`)."""
    acq = Acquisition()
    for key in ("fs", "frame_rate", "rate", "imaging_rate"):
        if key in attrs:
            acq.fs, acq.fs_source = float(attrs[key]), f"HDF5 attribute {key}"
            break
    for key in ("pixel_size", "pixel_size_um", "microns_per_pixel"):
        if key in attrs:
            acq.pixel_size, acq.pixel_size_source = float(attrs[key]), f"HDF5 attribute {key}"
            break
    return acq
