"""The requests of issue 21, each with how to tell a right result from a wrong one.

`judge()` sorts a run into right / honestly not done / wrong: a run that says `succeeded`
must hold the asked-for result, checked against the data itself, not against a stored answer.
"""

from __future__ import annotations

import csv
import math
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from planexec.datafiles import shipped

Check = Callable[[Any], bool]


def sales_csv() -> Path:
    return shipped("examples", "sales.csv")


def mean_revenue(path: Path) -> float:
    with path.open(newline="") as fh:
        values = [float(r["revenue"]) for r in csv.DictReader(fh)]
    return math.fsum(values) / len(values)


def _has_mean_revenue(result: Any) -> bool:
    got = result.results.get("mean_revenue")
    return isinstance(got, (int, float)) and abs(got - mean_revenue(sales_csv())) < 1e-6


def _has_per_region_totals(result: Any) -> bool:
    return any("region" in k and ("total" in k or "sum" in k) for k in result.results)


def _has_30_curves_and_report(result: Any) -> bool:
    return result.results.get("n_curves") == 30 and "uncertainty_score" in result.results


def _never(result: Any) -> bool:
    return False


@dataclass(frozen=True)
class Case:
    """One request, its inputs, and the check a `succeeded` run must pass."""

    name: str
    request: str
    check: Check
    files: tuple[str, ...] = ()


def cases(tmp: Path) -> list[Case]:
    """The requests; the quoted-path case copies the table into a folder with a space in its name."""
    spaced = tmp / "my data"
    spaced.mkdir(parents=True, exist_ok=True)
    shutil.copy(sales_csv(), spaced / "sales 2025.csv")
    rel = "data/examples/sales.csv"
    return [
        Case("average revenue (relative path)", f"Analyze {rel} and tell me the average revenue", _has_mean_revenue),
        Case("average revenue (absolute path)", f"Analyze {sales_csv()} and tell me the average revenue", _has_mean_revenue),
        Case("average revenue (quoted path with spaces)",
             f'Analyze "{spaced / "sales 2025.csv"}" and tell me the average revenue', _has_mean_revenue),
        Case("curve ensemble report", "Generate 30 ensemble curves, compute functional boxplot statistics and "
             "write a quick uncertainty report", _has_30_curves_and_report),
        Case("revenue per region", f"What is the total revenue per region in {rel}?", _has_per_region_totals),
        Case("capital of France", "What is the capital of France?", _never),
        Case("chocolate cake", "Bake me a chocolate cake", _never),
        Case("translate", 'Translate "good morning" into Japanese', _never),
    ]


def judge(result: Any, check: Check) -> str:
    """right, honest (not done, and says so) or wrong (says succeeded without the result)."""
    if result.status != "succeeded":
        return "honest"
    return "right" if check(result) else "wrong"
