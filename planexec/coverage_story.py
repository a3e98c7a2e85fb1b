"""What a whole request says around its asks (issue 12): clauses that only tell or wish, questions put to the search
before them, and clauses that hold two asks ("make a mean image and a maximum projection", "a boxplot of 50 gaussian
curves")."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet

from planexec.clause_kinds import (
    asking_part,
    asks_advice,
    asks_sources,
    declines_only,
    opens_or_times_only,
    tells_only,
    wishes_only,
)
from planexec.clause_mood import narrative, points_back, sentences_of, without_header
from planexec.coverage_result import INPUT, NOTHING, ClauseCoverage
from planexec.coverage_terms import without_names, worked_on
from planexec.knowledge.reuse import extract_terms

Decide = Callable[[str, str], ClauseCoverage]
"""The decision for one clause, given the clause before it."""


_REWORKS = re.compile(r"\b(?:translat\w*|summari[sz]\w*|rewrit\w*|paraphras\w*|simplif\w*|shorten\w*|rephras\w*|"
                      r"turn (?:it|them|that|this) into)\b", re.IGNORECASE)
"""What a search does not do to its passages: translating or summarising them is another task."""


def after_search(c: ClauseCoverage, prev: ClauseCoverage | None, searches: AbstractSet[str]) -> ClauseCoverage:
    """A clause after a literature search (`searches`: the actions that search papers) that asks advice ("which
    percentile is suggested for F0?") or what the search returns ("show me the passages with their sources") is that
    search, not a computation."""
    if prev is None or prev.served_by not in searches or _REWORKS.search(c.clause):
        return c
    if asks_advice(c.clause):
        return ClauseCoverage(c.clause, prev.served_by, prev.score, (), "asks what the search before it looks up")
    if c.served_by is None and (worked_on(c.clause) == {"paper"} or (not worked_on(c.clause) and asks_sources(c.clause))):
        return ClauseCoverage(c.clause, prev.served_by, prev.score, (), "asks for what the search before it returns")
    return c


_POINTS_TO_DATA = re.compile(r"\b(?:it|them)\b|\b(?:which|the) ones?\b|\bthe (?:others?|rest)\b|\b(?:this|that|these|those)\b(?=\s*(?:[,.;:?!]|$|\s+(?:in|into|on|to|for|"
                             r"with|by|as|up|out|back|round|again|please)\b))", re.IGNORECASE)


def points_to_data(ask: str) -> bool:
    """Whether an ask points back to what its story describes ("Please bring it into the session", "which one")."""
    return bool(_POINTS_TO_DATA.search(ask))


def ask_beside_story(clause: str) -> str | None:
    """The asking sentences of a clause whose other sentences only tell its story ("Neuropil correction is done.
    What's a good gin cocktail?" -> the question), or None when no sentence was left out or the ask points back to
    the data the story describes ("Here's a CSV of profiles. Please bring it into the session.")."""
    whole = without_header(clause)
    ask = asking_part(whole)
    if len(sentences_of(ask)) >= len(sentences_of(whole)) or _POINTS_TO_DATA.search(ask):
        return None
    return ask


_ON_IT = re.compile(r"\b(?:measure|compute|calculate|estimate|determine|quantify)\s+(?:it|that|them|this)\b"
                    r"(?:\s+than\b[^.;:?!]*)?\s*[.!]?\s*$", re.IGNORECASE)
"""A clause whose only ask is done to what the ask beside it names ("so we'd rather measure it than assume it")."""


def story(c: ClauseCoverage, served: set[str | None], needed: AbstractSet[str] = frozenset(),
          told: bool = False) -> ClauseCoverage:
    """An unserved clause beside a served ask: nothing asked if it only tells about the data or the writer, tells what
    was done or will be done elsewhere (`told`: a narrative no later clause points back to), is a vague wish of someone
    else's that names no object or whose closest action serves the ask, or declines work that no step of the served
    asks does (`needed`: their tasks and their producers'); else unchanged."""
    if tells_only(c.clause):
        return ClauseCoverage(c.clause, NOTHING, 1.0, (), "tells about the data or the writer; asks nothing")
    if told:
        return ClauseCoverage(c.clause, NOTHING, 1.0, (), "tells what was done, or will be done elsewhere or later; "
                                                          "asks nothing")
    if _ON_IT.search(c.clause) and not extract_terms(c.clause).groups and not worked_on(c.clause):
        return ClauseCoverage(c.clause, NOTHING, 1.0, (), "asks again for what the ask beside it asks")
    if opens_or_times_only(c.clause):
        return ClauseCoverage(c.clause, NOTHING, 1.0, (), "opens the input or says when; the ask beside it says what")
    if declines_only(c.clause) and not extract_terms(c.clause).groups.get("task", frozenset()) & needed:
        return ClauseCoverage(c.clause, NOTHING, 1.0, (), "declines work the ask does not need; asks nothing")
    if wishes_only(c.clause) and (not worked_on(c.clause) or c.candidates and c.candidates[0].name in served):
        return ClauseCoverage(c.clause, NOTHING, 1.0, (), "tells what someone else wishes; the direct ask says what to do")
    return c


def narrated(clauses: Sequence[ClauseCoverage]) -> list[bool]:
    """Which clauses only tell a story beside the ask ("Sam did the cell detection last month", "Marta will do the
    kinetics"): narratives the next clause does not point back to ("Could you segment it that way?"; a narrative
    pointing back is more story), when some clause that is
    no narrative is served. A request made of narratives only keeps them all."""
    asks = {c.served_by for c in clauses if not narrative(c.clause)} - {None, INPUT, NOTHING}
    # a decline ("The segmentation was done separately, so that one isn't needed") is judged as one: by `story`
    return [bool(asks) and narrative(c.clause) and not declines_only(c.clause)
            and not (i + 1 < len(clauses) and points_back(clauses[i + 1].clause) and not narrative(clauses[i + 1].clause))
            for i, c in enumerate(clauses)]


def only_story(clauses: Sequence[ClauseCoverage]) -> list[ClauseCoverage]:
    """A request that only tells ("Sam segmented the cells last month. Marta will compute the skewness next week.")
    asks nothing: when no served clause is a request, the served narratives are not served."""
    def served(c: ClauseCoverage) -> bool:
        return c.served_by not in (None, INPUT, NOTHING)

    if any(served(c) and not narrative(c.clause) for c in clauses):
        return list(clauses)
    why = "tells what was done, or will be done elsewhere or later; asks nothing"
    return [ClauseCoverage(c.clause, None, c.score, tuple(dataclasses.replace(x, accepted=False, reason=why)
                                                          for x in c.candidates), why)
            if served(c) and narrative(c.clause) else c for c in clauses]


_AND = re.compile(r"\s+and\s+", re.IGNORECASE)
# "a functional boxplot of 50 gaussian curves, 80 points each, seed 8": the curves are to be made first
_OF_NEW_CURVES = re.compile(r"^(.*?\b(?:of|for|on))\s+((?:\d+|[a-z]+(?:-[a-z]+)?)\s+(?:[\w-]+\s+){0,2}?(?:curves|ramps|"
                            r"trajectories|members|realisations|realizations|sine waves|bumps)\b.*)$", re.IGNORECASE)


def split_if_served(decided: ClauseCoverage, decide: Decide, generated: AbstractSet[str],
                    searches: AbstractSet[str] = frozenset()) -> list[ClauseCoverage]:
    """An unserved clause taken apart when, and only when, each part is served on its own: two asks joined by "and"
    (the clause splitter keeps "and" before a noun phrase together: "mean and max of each column"), or a step on curves
    the clause also describes ("a boxplot of 50 gaussian curves, seed 8": made by a generator in `generated`). A part
    after a search part may ask that search (`after_search`)."""
    if decided.covered or decided.out_of_scope:
        return [decided]
    parts = _AND.split(decided.clause)
    if len(parts) > 1:
        split: list[ClauseCoverage] = []
        for i, p in enumerate(parts):
            split.append(after_search(decide(p, parts[i - 1] if i else ""), split[-1] if split else None, searches))
        if all(c.served_by not in (None, INPUT, NOTHING) for c in split):
            return split
    made = _OF_NEW_CURVES.match(decided.clause)
    if made is None or without_names(made.group(2)) != made.group(2):  # "... of the 40 curves in runs.npy": a file
        return [decided]
    make = decide(f"generate {made.group(2)}", "")
    step = decide(f"{made.group(1)} the curves", make.clause)
    if make.served_by in generated and step.served_by not in (None, INPUT, NOTHING):
        return [make, step]
    return [decided]


__all__ = ["ask_beside_story", "points_to_data", "Decide", "narrated", "only_story", "split_if_served", "story"]
