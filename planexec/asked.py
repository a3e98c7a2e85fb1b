"""What a clause asks for by name ("the peak ΔF/F", "their areas"), and whether a result names it.

The coverage decision matches a clause to an action as a whole; this is the check after the
step ran: a clause that asks for a named quantity is answered only by a result that names it
(or whose step says it computes it), so "what fraction of the cells fire" is not answered by a
list of events, nor "report their areas" by traces.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_LEAD = re.compile(
    r"^\s*(?:please\s+|can you\s+|could you\s+)?"
    r"(?:what(?:'s|\s+is|\s+are|\s+was|\s+were)?|give\s+me|tell\s+me|show\s+me|report|compute|calculate|"
    r"estimate|measure|get|return|output|list|quantify|determine|find|give)\s+"
    r"(?:(?:the|their|its|his|her|a|an|me|us|each|every|all|of)\s+)*",
    re.I,
)
_STOP_AT = re.compile(
    r"\s+(?:of|per|in|for|across|between|from|among|at|on|over|by|with|within|does|do|did|is|are|was|were|"
    r"that|which|who|to|and then|then|as)\b|[?,;:.]|$",
    re.I,
)
QUANTITIES = frozenset("""
    fraction proportion percentage percent ratio share mean median mode max min sum std variance skewness
    kurtosis area size diameter radius length width perimeter volume rate frequency time duration latency
    interval delay lag tau amplitude peak height snr noise correlation covariance slope integral auc
    forecast prediction distribution histogram spectrum entropy power density count
