"""Checkpoints: the run state saved after every step (JSON, arrays as .npy beside it), and loaded back.

The checkpoint is a journal, `checkpoint.jsonl`: each save appends one line holding the steps
finished since the last one, the plan when it changed, and the current state. Appending costs
the same at step 50 as at step 1, and a line torn by a kill is ignored on load.

Arrays are written with `allow_pickle=False` and read the same way: a checkpoint is data only.
An array reference resolves only to a file this checkpoint wrote (each line lists them), never
to a path a value spelled: a user dict shaped like a reference is saved escaped, as data.
What the context builds (the input image stack, retrieved chunks) is not copied; a resumed
run builds it again from its sources. A value JSON cannot hold faithfully (an arbitrary
object) is saved in its JSON form and listed as lossy; when a step still to run needs such a
value, or one that lived only in a worker process, the step that produced it runs again.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from dataclasses import replace
from pathlib import Path
from typing import Any

from planexec.atomic import atomic_write
from planexec.errors import InputError, UsageError
from planexec.events import LogMessage, PlanCreated
from planexec.models import Plan, StepResult
from planexec.records import ExecutionEntry, ReplanRecord
from planexec.serialize import to_jsonable
from planexec.state import RunState

CHECKPOINT = "checkpoint.jsonl"
ARRAYS = "checkpoint_arrays"
VERSION = 4
_SKIP_VARIABLES = {"images"}
_ARRAY_KINDS = "biufcUSmM"  # every dtype numpy saves without pickle
_JSON_NATIVE = (type(None), bool, int, float, str)
_MARKERS = ("__ndarray__", "__npscalar__", "__tuple__", "__float__", "__dict__")
_ARRAY_NAME = re.compile(r"^\w{0,48}_[0-9a-f]{16}\.npy$")


def _pack(value: Any, arrays: dict[str, Any], key: str, lossy: list[str]) -> Any:
    """A JSON value; numpy arrays go to `arrays` (named by content hash) and leave a reference."""
    if type(value).__module__ == "numpy" and hasattr(value, "dtype"):
        if hasattr(value, "shape") and getattr(value, "ndim", 0) > 0 and value.dtype.kind in _ARRAY_KINDS:
            digest = hashlib.sha1(value.tobytes() + str((value.dtype.str, value.shape)).encode()).hexdigest()[:16]
            name = f"{''.join(c if c.isalnum() else '_' for c in key)[:40]}_{digest}.npy"
            arrays[name] = value
            return {"__ndarray__": name}
        if value.dtype.kind in "biuf" and getattr(value, "ndim", 0) == 0:
            return {"__npscalar__": value.dtype.str, "value": value.item()}
    if isinstance(value, dict):
        if all(isinstance(k, str) for k in value):
            packed = {k: _pack(v, arrays, f"{key}.{k}", lossy) for k, v in value.items()}
            return {"__dict__": packed} if any(k in _MARKERS for k in value) else packed
        lossy.append(key)
        return to_jsonable(value)
    if isinstance(value, tuple):
        return {"__tuple__": [_pack(v, arrays, f"{key}.{i}", lossy) for i, v in enumerate(value)]}
    if isinstance(value, list):
        return [_pack(v, arrays, f"{key}.{i}", lossy) for i, v in enumerate(value)]
    if isinstance(value, float) and value != value:
        return {"__float__": "nan"}
    if isinstance(value, float) and value in (float("inf"), float("-inf")):
        return {"__float__": "inf" if value > 0 else "-inf"}
    if not isinstance(value, _JSON_NATIVE):
        lossy.append(key)
    return to_jsonable(value)


def _unpack(value: Any, folder: Path, written: set[str] | None) -> Any:
    """Inverse of `_pack`; array references must name files in `written` (None: legacy names)."""
    if isinstance(value, dict):
        if set(value) == {"__ndarray__"}:
            return _load_array(folder, value["__ndarray__"], written)
        if set(value) == {"__npscalar__", "value"}:
            import numpy as np

            return np.dtype(value["__npscalar__"]).type(value["value"])
        if set(value) == {"__tuple__"}:
            return tuple(_unpack(v, folder, written) for v in value["__tuple__"])
        if set(value) == {"__float__"}:
            return float(value["__float__"])
        if set(value) == {"__dict__"} and isinstance(value["__dict__"], dict):
            return {k: _unpack(v, folder, written) for k, v in value["__dict__"].items()}
        return {k: _unpack(v, folder, written) for k, v in value.items()}
    if isinstance(value, list):
        return [_unpack(v, folder, written) for v in value]
    return value


def _load_array(folder: Path, name: Any, written: set[str] | None) -> Any:

    ok = isinstance(name, str) and _ARRAY_NAME.match(name) and (written is None or name in written)
    if not ok:
        raise InputError(f"the checkpoint in {folder.parent} refers to an array it did not write "
                         f"({str(name)[:80]!r}); it may have been tampered with: run the request again")
    fd = os.open(folder / name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            raise InputError(f"{folder / name} is not a regular file; run the request again")
        from planexec.sandbox.parsing import load_npy
        return load_npy(fh, allow_pickle=False)


def tool_modules(run: RunState) -> list[str]:
    """Modules outside planexec that the run's plan tools come from (named so resume can say what to load)."""
    mods: set[str] = set()
    names = {t for s in run.plan.steps for t in s.tools} if run.plan else set()
    for name in names & run.tools.names():
        tool = run.tools.get(name)
        mod = getattr(getattr(tool, "fn", None), "__module__", None) or type(tool).__module__
        if not mod.startswith("planexec."):
            mods.add(mod)
    return sorted(mods)


