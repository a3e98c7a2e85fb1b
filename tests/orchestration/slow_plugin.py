"""A small tool plugin for the checkpoint tests: each call leaves a marker, one tool can be slow.

Loaded in a child process by module name (`slow_plugin`, with this folder on PYTHONPATH), so a
run can be killed mid-step and resumed with the same tools. Every value it makes is derived
from its arguments and the run state, so an interrupted-and-resumed run can be compared with
a clean one.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np

from planexec.tools import ToolContext, ToolOutput, tool

SLOW_SECONDS = "SLOW_PLUGIN_SECONDS"
"""Environment variable: how long `slow_square` sleeps (default 0.05 s)."""


def _mark(markers: str, name: str) -> None:
    """Append one line per call: the number of lines is the number of calls."""
    path = Path(markers) / f"{name}.calls"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as fh:
        fh.write(f"{os.getpid()}\n")


def calls(markers: Path, name: str) -> int:
    path = Path(markers) / f"{name}.calls"
    return len(path.read_text(encoding="utf-8").splitlines()) if path.exists() else 0


@tool(type="data")
def make_signal(markers: str, n: int = 50) -> ToolOutput:
    """Make a deterministic signal (float and integer arrays) and keep it in the run state."""
    _mark(markers, "make_signal")
    x = np.linspace(0.0, 1.0, n)
    signal = np.sin(2 * np.pi * 3 * x) + 0.5 * x
    peaks = np.flatnonzero((signal[1:-1] > signal[:-2]) & (signal[1:-1] > signal[2:])) + 1
    return ToolOutput(
        value={"n": n},
        summary=f"signal of {n} samples",
        results={"n_samples": n, "signal": signal},
        state={"signal": signal, "peaks": peaks.astype(np.int32), "meta": {"rate": 100.0, "label": "sine"}},
    )


@tool(type="statistics")
def slow_square(markers: str, ctx: ToolContext) -> ToolOutput:
    """Square the signal after a pause (long when the test wants to kill the run here)."""
    _mark(markers, "slow_square")
    time.sleep(float(os.environ.get(SLOW_SECONDS, "0.05")))
    squared = ctx.state["signal"] ** 2
    return ToolOutput(value={"energy": float(squared.sum())}, summary="squared",
                      results={"energy": float(squared.sum())}, state={"squared": squared})


@tool(type="statistics")
def summarise_signal(markers: str, ctx: ToolContext) -> ToolOutput:
    """Summarise the saved arrays: proves they came back intact (dtype, shape, values)."""
    _mark(markers, "summarise_signal")
    peaks = ctx.state["peaks"]
    squared = ctx.state["squared"]
    return ToolOutput(
        value={"peaks": int(peaks.size)},
        summary=f"{peaks.size} peaks",
        results={"n_peaks": int(peaks.size), "peak_dtype": str(peaks.dtype), "rms": float(np.sqrt(squared.mean())),
                 "rate": ctx.state["meta"]["rate"]},
    )


TOOLS = [make_signal, slow_square, summarise_signal]
