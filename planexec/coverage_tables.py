"""A table's columns for the coverage decision: "average revenue" reads as a column statistic of the given table."""

from __future__ import annotations

import csv
import dataclasses
import re
from collections.abc import Iterable, Sequence

from planexec.actions import Action
from planexec.clause_mood import without_story

_TABLES = (".csv", ".tsv", ".json")
_ASKED_COLUMN = re.compile(
    r"\b(?:mean|average|avg|median|middle value|total|sum|std|standard deviation|variance|max(?:imum)?|min(?:imum)?|"
    r"highest|lowest|largest|smallest)\s+(?:of\s+)?(?:the\s+|all\s+)?([a-z][a-z0-9_]*)((?:\s+[a-z][a-z0-9_]*){0,2})",
    re.IGNORECASE)
_NOT_COLUMNS = frozenset(
    "each every all the a an column columns value values row rows number numbers data table file it them "
    "of per over across cell cells trace traces image images frame frames curve curves event events "
    "and or to in for with by from on at "
    # verbs and pronouns after a statistic's name ("so the mean is misleading", "sum me all the units")
    "is are was were be been being me us you him her my our your i we this that these those so but if as what which "
    "how when where why do does did has have had can could would should will may might must "
    # "make the average look better", "the median shouldn't care about them"
    "look looks looked seem seems seemed shouldn isn aren doesn don won wouldn couldn "
    # adverbs after it ("don't just give me the grand total again")
    "again too also first then now later here there please only instead anyway overall either yet alone itself".split())


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


_PARTICIPLE = re.compile(r"[a-z]{3,}ed (?:to|into|by|with|at|for|from|in|as|using)")
"""What was done to the statistic, not a column ("the revenue total converted to euros")."""


_VERB_OBJECT = re.compile(r"\s+(?:us|me|you|them|him|her|nothing|anything|something|little|much)\b", re.IGNORECASE)
"""After the word that follows a statistic, an object: that word is a verb ("one overall average tells us nothing")."""


def asked_columns(request: str) -> list[str]:
    """Words a request asks a statistic of ("average revenue" -> revenue), to check against a table's columns."""
    return [m.group(1).lower() for m in _ASKED_COLUMN.finditer(request) if m.group(1).lower() not in _NOT_COLUMNS]


def missing_columns(request: str, columns: Sequence[str]) -> list[str]:
    """The words a statistic is asked of that no column of the table is, where the next two words name none
    either ("the largest single revenue figure" asks of revenue, not of a column 'single')."""
    have = {c.lower() for c in columns}
    missing = []
    for m in _ASKED_COLUMN.finditer(without_story(request)):  # "our analyst already made the average order size"
        first = m.group(1).lower()
        words = [first, *m.group(2).lower().split()]
        if first in _NOT_COLUMNS or _PARTICIPLE.fullmatch(" ".join(words[:2])) or _VERB_OBJECT.match(m.group(2)):
            continue
        if not any(w in have or w.rstrip("s") in have for w in words):
            missing.append(first)
    return missing


def named_columns(clause: str, columns: Sequence[str]) -> list[str]:
    """The table's columns a clause names anywhere ("how spread out is the units column"), in the table's order."""
    said = {w.lower() for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", clause)}
    return [c for c in columns if c.lower() in said or f"{c.lower()}s" in said]


def with_columns(actions: Sequence[Action], columns: Sequence[str]) -> list[Action]:
    """The table tool phrased with the given table's own columns, so "average revenue" reads as a column statistic."""
    if not columns:
        return list(actions)
    extra = tuple(f"the mean, median, standard deviation, minimum and maximum of {c}" for c in columns)
    extra += tuple(f"the average {c}" for c in columns)
    return [dataclasses.replace(a, examples=(*a.examples, *extra)) if a.name == "describe_table" else a
            for a in actions]


__all__ = ["asked_columns", "missing_columns", "named_columns", "table_columns", "with_columns"]
