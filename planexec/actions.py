"""Actions: what a plan step can do (a tool, or a stored capability that a tool runs).

Both planners see the same action list. Actions declare the run variables they consume and
produce, so a plan can be chained backwards from what a request asks for.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from planexec.action_cards import Card, load_cards
from planexec.tools.registry import ToolRegistry

CAPABILITY_TOOL = "run_capability"


@dataclass(frozen=True)
class Action:
    """One thing a step can do, with the variables it needs and makes."""

    name: str
    tool: str
    type: str
    description: str
    inputs: tuple[str, ...] = ()
    outputs: tuple[str, ...] = ()
    args: dict[str, Any] = field(default_factory=dict, hash=False)
    examples: tuple[str, ...] = ()
    uses: tuple[str, ...] = ()
    """Variables it reads when an earlier step made them, never required: a plot draws the statistics a step computed."""
    default: bool = False
    title: str = ""
    """A short human name: the title of every step that runs this action."""
    tags: tuple[str, ...] = ()
    """Keywords of a capability; the coverage decision reads their method and statistic names."""
    numeric_args: tuple[str, ...] = ()
    """A tool's integer/number parameters: a number in the request may set one."""
    reports: tuple[str, ...] = ()
    """Result keys a tool states beside its run variables (n_curves, n_outliers): what it can answer."""
    term_args: dict[str, dict[str, Any]] = field(default_factory=dict, hash=False)
    """Specifics a tool does through an argument ("band depth" -> method="bd"): the plan sets them when asked."""
    card: Card | None = None
    """What it serves and its near misses (`planexec.action_cards`); None: the shipped card of its name."""
    parameters: tuple[str, ...] = ()
    """What a request may set: a tool's arguments, the analysis parameters a capability's code reads."""
    check: Callable[[Mapping[str, Any]], str | None] | None = field(default=None, hash=False, compare=False)
    """A tool's own argument check (None: it has none): what keeps it from running with the values a clause gives."""
    schema: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)
    """A tool's argument properties (JSON schema): their kinds and defaults."""
    fixed: frozenset[tuple[str, float]] = frozenset()
    """(word, value) of the settings it works with unasked (a capability's `window_s = 10.0`, a tool's defaults):
    a clause that states one ("a 10 s window" to a 10 s running baseline) restates what it does."""
    most: int | None = None
    """The most items its code takes (a capability's `max_rows = 30`: it draws the first 30 traces); None: no limit."""

    def args_for(self, clause: str, request: str = "") -> dict[str, Any]:
        """The action's arguments with those the clause's specifics choose (planexec.knowledge.reuse terms), else
        those the whole `request` chooses ("ranked by band depth. Which curve is the median?")."""
        if not self.term_args:
            return dict(self.args)
        from planexec.clause_mood import sentences_of
        from planexec.coverage_terms import split_negated
        from planexec.knowledge.reuse import extract_terms

        def chosen_in(text: str) -> list[dict[str, Any]]:  # "extremal depth instead of band depth" chooses no band depth
            named = {v for values in extract_terms(split_negated(text)[0]).groups.values() for v in values}
            return [self.term_args[v] for v in sorted(named) if v in self.term_args]

        # a later sentence or clause overrides an earlier one (the story names the method another used, the ask the one
        # wanted: "My student ranked them by modified band depth... Using the original band depth")
        def in_order(text: str) -> list[dict[str, Any]]:
            return [d for s in sentences_of(text) for part in s.split(";") for d in chosen_in(part)]

        chosen = in_order(clause) or in_order(request)
        return {k: v for d in (self.args, *chosen) for k, v in d.items()}

    @property
    def texts(self) -> tuple[str, ...]:
        """The phrasings a request clause is matched against."""
        return (self.description, *self.examples)


