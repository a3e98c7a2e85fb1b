"""Checkpoints: the run state saved after every step (JSON, arrays as .npy beside it), and loaded back.

Arrays are written with `allow_pickle=False` and read the same way: a checkpoint is data only.
The input image stack is not copied; a resumed run loads it again from its source.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from planexec.errors import InputError, UsageError
from planexec.models import Plan, StepResult
from planexec.serialize import to_jsonable
from planexec.state import RunState

CHECKPOINT = "checkpoint.json"
ARRAYS = "checkpoint_arrays"
_SKIP_VARIABLES = {"images"}


def _pack(value: Any, arrays: dict[str, Any], key: str) -> Any:
    if type(value).__module__ == "numpy" and hasattr(value, "shape") and hasattr(value, "dtype"):
        if value.dtype.kind in "biufc":
            digest = hashlib.sha1(value.tobytes()).hexdigest()[:12]
            name = f"{''.join(c if c.isalnum() else '_' for c in key)[:40]}_{digest}.npy"
            arrays[name] = value
            return {"__ndarray__": name}
    if isinstance(value, dict):
        return {str(k): _pack(v, arrays, f"{key}.{k}") for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_pack(v, arrays, f"{key}.{i}") for i, v in enumerate(value)]
    return to_jsonable(value)


def _unpack(value: Any, folder: Path) -> Any:
    import numpy as np

    if isinstance(value, dict):
        if set(value) == {"__ndarray__"}:
            return np.load(folder / value["__ndarray__"], allow_pickle=False)
        return {k: _unpack(v, folder) for k, v in value.items()}
    if isinstance(value, list):
        return [_unpack(v, folder) for v in value]
    return value


def save_checkpoint(run: RunState, finished: bool = False) -> Path | None:
    """Write the run's state into its output folder atomically; None when checkpoints are off."""
    if run.output_dir is None or not run.config.checkpoint:
        return None
    import numpy as np

    with run.lock:
        state = dict(run.state)
        variables = {k: v for k, v in (state.get("variables") or {}).items() if k not in _SKIP_VARIABLES}
        state["variables"] = variables
        arrays: dict[str, Any] = {}
        data = {
            "version": 1,
            "finished": finished,
            "request": run.request,
            "files": [str(f) for f in run.files],
            "images": str(run.images) if run.images else None,
            "plan": run.plan.to_dict() if run.plan else None,
            "steps": [r.to_dict() for r in run.ordered_results()],
            "results": to_jsonable(run.results),
            "state": _pack(state, arrays, "state"),
            "artifacts": list(run.artifacts),
            "replans": to_jsonable(run.replans),
            "execution_sequence": to_jsonable(run.execution_sequence),
            "errors": list(run.errors),
            "timings": dict(run.timings),
        }
    folder = run.output_dir / ARRAYS
    folder.mkdir(exist_ok=True)
    for name, arr in arrays.items():
        target = folder / name
        if not target.exists():  # the name carries a content hash: same name, same data
            tmp = target.with_suffix(".tmp.npy")
            np.save(tmp, np.ascontiguousarray(arr), allow_pickle=False)
            os.replace(tmp, target)
    path = run.output_dir / CHECKPOINT
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data), encoding="utf-8")
    os.replace(tmp, path)
    return path


def load_checkpoint(run_dir: str | Path) -> dict[str, Any]:
    """The saved run as plain data plus restored arrays; clear errors for a missing or finished run."""
    folder = Path(run_dir)
    path = folder / CHECKPOINT
    if not path.exists():
        raise InputError(f"no checkpoint in {folder}: pass the folder of a run (outputs/<timestamp>)")
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("finished"):
        raise UsageError(f"the run in {folder} already finished; its answer is in {folder / 'report.md'}")
    data["plan"] = Plan.from_dict(data["plan"]) if data.get("plan") else None
    data["steps"] = [StepResult.from_dict(s) for s in data.get("steps") or ()]
    data["state"] = _unpack(data.get("state") or {}, folder / ARRAYS)
    return data


def restore(run: RunState, data: dict[str, Any]) -> Plan:
    """Put a loaded checkpoint back into a fresh run (after its inputs were loaded again)."""
    with run.lock:
        variables = run.state.get("variables", {})
        run.state.update(data["state"])
        run.state["variables"] = {**variables, **(data["state"].get("variables") or {})}
        run.results.update(data.get("results") or {})
        run.artifacts.extend(a for a in data.get("artifacts") or () if a not in run.artifacts)
        run.replans.extend(data.get("replans") or ())
        run.execution_sequence.extend(data.get("execution_sequence") or ())
        run.errors.extend(data.get("errors") or ())
        for r in data["steps"]:
            if r.status in ("succeeded", "failed"):
                run.step_results[r.step.step_num] = r
    assert data["plan"] is not None
    return data["plan"]
