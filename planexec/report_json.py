"""report.json without megabytes of numbers: large arrays go to `arrays/*.npy`, referenced by path.

A numeric list of more than `INLINE_LIMIT` values anywhere in the run's dictionary is saved
once (identical arrays share one file) and replaced by `{"$npy": "arrays/NAME.npy", "shape",
"dtype"}`. `load_report` puts the arrays back, so a report still round-trips to `RunResult`.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import numpy as np

from planexec.serialize import to_jsonable

INLINE_LIMIT = 64
"""Numeric lists up to this many values stay in the JSON (a centroid list, a few counts)."""
REF_KEY = "$npy"


def _numeric(value: list[Any]) -> np.ndarray | None:
    """`value` as a rectangular numeric array, or None when it holds anything else."""
    first = value[0]
    if isinstance(first, bool) or not isinstance(first, (int, float, list)):
        return None
    try:
        arr = np.asarray(value)
    except ValueError:  # ragged
        return None
    if arr.dtype.kind not in "biuf" and not (arr.dtype == object and arr.size and all(
            v is None or isinstance(v, (int, float)) for v in arr.ravel())):
        return None
    if arr.dtype == object:
        arr = arr.astype(np.float64)  # None (a JSON NaN) becomes NaN
    return arr


class ArrayStore:
    """Saves arrays under `folder/arrays/`, one file per distinct content, named after where it first appeared."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self.by_hash: dict[str, str] = {}

    def ref(self, arr: np.ndarray, where: str) -> dict[str, Any]:
        digest = hashlib.sha1(arr.tobytes() + str(arr.shape).encode() + arr.dtype.str.encode()).hexdigest()
        name = self.by_hash.get(digest)
        if name is None:
            stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", where).strip("._")[:80] or "array"
            name = f"arrays/{stem}.npy"
            while (self.folder / name).exists():
                name = f"arrays/{stem}_{len(self.by_hash)}.npy"
            (self.folder / "arrays").mkdir(exist_ok=True)
            np.save(self.folder / name, arr, allow_pickle=False)
            self.by_hash[digest] = name
        return {REF_KEY: name, "shape": list(arr.shape), "dtype": str(arr.dtype)}


def externalize(obj: Any, store: ArrayStore, where: str = "") -> Any:
    """A copy of the JSON-ready `obj` with every large numeric list replaced by a file reference."""
    if isinstance(obj, dict):
        return {k: externalize(v, store, f"{where}.{k}" if where else str(k)) for k, v in obj.items()}
    if isinstance(obj, list) and obj:
        if _count(obj) > INLINE_LIMIT:
            arr = _numeric(obj)
            if arr is not None:
                return store.ref(arr, where)
        return [externalize(v, store, f"{where}.{i}") for i, v in enumerate(obj)]
    return obj


def arrays_to_files(result: Any, store: ArrayStore) -> Any:
    """A copy of the RunResult whose large numpy arrays (results, step outputs) are already file
    references: `to_dict` then never turns MBs of traces into lists of Python floats (a 190 x 10,000
    run took the reporting process from 0.06 to 2.5 GB), and arrays keep their dtype on disk."""
    import dataclasses

    def refs(obj: Any, where: str) -> Any:
        if isinstance(obj, np.ndarray) and obj.dtype.kind in "biuf" and obj.size > INLINE_LIMIT:
            return store.ref(obj, where)
        if isinstance(obj, dict):
            return {k: refs(v, f"{where}.{k}") for k, v in obj.items()}
        if isinstance(obj, (list, tuple)):
            return [refs(v, f"{where}.{i}") for i, v in enumerate(obj)]
        return obj

    steps = [dataclasses.replace(
        s, output=refs(s.output, f"steps.{i}.output"),
        attempts=tuple(dataclasses.replace(a, output=refs(a.output, f"steps.{i}.attempts.{j}.output"))
                       for j, a in enumerate(s.attempts)))
        for i, s in enumerate(result.steps)]
    return dataclasses.replace(result, results=refs(result.results, "results"), steps=steps)


def _count(value: list[Any]) -> int:
    """Leaf values of a nested list, estimated from its first branch (cheap; exact for rectangles)."""
    n, cur = 1, value
    while isinstance(cur, list) and cur:
        n *= len(cur)
        cur = cur[0]
    return n


def load_report(path: str | Path) -> dict[str, Any]:
    """report.json with every `$npy` reference replaced by the array's values (nested lists)."""
    path = Path(path)
    folder = path.parent

    def restore(obj: Any) -> Any:
        if isinstance(obj, dict):
            if REF_KEY in obj and set(obj) <= {REF_KEY, "shape", "dtype"}:
                from planexec.sandbox.parsing import load_npy
                return to_jsonable(load_npy(folder / obj[REF_KEY], allow_pickle=False))
            return {k: restore(v) for k, v in obj.items()}
        if isinstance(obj, list):
            return [restore(v) for v in obj]
        return obj

    return restore(json.loads(path.read_text(encoding="utf-8")))