def makes_up_data(tools: ToolRegistry, name: str) -> bool:
    """A data tool that neither reads a file nor takes a variable: it generates synthetic input,
    so it never answers a request about the user's own data."""
    tool = tools.get(name) if name in tools else None
    props = set((getattr(tool, "input_schema", None) or {}).get("properties") or {})
    return (tool is not None and getattr(tool, "type", "") == "data" and not props & {"path", "file", "files"}
            and not getattr(tool, "consumes", ()))


def actions_from(tools: ToolRegistry, capabilities: Iterable[Any] = (),
                 cards: dict[str, Card] | None = None) -> list[Action]:
    """Every tool as an action, plus one action per capability when `run_capability` exists. `cards`
    (default: the shipped ones) say what each serves and does not."""
    cards = load_cards() if cards is None else cards
    out = [
        Action(
            name=t.name,
            tool=t.name,
            type=t.type,
            description=t.description,
            inputs=tuple(getattr(t, "consumes", ())),
            outputs=tuple(getattr(t, "produces", ())),
            uses=tuple(getattr(t, "uses", ())),
            title=t.name.replace("_", " ").capitalize(),
            numeric_args=_numeric_args(t),
            reports=tuple(getattr(t, "reports", ())),
            term_args=dict(getattr(t, "term_args", {})),
            card=cards.get(t.name),
            parameters=tuple(_properties(t)),
            check=getattr(t, "check", None),
            schema=_properties(t),
            fixed=frozenset((w, float(v["default"])) for k, v in _properties(t).items()
                            if isinstance(v, dict) and isinstance(v.get("default"), int | float) for w in k.split("_")),
        )
        for t in tools
        if t.name != CAPABILITY_TOOL and t.type != "code"
    ]
    if CAPABILITY_TOOL in tools:
        for cap in capabilities:
            out.append(
                Action(
                    name=cap.id,
                    tool=CAPABILITY_TOOL,
                    type="capability",
                    description=cap.description,
                    inputs=tuple(cap.inputs),
                    outputs=tuple(cap.outputs),
                    args={"capability_id": cap.id},
                    examples=tuple(getattr(cap, "examples", ()) or ()),
                    default=bool((getattr(cap, "metadata", None) or {}).get("default")),
                    title=str(getattr(cap, "name", "") or cap.id),
                    tags=tuple(getattr(cap, "tags", ()) or ()),
                    card=cards.get(cap.id),
                    parameters=tuple(dict.fromkeys(_READS_PARAM.findall(getattr(cap, "code", "") or ""))),
                    fixed=_settings(getattr(cap, "code", "") or ""),
                    most=_most(getattr(cap, "code", "") or ""),
                )
            )
    return out


_SETTING = re.compile(r"^\s*([A-Za-z_]\w*)\s*=\s*([\d.\s,()\[\]-]+?)\s*(?:#.*)?$", re.MULTILINE)


def _settings(code: str) -> frozenset[tuple[str, float]]:
    """(word of the name, value) of each constant a capability's code sets: `window_s = 10.0` -> (window, 10.0)."""
    return frozenset((w, float(v)) for name, values in _SETTING.findall(code)
                     for v in re.findall(r"\d+(?:\.\d+)?", values) for w in name.lower().split("_") if w)


_MOST = re.compile(r"^max_\w+\s*=\s*(\d+)\s*(?:#.*)?$", re.MULTILINE)


def _most(code: str) -> int | None:
    """The smallest `max_<items> = N` a capability's code sets at its top level, or None."""
    found = [int(v) for v in _MOST.findall(code)]
    return min(found) if found else None


_READS_PARAM = re.compile(r"\bparams(?:\.get\(|\[)[\"'](\w+)[\"']")


def _properties(tool: Any) -> dict[str, Any]:
    """A tool's argument properties from its JSON schema ({} without one)."""
    return dict((getattr(tool, "input_schema", None) or {}).get("properties") or {})


def _numeric_args(tool: Any) -> tuple[str, ...]:
    props = _properties(tool)
    return tuple(k for k, v in props.items() if isinstance(v, dict) and v.get("type") in ("integer", "number"))


