"""A table's columns for the coverage decision: "average revenue" reads as a column statistic of the given table."""

from __future__ import annotations

import csv
import dataclasses
import re
from collections.abc import Iterable, Sequence

from planexec.actions import Action

_TABLES = (".csv", ".tsv", ".json")
_ASKED_COLUMN = re.compile(
    r"\b(?:mean|average|avg|median|total|sum|std|standard deviation|variance|max(?:imum)?|min(?:imum)?|"
    r"highest|lowest|largest|smallest)\s+(?:of\s+)?(?:the\s+|all\s+)?([a-z][a-z0-9_]*)", re.IGNORECASE)
_NOT_COLUMNS = frozenset(
    "each every all the a an column columns value values row rows number numbers data table file it them "
    "of per over across cell cells trace traces image images frame frames curve curves event events".split())


def table_columns(files: Iterable[object]) -> list[str]:
    """Column names of the given CSV/JSON tables (empty when none is a table or none can be read)."""
    from pathlib import Path

    from planexec.errors import ToolError
    from planexec.tools.table import read_table

    cols: list[str] = []
    for f in files:
        path = Path(str(f))
        if path.suffix.lower() not in _TABLES or not path.is_file():
            continue
        try:
            rows = read_table(path)
        except (ToolError, ValueError, OSError, csv.Error):
            continue
        cols += [str(c) for c in (rows[0].keys() if rows else ()) if str(c) not in cols]
    return cols


def asked_columns(request: str) -> list[str]:
    """Words a request asks a statistic of ("average revenue" -> revenue), to check against a table's columns."""
    return [m.group(1).lower() for m in _ASKED_COLUMN.finditer(request) if m.group(1).lower() not in _NOT_COLUMNS]


def with_columns(actions: Sequence[Action], columns: Sequence[str]) -> list[Action]:
    """The table tool phrased with the given table's own columns, so "average revenue" reads as a column statistic."""
    if not columns:
        return list(actions)
    extra = tuple(f"the mean, median, standard deviation, minimum and maximum of {c}" for c in columns)
    extra += tuple(f"the average {c}" for c in columns)
    return [dataclasses.replace(a, examples=(*a.examples, *extra)) if a.name == "describe_table" else a
            for a in actions]


__all__ = ["asked_columns", "table_columns", "with_columns"]