class Journal:
    """What this run already wrote to its checkpoint journal."""

    def __init__(self) -> None:
        self.plan: Plan | None = None
        self.steps: dict[int, int] = {}
        self.header = False


def save_checkpoint(run: RunState, finished: bool = False) -> Path | None:
    """Append the run's progress to its checkpoint journal; None when checkpoints are off."""
    if run.output_dir is None or not run.config.checkpoint:
        return None
    import numpy as np

    journal = run.services.journal.get(Journal)
    arrays: dict[str, Any] = {}
    lossy: list[str] = []
    with run.lock:
        state = dict(run.state)
        variables = {k: v for k, v in (run.state.get("variables") or {}).items() if k not in _SKIP_VARIABLES}
        state["variables"] = variables
        line: dict[str, Any] = {"version": VERSION, "finished": finished}
        if not journal.header:
            line["header"] = {"request": run.request, "files": [str(f) for f in run.files],
                              "images": str(run.images) if run.images else None,
                              "params": to_jsonable(run.params.given())}
        if run.plan is not None and run.plan is not journal.plan:
            line["plan"] = run.plan.to_dict()
            line["tool_modules"] = tool_modules(run)
        done = [r for r in run.step_results.values()
                if r.status in ("succeeded", "failed") and journal.steps.get(r.step.step_num) != id(r)]
        line["steps"] = [_pack_step(r, arrays) for r in done]
        line["results"] = _pack(dict(run.results), arrays, "results", lossy)
        line["state"] = _pack(state, arrays, "state", lossy)
        line.update(artifacts=list(run.artifacts), replans=to_jsonable(run.replans),
                    execution_sequence=to_jsonable(run.execution_sequence), errors=list(run.errors))
        line["lossy"] = lossy
        line["arrays"] = sorted(arrays)
    folder = run.output_dir / ARRAYS
    folder.mkdir(exist_ok=True)
    for name, arr in arrays.items():
        target = folder / name
        if not target.exists():  # the name carries a content hash: same name, same data
            atomic_write(target, lambda fh, a=arr: np.save(fh, np.ascontiguousarray(a), allow_pickle=False), sync=False)
    path = run.output_dir / CHECKPOINT
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(line) + "\n")
    journal.header = True
    journal.plan = run.plan
    journal.steps.update({r.step.step_num: id(r) for r in done})
    return path