def producers(actions: Sequence[Action]) -> dict[str, tuple[Action, ...]]:
    """For each action, the actions that make one of its inputs (segmentation for a cell counter)."""
    return {a.name: tuple(b for b in actions if b is not a and set(b.outputs) & set(a.inputs)) for a in actions}


def reachable(actions: Sequence[Action], roots: set[str]) -> list[Action]:
    """Actions whose inputs can all be produced, starting from the root variables."""
    have = set(roots)
    usable: list[Action] = []
    changed = True
    pending = list(actions)
    while changed:
        changed = False
        for a in list(pending):
            if set(a.inputs) <= have:
                usable.append(a)
                pending.remove(a)
                have |= set(a.outputs)
                changed = True
    order = {a.name: i for i, a in enumerate(actions)}
    return sorted(usable, key=lambda a: order[a.name])


_CLAUSE_SPLIT = re.compile(
    r"\s*(;|->|→|=>|\bthen\b|\band then\b|(?<!\bdr)(?<!\bmr)(?<!\bmrs)(?<!\bms)(?<!\bprof)(?<!\bvs)(?<!\bal)(?<!\bfig)(?<!\be\.g)(?<!\bi\.e)\.\s+|\?\s+|\s[-–—]\s|,?\s+as well as\s+(?=(?:the|its|their|a|an|how)\b)|"
    r",\s*and\s+|,\s+|\s+and\s+(?=[a-z]+\b))\s*",
    re.IGNORECASE,
)
_HARD = re.compile(r"^(?:;|->|→|=>|then|and then|[.?])$", re.IGNORECASE)
_VERBS = re.compile(
    r"^(?:please\s+)?(?:also\s+)?(?:analy[sz]e|load|read|open|compute|calculate|count|detect|"
    r"measure|plot|draw|show|give|tell|write|generate|create|make|find|estimate|segment|extract|"
    r"summari[sz]e|report|describe|identify|correlate|list|save|produce|run|get|how|what|subtract|correct|"
    r"register|align|remove|fit|filter|smooth|denoise|normali[sz]e|convert|classify|deconvolve|infer|"
    r"curate|separate|compare|flag|pick|mark|simulate|highlight|rank|sort|order)\b",
    re.IGNORECASE,
)


_LEAD_VERB = re.compile(r"^(?:please\s+)?(?:tell|give|show|report|list|compute|calculate|measure|get|estimate)(?:\s+(?:me|us))?\s+",
                        re.IGNORECASE)
"""The verb a clause asks with, which an "as well as" part after it shares ("tell me X as well as Y")."""


_LEAD_IN = re.compile(r"[a-z]+ly|so|ok|okay|well|now|next|also|anyway|btw|first|second|third|lastly|finally|quick q(?:uestion)?",
                      re.IGNORECASE)
"""A word that only leads into the clause after its comma ("Typically, ...", "Quick question, ...")."""


def split_clauses(request: str) -> list[str]:
    """Split a request into clauses: always at ';', 'then' and sentence ends; at 'and' or a comma only before a verb."""
    pieces = _CLAUSE_SPLIT.split(request.strip())
    clauses: list[str] = []
    hard, also = True, False
    for i, piece in enumerate(pieces):
        if i % 2:  # a separator
            hard = bool(_HARD.match(piece.strip()))
            also = piece.strip(" ,").lower() == "as well as"
            continue
        part = piece.strip(" ,.;")
        if not part:
            continue
        if clauses and not hard and _LEAD_IN.fullmatch(clauses[-1]):  # "Typically, how many frames ...": one ask
            clauses[-1] = f"{clauses[-1]}, {part}"
            continue
        verb = _LEAD_VERB.match(clauses[-1]) if clauses and also else None
        if verb and not _VERBS.match(part):  # "tell me the displacement as well as the number of cells"
            clauses.append(f"{verb.group(0)}{part}")
        elif clauses and not hard and not _VERBS.match(part):
            clauses[-1] = f"{clauses[-1]} and {part}"
        else:
            clauses.append(part)
    return clauses or [request.strip()]
