"""Run the shipped calcium capabilities in order, in-process, on an array: for benchmarks and tests.

The orchestrator runs the same snippets in its sandbox session; this runner skips the sandbox
(process start-up, not analysis time) so benchmarks and tests measure the analysis itself.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from planexec.datafiles import shipped
from planexec.params import resolve

CHAIN = ("register_motion", "segment_cells", "extract_neuropil", "baseline_running", "compute_dff",
         "deconvolve_events", "classify_cells")
"""The field's order: registration, segmentation, neuropil, baseline and ΔF/F, deconvolution, classification."""


@dataclass
class ChainResult:
    """The namespace after the chain ran, and seconds per capability."""

    namespace: dict[str, Any]
    seconds: dict[str, float] = field(default_factory=dict)

    def __getitem__(self, key: str) -> Any:
        return self.namespace[key]

    def cells(self) -> list[list[float]]:
        """Centroids of the ROIs classified as cells (all ROIs when no classification ran)."""
        centroids = self.namespace.get("cell_centroids") or []
        iscell = self.namespace.get("iscell")
        if iscell is None:
            return list(centroids)
        return [c for c, row in zip(centroids, iscell, strict=True) if row[0] > 0.5]

    def cell_events(self) -> list[dict[str, Any]]:
        """Events of cells only, renumbered to index `cells()`."""
        iscell = self.namespace.get("iscell")
        events = self.namespace.get("events") or []
        if iscell is None:
            return list(events)
        keep = np.flatnonzero(np.asarray(iscell)[:, 0] > 0.5) if len(iscell) else np.zeros(0, int)
        new = {int(old): i for i, old in enumerate(keep)}
        return [{**e, "cell": new[e["cell"]]} for e in events if e["cell"] in new]


def load_code(ids: Sequence[str]) -> dict[str, Any]:
    """Compiled snippets of the shipped capabilities."""
    folder = shipped("capabilities")
    return {cid: compile((folder / f"{cid}.py").read_text(encoding="utf-8"), cid, "exec") for cid in ids}


def run_chain(images: Any, params: Mapping[str, Any] | None = None, ids: Sequence[str] = CHAIN) -> ChainResult:
    """Execute the snippets in order in one namespace (as the sandbox session does)."""
    return run_in({"images": images}, ids, params)


def run_in(variables: Mapping[str, Any], ids: Sequence[str], params: Mapping[str, Any] | None = None) -> ChainResult:
    """Execute snippets in order on the given input variables (and the resolved `params`)."""
    import scipy
    import skimage

    values = dict(resolve("", params).values)
    ns: dict[str, Any] = {"np": np, "scipy": scipy, "skimage": skimage, "params": values, **variables}
    out = ChainResult(ns)
    for cid, code in load_code(ids).items():
        start = time.perf_counter()
        exec(code, ns)  # noqa: S102 - the shipped, trusted library
        out.seconds[cid] = time.perf_counter() - start
    return out


__all__ = ["CHAIN", "ChainResult", "load_code", "run_chain", "run_in"]