def _pack_step(result: StepResult, arrays: dict[str, Any]) -> dict[str, Any]:
    """A finished step as JSON with its output's arrays (and its attempts') as .npy references,
    so a step that made per-ROI traces writes them once in their own dtype, not as JSON numbers."""
    lossy: list[str] = []  # a step's own output is shown, not resumed from: the state and results carry values
    bare = replace(result, output=None, attempts=tuple(replace(a, output=None, input={}) for a in result.attempts))
    packed = bare.to_dict()
    key = f"step{result.step.step_num}"
    packed["output"] = _pack(result.output, arrays, key, lossy)
    for attempt, out in zip(result.attempts, packed["attempts"], strict=True):
        out["output"] = _pack(attempt.output, arrays, key, lossy)
        out["input"] = _pack(dict(attempt.input), arrays, f"{key}.input", lossy)
    return packed


def _unpack_step(step: dict[str, Any], folder: Path, written: set[str] | None) -> StepResult:
    """Inverse of `_pack_step`."""
    attempts = [{**a, "output": _unpack(a.get("output"), folder, written),
                 "input": _unpack(a.get("input") or {}, folder, written)} for a in step.get("attempts") or ()]
    return StepResult.from_dict({**step, "output": _unpack(step.get("output"), folder, written),
                                 "attempts": attempts})


def _read_journal(path: Path) -> dict[str, Any]:
    """Fold the journal's lines into one record; a torn last line (a kill mid-write) is skipped."""
    data: dict[str, Any] = {}
    steps: dict[int, dict[str, Any]] = {}
    written: set[str] | None = None
    for raw in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            line = json.loads(raw)
        except json.JSONDecodeError:
            continue
        if not isinstance(line, dict):
            continue
        if line.get("version") != VERSION:
            raise UsageError(f"{path} was written by another planexec version (format {line.get('version')}, "
                             f"this one reads {VERSION}); run the request again")
        data.update(line.pop("header", None) or {})
        for step in line.pop("steps", None) or ():
            steps[int(step["step"]["step_num"])] = step
        if isinstance(line.get("arrays"), list):
            written = (written or set()) | {str(n) for n in line.pop("arrays")}
        data.update(line)
    data["steps"] = [steps[n] for n in sorted(steps)]
    data["arrays"] = written
    return data


def load_checkpoint(run_dir: str | Path) -> dict[str, Any]:
    """The saved run as plain data plus restored arrays; clear errors for a missing or finished run."""
    folder = Path(run_dir)
    path = folder / CHECKPOINT
    if not folder.is_dir():
        raise InputError(f"{folder} is not a folder; pass the folder of a run (outputs/<timestamp>)")
    if not path.exists():
        raise InputError(f"no checkpoint in {folder}: pass the folder of a run (outputs/<timestamp>) "
                         "that was started with checkpoints on")
    try:
        return _load(folder, path)
    except (ValueError, KeyError, TypeError, AttributeError, IndexError, OSError) as exc:
        if isinstance(exc, OSError) and not isinstance(exc, FileNotFoundError):
            raise
        raise InputError(f"{path} is damaged ({type(exc).__name__}: {str(exc)[:120]}); the run cannot be "
                         "resumed: run the request again") from None


