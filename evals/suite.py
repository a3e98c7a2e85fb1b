"""Agent task suites: cases (request, inputs, evaluation points) loaded from TOML or JSON.

    name = "sales"                 # default: the file's stem
    threshold = 1.0                # share of cases that must pass for the suite to pass
    root = "../.."                 # input paths are relative to this (itself relative to the file)
    [[points]]                     # optional: points every case gets, before its own
    [[cases]]
    id = "average-revenue"
    request = "Analyze data/examples/sales.csv and tell me the average revenue"
    files = ["data/examples/sales.csv"]   # and/or images = "some/folder"
    threshold = 1.0                # case passes when its score >= this
    [[cases.points]]
    type = "numeric"
    on = "results.mean_revenue"
    params = { value = 1234.5, rel_tolerance = 1e-6 }
"""

from __future__ import annotations

import json
import math
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planexec.errors import InputError, UsageError
from planexec.evals.suite_schema import Lines, case_problems

if TYPE_CHECKING:
    from planexec.evals.registry import ValidatorRegistry


class SuiteError(UsageError):
    """A suite file that cannot be used; the message names the file, the case and the fix."""


@dataclass(frozen=True)
class Case:
    """One agent task and how to judge its answer."""

    id: str
    request: str
    points: tuple[dict[str, Any], ...]
    files: tuple[Path, ...] = ()
    images: Path | None = None
    threshold: float = 1.0
    description: str = ""


@dataclass(frozen=True)
class Suite:
    """A named set of cases with a pass threshold (share of cases that must pass)."""

    name: str
    cases: tuple[Case, ...]
    threshold: float = 1.0
    description: str = ""
    path: Path | None = None


def load_suite(path: Path | str, validators: ValidatorRegistry | None = None) -> Suite:
    """Read a `.toml` or `.json` suite file and check it against the suite schema (every point's
    validator type, weight, target and dependencies) before anything runs; every problem raises
    SuiteError naming the file, line and fix."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"suite file {path} does not exist; pass a .toml or .json suite (see data/suites/)")
    text = path.read_text(encoding="utf-8")
    try:
        if path.suffix.lower() == ".json":
            data = json.loads(text)
        elif path.suffix.lower() == ".toml":
            data = tomllib.loads(text)
        else:
            raise SuiteError(f"{path}: a suite must be a .toml or .json file")
    except (ValueError, tomllib.TOMLDecodeError) as exc:
        raise SuiteError(f"{path} is not valid {path.suffix[1:].upper()}: {exc}") from None
    return suite_from_dict(data, path, validators, text)


def suite_from_dict(data: Any, path: Path | None = None, validators: ValidatorRegistry | None = None,
                    text: str = "") -> Suite:
    """Build and check a suite from parsed data; `path` anchors relative input paths and names errors,
    `text` (the file's content) lets errors name lines, `validators` are the point types allowed."""
    from planexec.evals.registry import shared_validators

    where = str(path) if path else "suite"
    lines = Lines.of(path, text)
    if not isinstance(data, dict):
        raise SuiteError(f"{where}: the top level must be a table/object with [[cases]]")
    base = path.parent if path else Path.cwd()
    root = base / str(data.get("root", "."))
    shared = data.get("points", [])
    if not isinstance(shared, list):
        raise SuiteError(f"{where}: top-level points must be a list of evaluation points")
    raw_cases = data.get("cases")
    if not isinstance(raw_cases, list) or not raw_cases:
        raise SuiteError(f"{where}: no cases; add at least one [[cases]] with request and points")
    cases = [_case(c, i, root, shared, lines.case(i)) for i, c in enumerate(raw_cases, 1)]
    ids = [c.id for c in cases]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise SuiteError(f"{where}: duplicate case ids {dupes}; give each case its own id")
    registry = validators or shared_validators()
    problems = list(dict.fromkeys(
        p for i, c in enumerate(cases, 1) for p in case_problems(list(c.points), len(shared), i, lines, registry)
    ))
    if problems:
        more = f"; and {len(problems) - 5} more" if len(problems) > 5 else ""
        raise SuiteError(f"{len(problems)} problem(s) in the suite, fix them before running: "
                         + "; ".join(problems[:5]) + more)
    return Suite(
        name=str(data.get("name") or (path.stem if path else "suite")),
        cases=tuple(cases),
        threshold=_threshold(data.get("threshold", 1.0), f"{where}: threshold"),
        description=str(data.get("description", "")),
        path=path,
    )


def _threshold(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1 or math.isnan(value):
        raise SuiteError(f"{where} must be a number in [0, 1], got {value!r}")
    return float(value)


def _case(raw: Any, index: int, root: Path, shared: list[Any], where: str) -> Case:
    if not isinstance(raw, dict):
        raise SuiteError(f"{where}: case {index} must be a table/object")
    cid = str(raw.get("id") or f"case-{index}")
    label = f"{where}: case {cid!r}"
    request = raw.get("request")
    if not isinstance(request, str) or not request.strip():
        raise SuiteError(f"{label} has no request; add request = \"...\"")
    points = raw.get("points", [])
    if not isinstance(points, list):
        raise SuiteError(f"{label}: points must be a list of evaluation points")
    if not shared and not points:
        raise SuiteError(f"{label} has no evaluation points; add [[cases.points]]")
    files = raw.get("files", [])
    files = [files] if isinstance(files, str) else files
    if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        raise SuiteError(f"{label}: files must be a list of paths")
    resolved = tuple((root / f).resolve() for f in files)
    images = raw.get("images")
    if images is not None and not isinstance(images, str):
        raise SuiteError(f"{label}: images must be a folder path")
    return Case(
        id=cid,
        request=request,
        points=tuple([*shared, *points]),
        files=resolved,
        images=(root / images).resolve() if images else None,
        threshold=_threshold(raw.get("threshold", 1.0), f"{label}: threshold"),
        description=str(raw.get("description", "")),
    )


def missing_inputs(case: Case) -> list[Path]:
    """Inputs of `case` that do not exist (checked when the case runs, so other cases still run)."""
    paths = [*case.files, *([case.images] if case.images else [])]
    return [p for p in paths if not p.exists()]
