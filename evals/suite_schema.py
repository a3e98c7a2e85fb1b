"""Checks a suite's evaluation points when the suite is loaded, before any agent runs, so a
typo in a suite is a usage error naming its file and line, never a FAIL that looks like a
regression: unknown validator types, weights that are not numbers, points without a type,
`depends_on` naming no earlier point, malformed `on` targets and chains.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from planexec.evals.registry import ValidatorRegistry

MAX_CHAIN_DEPTH = 8


@dataclass(frozen=True)
class Lines:
    """Where cases and points start in a suite file (TOML headers; JSON request keys), for error messages."""

    path: Path | None
    cases: tuple[int, ...] = ()
    shared_points: tuple[int, ...] = ()
    case_points: tuple[tuple[int, ...], ...] = ()

    @classmethod
    def of(cls, path: Path | None, text: str) -> Lines:
        if path is None:
            return cls(None)
        rows = text.splitlines()
        if path.suffix.lower() == ".toml":
            heads = [(n, r.strip()) for n, r in enumerate(rows, 1) if r.strip().startswith("[[")]
            cases = [n for n, h in heads if re.match(r"\[\[\s*cases\s*\]\]", h)]
            shared = [n for n, h in heads if re.match(r"\[\[\s*points\s*\]\]", h)]
            own = [n for n, h in heads if re.match(r"\[\[\s*cases\.points\s*\]\]", h)]
            bounds = [*cases, len(rows) + 1]
            per_case = tuple(tuple(p for p in own if bounds[i] < p < bounds[i + 1]) for i in range(len(cases)))
            return cls(path, tuple(cases), tuple(shared), per_case)
        return cls(path, tuple(n for n, r in enumerate(rows, 1) if '"request"' in r))

    def case(self, index: int) -> str:
        """`file:line` of case `index` (1-based), or the file alone."""
        line = self.cases[index - 1] if 0 < index <= len(self.cases) else None
        return self._at(line)

    def point(self, case_index: int | None, point_index: int) -> str:
        """`file:line` of a point (`case_index` None: a top-level shared point), else of its case."""
        if case_index is None:
            pts = self.shared_points
        else:
            pts = self.case_points[case_index - 1] if 0 < case_index <= len(self.case_points) else ()
        if 0 < point_index <= len(pts):
            return self._at(pts[point_index - 1])
        return self.case(case_index) if case_index else self._at(None)

    def _at(self, line: int | None) -> str:
        name = str(self.path) if self.path else "suite"
        return f"{name}:{line}" if line else name


def point_problems(point: Any, registry: ValidatorRegistry, earlier: set[str], depth: int = 0) -> list[str]:
    """What is wrong with one evaluation point; `earlier` are the ids of the points before it."""
    if not isinstance(point, dict):
        return [f"a point must be a table/object with type and params, got {type(point).__name__}"]
    problems = []
    kind = point.get("type")
    known = ", ".join(sorted({*registry.names(), "chain"}))
    if not isinstance(kind, str) or not kind:
        problems.append(f"the point has no type; add type = one of: {known}")
    else:
        base = kind[4:] if kind.startswith("not-") else kind
        if base != "chain" and base not in registry:
            problems.append(f"unknown validator type {kind!r}; use one of: {known}")
    if "weight" in point:
        w = point["weight"]
        if isinstance(w, bool) or not isinstance(w, (int, float)) or not math.isfinite(w) or w < 0:
            problems.append(f"weight must be a non-negative number, got {w!r}")
    params = point.get("params")
    if params is not None and not isinstance(params, dict):
        problems.append(f"params must be a table/object, got {type(params).__name__}")
    on = point.get("on")
    if on is not None and not (isinstance(on, str) and (on in ("answer", "results") or on.startswith(("results.", "results[")))):
        problems.append(f"'on' must be 'answer', 'results' or 'results.<key>', got {on!r}")
    if "id" in point and not (isinstance(point["id"], str) and point["id"]):
        problems.append(f"id must be a non-empty string, got {point['id']!r}")
    deps = point.get("depends_on")
    if deps not in (None, "", []):
        for dep in deps if isinstance(deps, list) else [deps]:
            if not isinstance(dep, str) or dep not in earlier:
                have = ", ".join(sorted(earlier)) or "none"
                problems.append(f"depends_on {dep!r} names no earlier point (ids before it: {have})")
    if kind == "chain" or kind == "not-chain":
        steps = point.get("steps")
        if steps is None and isinstance(params, dict):
            steps = params.get("steps")
        if not isinstance(steps, list) or not steps:
            problems.append("a chain needs steps: a non-empty list of evaluation points")
        elif depth >= MAX_CHAIN_DEPTH:
            problems.append(f"chains nest deeper than {MAX_CHAIN_DEPTH} levels")
        else:
            for i, step in enumerate(steps, 1):
                problems += [f"chain step {i}: {p}" for p in point_problems(step, registry, set(), depth + 1)
                             if "depends_on" not in p]
    return problems


def case_problems(points: list[Any], shared_count: int, case_index: int, lines: Lines,
                  registry: ValidatorRegistry) -> list[str]:
    """Problems of a case's points (shared ones first), each prefixed with `file:line`."""
    out, ids = [], set()
    for n, point in enumerate(points):
        where = lines.point(None, n + 1) if n < shared_count else lines.point(case_index, n - shared_count + 1)
        out += [f"{where}: {p}" for p in point_problems(point, registry, ids)]
        if isinstance(point, dict) and isinstance(point.get("id"), str):
            ids.add(point["id"])
    return out