""".split())
"""Words naming a quantity a result either has or has not: only these are checked. Other words
("resting", "pairwise", "local") describe the object, and the coverage decision has judged them."""
_SAME = {
    "average": "mean", "avg": "mean",
    "maximum": "max", "largest": "max", "biggest": "max", "highest": "max", "peak": "max",
    "minimum": "min", "smallest": "min", "lowest": "min",
    "total": "sum", "deviation": "std", "sd": "std", "stdev": "std", "spread": "std",
    "percentile": "percent", "frequencies": "frequency", "correlate": "correlation",
    "number": "count", "n": "count", "num": "count", "counts": "count",  # n_cells, num_events
    "size": "area", "npix": "area", "predict": "forecast", "extrapolate": "forecast",
}
"""Canonical forms, so a result named n_transients answers "the number of transients"."""
_PHRASES = ((re.compile(r"(?i)(?:decay )?time constants?"), " tau "), (re.compile(r"(?i)signal[- ]to[- ]noise"), " snr "),
            (re.compile(r"(?i)(?:Δ|delta\s*)f\s*/\s*f0?|\bdf\s*/\s*f0?"), " dff "),
            (re.compile(r"(?i)area under (?:the |each )?curve"), " auc "),
            # "the 10-to-90 percent rise time", "a 20th percentile baseline": a level of the quantity, not a percentage asked
            (re.compile(r"(?i)\b\d+(?:\.\d+)?(?:\s*(?:-|–|to)\s*\d+(?:\.\d+)?)?\s*(?:st|nd|rd|th)?\s*-?\s*(?:%|percent(?:ile)?|per cent)"), " "))


def asked_phrase(clause: str) -> str:
    """The noun phrase a question or an imperative asks for ("" when it names none)."""
    lead = _LEAD.match(clause)
    if not lead:
        first = re.match(r"\s*(?:please\s+)?([A-Za-z]+)", clause)
        if first and _canonical(first.group(1).lower()) in QUANTITIES:
            stop = _STOP_AT.search(clause, first.end())  # "forecast next month's revenue": the verb is the quantity
            return clause[first.start(1): stop.start() if stop else len(clause)].strip()
        return ""
    rest = clause[lead.end():]
    if re.match(r"(?i)(?:which|what|whether|if|how|when|where|why|who)\b", rest):
        return ""  # "tell me which curves are outliers" names the members it wants, not a quantity
    stop = _STOP_AT.search(rest)
    phrase = rest[: stop.start() if stop else len(rest)].strip()
    # "the typical size of an event, as the mean dF/F amplitude": the clause says which quantity it means
    said = _APPOSITION.search(rest, stop.start() if stop else len(rest))
    if said and quantity_words(said.group(1)):
        return said.group(1).strip()
    return phrase


_ALSO = re.compile(r"\b(?:as well as|and also|along with|together with)\s+(?:the\s+|its\s+|their\s+)?", re.I)


def asked_phrases(clause: str) -> list[str]:
    """Every noun phrase a clause asks for: the first, and each one added with "as well as" ("the largest
    displacement as well as the number of cells"), so a step that gives only the first does not answer it."""
    out = [asked_phrase(clause)]
    for m in _ALSO.finditer(clause):
        stop = _STOP_AT.search(clause, m.end())
        phrase = clause[m.end(): stop.start() if stop else len(clause)].strip()
        if quantity_words(phrase):
            out.append(phrase)
    return [p for p in out if p]


_APPOSITION = re.compile(r"(?:[,(]|\band\b)\s*(?:i\.?e\.?,?|as(?! well\b)|meaning|namely|that is,?|measured as|defined as)\s+(?:the\s+|its\s+|their\s+)?"
                         r"([^?;.,)]+)", re.I)


_WHICH_MOST = re.compile(
    # "which is the smallest number of units" asks the value: a verb after "which" names no item
    r"^\s*(?:(?:tell|show|give)\s+me\s+)?which\s+(?!(?:is|are|was|were|has|have|had)\b)(?P<item>[a-z]+)\b.*?\b(?<!at )(?:most|least|highest|lowest|"
    r"largest|smallest|biggest|best|worst|strongest|weakest|brightest|dimmest|top|max(?:imum)?|min(?:imum)?)\b", re.I)
_NAMES_A_MEMBER = re.compile(r"(?:^|_)(?:index|idx|id|ids|argmax|argmin|best|top|rank|ranking|which)(?:_|$)", re.I)


def asks_for_member(clause: str) -> str:
    """The kind of item a superlative question picks ("which region has the highest revenue" -> "region")."""
    m = _WHICH_MOST.match(clause)
    return m.group("item").lower() if m else ""


def names_a_member(item: str, names: Iterable[str], texts: Iterable[str] = ()) -> bool:
    """Whether results can say which item: an index, id or rank result (a per-item list such as
    events_per_cell holds the values, not the answer), or a text naming one ("median is curve 13")."""
    said = re.compile(rf"\b{re.escape(_stem(item))}s?\s+#?\d+", re.I)
    return any(_NAMES_A_MEMBER.search(n) for n in names) or any(said.search(t) for t in texts)


def _stem(word: str) -> str:
    if word in QUANTITIES:
        return word
    for suffix, add in (("ies", "y"), ("es", ""), ("s", "")):
        if word.endswith(suffix) and (word[: -len(suffix)] + add in QUANTITIES or word[: -len(suffix)] + add in _SAME):
            return word[: -len(suffix)] + add
    return word[:-1] if word.endswith("s") and len(word) > 3 else word


def _words(text: str) -> list[tuple[str, str]]:
    """(word as written, its canonical form) for each word of `text`."""
    for pattern, canon in _PHRASES:
        text = pattern.sub(canon, text)
    words = re.findall(r"[a-z][a-z0-9]*", text.lower().replace("_", " "))
    return [(w, _canonical(w)) for w in words]


def _canonical(word: str) -> str:
    stem = _stem(word)
    return _SAME.get(stem, stem)


def quantity_words(text: str) -> set[str]:
    """The canonical quantity words of `text` ("maximum revenue" -> {"max"}; "std_revenue" -> {"std"})."""
    return {c for _, c in _words(text) if c in QUANTITIES}


_EXTREMES = frozenset({"max", "min"})


def unexplained(phrase: str, names: Iterable[str]) -> list[str]:
    """The quantity words of `phrase` (as written) that none of `names` (result names, the step's summary,
    its capability's own description) contains. An extreme of another quantity ("the largest
    cell's diameter") must be named together with it: a typical diameter beside a peak SNR is not it."""
    texts = [{c for _, c in _words(text)} for text in names]
    have = set().union(*texts)
    asked_all = [c for _, c in _words(phrase) if c in QUANTITIES]
    of = [c for c in asked_all if c not in _EXTREMES]
    if of and set(asked_all) & _EXTREMES and len(of) == 1:
        together = [t for t in texts if of[0] in t]
        have = have - _EXTREMES | ({x for t in together for x in t} & _EXTREMES)
    asked, seen = [], False
    for w, c in _words(phrase):
        if c not in QUANTITIES:
            continue
        if w in ("number", "count") and asked and asked[-1] == "total":  # "the total number of events" is a count
            asked.pop()
            c = "count"
        elif w == "number" and seen:  # "the average number of units" asks a mean
            continue
        if c not in have:
            asked.append(w)
        seen = True
    return asked