def _load(folder: Path, path: Path) -> dict[str, Any]:
    data = _read_journal(path)
    if "request" not in data:
        raise InputError(f"{path} is damaged (no readable entry); the run cannot be resumed")
    if data.get("finished"):
        raise UsageError(f"the run in {folder} already finished; nothing to resume. "
                         f"Its answer is in {folder / 'report.md'}")
    if not data.get("plan"):
        raise UsageError(f"the run in {folder} stopped before it had a plan; run the request again")
    written = data.pop("arrays", None)
    try:
        data["plan"] = Plan.from_dict(data["plan"])
        data["steps"] = [_unpack_step(s, folder / ARRAYS, written) for s in data.get("steps") or ()]
    except UsageError as exc:  # a plan or step that no longer parses: the journal is damaged
        raise ValueError(str(exc)) from None
    data["state"] = _unpack(data.get("state") or {}, folder / ARRAYS, written)
    data["results"] = _unpack(data.get("results") or {}, folder / ARRAYS, written)
    return data


def restore(run: RunState, data: dict[str, Any]) -> Plan:
    """Put a loaded checkpoint back into a fresh run (after its context was built again).

    Values the fresh context built win over saved ones. Finished steps are kept, except those
    whose outputs a step still to run needs but the checkpoint could not bring back.
    """
    plan: Plan = data["plan"]
    missing_tools = sorted({t for s in plan.steps for t in s.tools} - run.tools.names())
    if missing_tools:
        mods = data.get("tool_modules") or []
        where = f" (the run's own tools came from {', '.join(mods)})" if mods else ""
        raise UsageError(
            f"the checkpointed plan uses tool(s) {missing_tools} that are not registered{where}; "
            "resume with the same tools: `planexec resume RUN_DIR --tools MODULE`, or Orchestrator(tools=...)"
        )
    with run.lock:
        fresh = set(run.state) | set(run.state.get("variables") or {})
        saved_state = dict(data["state"])
        variables = {**(saved_state.pop("variables", None) or {}), **run.state.get("variables", {})}
        run.state.update({k: v for k, v in saved_state.items() if k not in run.state})
        run.state["variables"] = variables
        run.results.update({k: v for k, v in (data.get("results") or {}).items()})
        run.artifacts.extend(a for a in data.get("artifacts") or () if a not in run.artifacts)
        run.replans.extend(ReplanRecord.from_dict(r) for r in data.get("replans") or ())
        run.execution_sequence.extend(ExecutionEntry.from_dict(e) for e in data.get("execution_sequence") or ())
        run.errors.extend(data.get("errors") or ())
        finished = {r.step.step_num: r for r in data["steps"]}
        redo = _steps_to_redo(plan, finished, _available(run, data, fresh))
        for num, result in finished.items():
            if num not in redo:
                run.step_results[num] = result
    run.bus.emit(PlanCreated(plan, "checkpoint"))
    kept = sorted(run.step_results)
    note = f"resumed: step(s) {kept or 'none'} finished before the interruption"
    run.bus.emit(LogMessage("info", note + (f"; step(s) {sorted(redo)} run again for values "
                                            "the checkpoint could not keep" if redo else "")))
    return plan


def _available(run: RunState, data: dict[str, Any], fresh: set[str]) -> set[str]:
    """Names of values the resumed run holds faithfully: rebuilt by the context, or saved without loss."""
    lossy: set[str] = set()
    for path in data.get("lossy") or ():
        parts = path.split(".")
        if parts[:2] == ["state", "variables"] and len(parts) > 2:
            lossy.add(parts[2])
        elif len(parts) > 1:
            lossy.add(parts[1])
    names = set(run.state) | set(run.state.get("variables") or {}) | set(run.results)
    return (names - lossy) | fresh


def _steps_to_redo(plan: Plan, finished: dict[int, StepResult], available: set[str]) -> set[int]:
    """Finished steps to run again because a pending step needs an output that did not survive."""
    producer: dict[str, int] = {}
    for num in sorted(finished):
        if finished[num].ok:
            for out in finished[num].step.outputs:
                producer[out] = num
    pending = [s for s in plan.steps if s.step_num not in finished]
    redo: set[int] = set()
    while pending:
        step = pending.pop()
        for need in step.inputs:
            num = producer.get(need)
            if need not in available and num is not None and num not in redo:
                redo.add(num)
                pending.append(finished[num].step)
    return redo
