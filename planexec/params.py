"""Analysis parameters a user can set: from the request text, the Python API and `--param KEY=VALUE`.

Precedence: explicit (API / CLI) > parsed from the request ("cells about 10 px wide, imaged at
30 Hz") > the defaults below. The resolved dict reaches every capability as the run variable
`params` and is recorded in the report, with where each value came from.

A default of None means "estimate it from the data" (e.g. the cell diameter from the mean image).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from planexec.errors import UsageError
from planexec.number_words import digits


@dataclass(frozen=True)
class ParamSpec:
    """One known parameter: its default, allowed range and what it means."""

    default: float | bool | None
    low: float | None = None
    high: float | None = None
    help: str = ""
    kind: type = float


SPECS: dict[str, ParamSpec] = {
    "diameter": ParamSpec(None, 2.0, 200.0, "cell diameter in pixels (None: estimated from the movie)"),
    "fs": ParamSpec(None, 0.1, 10000.0, "frame rate in Hz (None: 10 Hz unless the file says otherwise)"),
    "tau": ParamSpec(None, 0.01, 30.0, "indicator decay time constant in s (None: estimated, ~0.7 s GCaMP6f)"),
    "neuropil_coefficient": ParamSpec(0.7, 0.0, 2.0, "r in F - r*Fneu"),
    "event_threshold": ParamSpec(None, 0.5, 50.0, "event threshold on inferred activity, in noise units"),
    "cell_threshold": ParamSpec(0.5, 0.0, 1.0, "cell probability above which a ROI counts as a cell"),
    "register": ParamSpec(None, kind=bool, help="correct motion: true, false or None (only if motion is detected)"),
    "nonrigid": ParamSpec(None, kind=bool, help="piecewise-rigid registration (None: if rigid leaves residual motion)"),
    "pixel_size": ParamSpec(None, 1e-6, 1e6, "pixel size in micrometres"),
    "stream": ParamSpec(None, kind=bool, help="read the movie from its file in chunks: true, false or None "
                                               "(only when its float32 copy would exceed 1 GB)"),
}
"""Parameters the calcium capabilities read; other keys pass through unchecked."""

_ALIASES = {"frame_rate": "fs", "fps": "fs", "neuropil": "neuropil_coefficient", "r": "neuropil_coefficient",
            "cell_diameter": "diameter", "decay": "tau"}

_NUMBER = r"(\d+(?:\.\d+)?)"
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("diameter", re.compile(rf"(?:cells?|neurons?|somata|soma)\b[^.;,]{{0,30}}?\b{_NUMBER}\s*(?:px|pixels?)\b", re.I)),
    ("diameter", re.compile(rf"\bdiameter\s*(?:of|=|:|is)?\s*(?:about|around|~)?\s*{_NUMBER}\s*(?:px|pixels?)?", re.I)),
    ("fs", re.compile(rf"{_NUMBER}\s*(?:hz|hertz|fps|frames?\s*(?:(?:per|/)\s*|(?:in|each|every) (?:one |a |each )?)s(?:ec(?:ond)?)?)\b",
                      re.I)),  # "10 frames per second", "10 frames in one second"
    ("fs", re.compile(rf"\bframe\s*rate\s*(?:of|=|:|is)?\s*{_NUMBER}", re.I)),
    ("tau", re.compile(rf"\b(?:tau|decay(?:\s*time)?(?:\s*constant)?)\s*(?:of|=|:|is)?\s*(?:about|around|~)?\s*{_NUMBER}\s*(ms|s|sec(?:ond)?s?|milliseconds?)\b", re.I)),
    ("neuropil_coefficient", re.compile(rf"\bneuropil\s*(?:coefficient|factor|ratio)\s*(?:of|=|:|is)?\s*{_NUMBER}", re.I)),
    ("pixel_size", re.compile(rf"{_NUMBER}\s*(?:µm|um|microns?|micrometres?|micrometers?)\s*(?:per|/)\s*(?:px|pixel)", re.I)),
)


@dataclass(frozen=True)
class Params:
    """The resolved parameters and, per key, where the value came from (default, request, api)."""

    values: dict[str, Any] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)

    def given(self) -> dict[str, Any]:
        """Only what the user set (request text or API/CLI)."""
        return {k: v for k, v in self.values.items() if self.sources.get(k) != "default"}

    def to_dict(self) -> dict[str, Any]:
        return {"values": dict(self.values), "sources": dict(self.sources)}


def _canonical(key: str) -> str:
    key = key.strip().lower().replace("-", "_")
    return _ALIASES.get(key, key)


def _coerce(key: str, value: Any) -> Any:
    """The value as its spec's type, range-checked; a usage error names the fix."""
    spec = SPECS.get(key)
    if spec is None:
        return _guess(value)
    if value is None or (isinstance(value, str) and value.strip().lower() in ("none", "auto", "")):
        return None
    if spec.kind is bool:
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in ("1", "true", "yes", "on"):
            return True
        if text in ("0", "false", "no", "off"):
            return False
        raise UsageError(f"parameter {key}={value!r} must be true, false or auto")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise UsageError(f"parameter {key}={value!r} is not a number; e.g. --param {key}={spec.default or 1}") from None
    if number != number or (spec.low is not None and number < spec.low) or (spec.high is not None and number > spec.high):
        raise UsageError(f"parameter {key}={value!r} is out of range; use a value in [{spec.low:g}, {spec.high:g}]")
    return number


def _guess(value: Any) -> Any:
    """Unknown keys: numbers become numbers, true/false booleans, anything else stays text."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def from_request(text: str) -> dict[str, float]:
    """Parameters stated in the request, e.g. "cells about 10 px wide, imaged at 30 Hz"."""
    found: dict[str, float] = {}
    text = digits(text)  # "acquired at ten frames per second", "a decay of zero point seven seconds"
    for key, pattern in _PATTERNS:
        if key in found:
            continue
        match = pattern.search(text)
        if match is None:
            continue
        value = float(match.group(1))
        if key == "tau" and match.group(2).lower().startswith("m"):
            value /= 1000.0
        try:
            found[key] = _coerce(key, value)
        except UsageError:
            continue  # a number the request mentions in passing is not an error
    return found


def from_pairs(pairs: Iterable[str]) -> dict[str, Any]:
    """`KEY=VALUE` strings (the CLI's repeatable --param) as a dict; a malformed one is a usage error."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--param {pair!r} is not KEY=VALUE; e.g. --param diameter=10")
        out[key.strip()] = value.strip()
    return out


def resolve(request: str, explicit: Mapping[str, Any] | None = None) -> Params:
    """Defaults, overridden by the request text, overridden by explicit values (validated)."""
    values: dict[str, Any] = {k: s.default for k, s in SPECS.items()}
    sources = dict.fromkeys(SPECS, "default")
    for key, value in from_request(request).items():
        values[key], sources[key] = value, "request"
    for raw_key, value in (explicit or {}).items():
        key = _canonical(str(raw_key))
        values[key], sources[key] = _coerce(key, value), "api"
    return Params(values, sources)


def describe() -> str:
    """One line per known parameter, for help texts."""
    return "\n".join(f"{k}: {s.help} (default {s.default})" for k, s in SPECS.items())


__all__ = ["SPECS", "ParamSpec", "Params", "describe", "from_pairs", "from_request", "resolve"]
