"""What an action says and does, for the coverage decision: its phrasings (own, shipped and its card's),
the specifics it names, the tasks upstream of it, and the near misses its card says it does not serve."""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from planexec.action_cards import Card, NotServed, load_cards
from planexec.actions import Action, producers
from planexec.coverage_terms import Named, without_purpose
from planexec.datafiles import shipped
from planexec.number_words import digits
from planexec.similarity import Scorer, tokens

if TYPE_CHECKING:
    from planexec.coverage_result import Candidate

# A near miss (the card's "not" list) refuses an action when the clause is closer to it than to anything the
# action serves and says a word that sets the near miss apart ("each cortical layer"), or is closer by
# NEAR_MISS_ALONE whatever it says. Keyword overlap is too coarse to tell them apart, so it has none.
NEAR_MISS_MARGINS: dict[str, float] = {"embedding": 0.0}
NEAR_MISS_ALONE = 0.15
# Taken off the similarity per content word of the clause that nothing the action serves says ("podcast",
# "Mahalanobis", "genotypes"): the cards make an action's own words a wide enough net for this to be fair.
UNSAID_PENALTIES: dict[str, float] = {"embedding": 0.06}


@lru_cache(maxsize=1)
def tool_phrasings() -> dict[str, tuple[str, ...]]:
    """Extra phrasings of the built-in tools (shipped data), matched like capability examples."""
    data = json.loads(shipped("calibration", "tool_phrasings.json").read_text(encoding="utf-8"))
    return {k: tuple(v) for k, v in data["tools"].items()}


def phrasings(action: Action, cards: bool = True) -> tuple[str, ...]:
    """The texts a clause is scored against: the action's own, shipped phrasings of a tool, and (with `cards`)
    its card's requests it serves (`planexec.action_cards`). A card's wording widens what the clause may say;
    its numbers and incidental words are not the action's specifics, so `named` reads the others only."""
    extra = tool_phrasings().get(action.name, ()) if action.type != "capability" else ()
    card = card_of(action) if cards else None
    return (*action.texts, *extra, *(card.serves if card else ()))


def card_of(action: Action) -> Card | None:
    """The action's own card, or the shipped card of its name for an action built without one."""
    return action.card if action.card is not None else load_cards().get(action.name)


def near_misses(action: Action) -> tuple[NotServed, ...]:
    """The close requests the action's card says it does not serve, each with why."""
    card = card_of(action)
    return card.not_served if card else ()


@lru_cache(maxsize=2048)
def distinguishing(action: Action, miss: NotServed) -> frozenset[str]:
    """The words of a near miss that nothing the action serves says ("layer" in "count cells per cortical layer")."""
    return frozenset(tokens(miss.text)) - {w for t in phrasings(action) for w in tokens(t)}


_TIME_SERIES = frozenset({"dff", "spks", "roi_traces", "F", "Fneu", "images_registered", "images_denoised"})
"""Outputs that hold a value per frame: an action making one works per frame as well as per cell."""

_COUNT_OUTPUT = re.compile(r"^n_|count|number|_per_")


def outputs_count(action: Action) -> bool:
    """Whether an action's declared outputs or reported results hold a count (n_cells, events_per_cell,
    a tool's n_outliers); True when it declares none."""
    return not action.outputs or any(_COUNT_OUTPUT.search(o) for o in (*action.outputs, *action.reports))


@lru_cache(maxsize=512)
def named(action: Action) -> Named:
    """What an action names and does: for a capability its name, examples, tags and variables, not incidental
    words of its description."""
    text = " ".join([action.name.replace("_", " "), action.title, *phrasings(action, cards=False), *action.tags])
    if action.type == "capability":
        about = " ".join([action.name.replace("_", " "), action.title, *action.examples, *action.tags])
        have = Named.of(text, (*action.inputs, *action.outputs), about)
    else:
        have = Named.of(text)
    if action.term_args:  # what an argument chooses ("band depth" -> method="bd") is done too
        from planexec.knowledge.reuse import extract_terms

        offered = extract_terms(" ".join(v.replace("_", " ") for v in action.term_args)).groups
        groups = {g: have.terms.groups.get(g, frozenset()) | offered.get(g, frozenset())
                  for g in {*have.terms.groups, *offered}}
        have = dataclasses.replace(have, terms=dataclasses.replace(have.terms, groups=groups))
    return have


def per_frame_too(have: Named, action: Action) -> Named:
    """An action making a value per frame (dF/F, spikes, a registered movie) as working per frame: "dF/F for every
    frame" is what it holds, while "dF/F averaged across all cells" is not."""
    if not set(action.outputs) & _TIME_SERIES:
        return have
    groups = {**have.terms.groups, "axis": have.terms.groups.get("axis", frozenset()) | {"per_time"}}
    return dataclasses.replace(have, terms=dataclasses.replace(have.terms, groups=groups))


def counted(asked: Named, action: Action, have: Named) -> Named:
    """A count asked of an action whose results hold one (n_outliers beside its median) is what it answers,
    not a statistic against its others; the count then neither conflicts nor agrees."""
    stats = asked.terms.groups.get("statistic", frozenset())
    if "count" not in stats or not have.terms.groups.get("statistic") or not (action.outputs and outputs_count(action)):
        return asked
    groups = {g: v for g, v in asked.terms.groups.items() if g != "statistic"}
    if stats - {"count"}:
        groups["statistic"] = stats - {"count"}
    return dataclasses.replace(asked, terms=dataclasses.replace(asked.terms, groups=groups))


def figure_only(action: Action) -> bool:
    """Whether every output of the action is a figure."""
    return bool(action.outputs) and all(o.startswith("fig") for o in action.outputs)


def images_only(action: Action) -> bool:
    """Whether every output of the action is an image of the movie (a projection, a correlation image)."""
    return bool(action.outputs) and all(o.endswith("image") for o in action.outputs)


def makes_figure(action: Action) -> bool:
    """Whether the action draws a figure (a visualisation tool, or a figure among its outputs)."""
    return action.type == "vis" or any(o.startswith("fig") for o in action.outputs)


def in_a_table(asked: Named, have: Named) -> Named:
    """Against an action on tables, an external variable (lick latency, running speed, genotype) is one more column:
    a table's columns may hold anything."""
    measures = asked.terms.groups.get("measure", frozenset())
    if "table" not in have.objects or "external" not in measures:
        return asked
    groups = {g: v for g, v in asked.terms.groups.items() if g != "measure"}
    if measures - {"external"}:
        groups["measure"] = measures - {"external"}
    return dataclasses.replace(asked, terms=dataclasses.replace(asked.terms, groups=groups))


def upstream_tasks(actions: Sequence[Action]) -> dict[str, frozenset[str]]:
    """The tasks that make each action's inputs: "how many ROIs did segmentation find" names segmentation as
    where the cells came from, which the plan runs before the counter, not as a task the counter must do."""
    return {name: frozenset(t for b in made_by for t in named(b).terms.groups.get("task", ()))
            for name, made_by in producers(actions).items()}


def with_upstream(have: Named, tasks: frozenset[str], asked: Named, counts: bool) -> Named:
    """The action as also doing its upstream tasks, when the clause asks something it does itself (a count of
    what segmentation found); "segment the cells with cellpose" asks the segmentation, not a measure of its cells."""
    does = {**have.terms.groups}
    if counts:
        does["statistic"] = does.get("statistic", frozenset()) | {"count"}
    own = [g for g, v in asked.terms.groups.items() if g != "task" and v and v <= does.get(g, frozenset())]
    if not own or not tasks - have.terms.groups.get("task", frozenset()):
        return have
    groups = {**have.terms.groups, "task": have.terms.groups.get("task", frozenset()) | tasks}
    return dataclasses.replace(have, terms=dataclasses.replace(have.terms, groups=groups))


def closest_misses(scorer: Scorer, text: str, actions: Sequence[Action], best: dict[str, float],
                   margin: float) -> dict[str, tuple[float, NotServed]]:
    """Per action, the near miss of its card that refuses it for `text` (`best`: its closest served phrasing):
    closer than anything served and saying a word that sets the near miss apart ("each cortical layer",
    "running speed"), or closer by NEAR_MISS_ALONE whatever it says."""
    said = set(tokens(text))
    misses = [(a, n) for a in actions for n in near_misses(a)]
    out: dict[str, tuple[float, NotServed]] = {}
    for (a, n), s in zip(misses, scorer.scores(text, [n.text for _, n in misses]) if misses else [], strict=True):
        closer = float(s) - best.get(a.name, 0.0)
        # a labelled hard negative differs from what is served by a word or two ("minimum" for "maximum"), which
        # the embedding barely sees: being closer alone does not make a clause that near miss
        refuses = (closer > margin and bool(said & distinguishing(a, n))
                   or not n.labelled and closer > margin + NEAR_MISS_ALONE)
        if refuses and float(s) > out.get(a.name, (-1.0, n))[0]:
            out[a.name] = (float(s), n)
    return out


_PARAMETER_SYNONYMS = {"cutoff": "threshold", "cut": "threshold", "radii": "radius", "annuli": "annulus", "σ": "sigma",
                       "minimum": "min", "maximum": "max", "region": "area", "fence": "factor"}


_COUNTED_ITEMS = re.compile(r"\b(\d+)\s+(?:[a-z]+\s+)?(?:cells?|neurons?|rois?|traces?|somata|units)\b", re.IGNORECASE)


def argument_problem(clause: str, action: Action) -> str | None:
    """What keeps an action from doing what the clause's numbers ask: more items than its code takes ("the traces of
    all 150 cells" to a figure of 30), or a tool's own check ("30 curves of which 15 are outliers": at most a third
    may be planted); None when nothing does."""
    counts = [int(n) for n in _COUNTED_ITEMS.findall(digits(clause))]  # "all one hundred and twenty cells"
    if action.most is not None and counts and max(counts) > action.most:  # "plot the traces of all 150 cells"
        return f"it takes at most {action.most} of them; the clause has {max(counts)}"
    if action.check is None:
        return None
    from planexec.inputs import argument_words, kinds_of, number_near

    args = {k: v["default"] for k, v in action.schema.items() if isinstance(v, dict) and "default" in v}
    for name, spec in action.schema.items():
        if isinstance(spec, dict) and (kinds := kinds_of(spec)) & {"integer", "number"}:
            value = number_near(argument_words(name), clause)
            if value is not None and "integer" in kinds and not value.is_integer():  # "a quarter of 22 ramps"
                return f"{name} would be {value:g}, not a whole number"
            if value is not None:
                args[name] = int(value) if "integer" in kinds else value
    return action.check(args)


def untaken_parameters(given: Sequence[tuple[str, float]], action: Action) -> list[str]:
    """A conflict for each method parameter the clause sets ("sigma = 4 px") that the action neither takes nor
    already works with (a 10 s window to a 10 s running baseline)."""
    takes = {w.rstrip("s") for p in action.parameters for w in p.lower().split("_")}
    out = []
    for noun, value in given:
        words = {_PARAMETER_SYNONYMS.get(w, _PARAMETER_SYNONYMS.get(w.rstrip("s"), w)).rstrip("s") for w in noun.split()}
        if not words & takes and not any(w.rstrip("s") in words and v == value for w, v in action.fixed):
            out.append(f"parameter: sets {noun} to {value:g}, which it does not take")
    return out


DEFAULT_MARGIN = 0.2
"""How much lower a default action may score and still be preferred to another that makes the same results."""


def prefer_default(clause: str, cands: list[Candidate], actions: Sequence[Action]) -> list[Candidate]:
    """`cands` with a default action first when the best accepted one is not a default, the default also passes,
    scores within DEFAULT_MARGIN, makes the same results (events, cell labels, traces) and the clause names no
    specific only the other says ("peaks above 3 SD" keeps peak detection; "find the calcium events" goes to
    the default deconvolution pipeline the other steps are built for)."""
    if not cands or not cands[0].accepted:
        return cands
    by_name = {a.name: a for a in actions}
    best = by_name.get(cands[0].name)
    if best is None or best.default:
        return cands
    asked = Named.of(without_purpose(clause)).terms.groups
    own = named(best).terms.groups
    for c in cands[1:]:
        alt = by_name.get(c.name)
        if (alt is None or not alt.default or not c.accepted or c.score < cands[0].score - DEFAULT_MARGIN
                or not set(alt.outputs) & set(best.outputs)):
            continue
        theirs = named(alt).terms.groups
        if any(v & own.get(g, frozenset()) - theirs.get(g, frozenset()) for g, v in asked.items()):
            return cands  # the clause asks something only the best one names
        return [c, *(x for x in cands if x is not c)]
    return cands


_OBJECT_WORDS = frozenset({"n", "per", "mean", "unit", "cell", "roi", "image", "frame", "trace", "event", "events", "curve",
                           "curves"})
"""Words of output names that say what a result is about, not what it is."""


def prefer_product(clause: str, cands: list[Candidate], actions: Sequence[Action]) -> list[Candidate]:
    """`cands` with an accepted action that consumes the best one's outputs first, when the clause names what that
    action makes and the best one does not ("an uncertainty report ... ranking the curves by band depth" is the report,
    which runs the statistics before it)."""
    if not cands or not cands[0].accepted:
        return cands
    by_name = {a.name: a for a in actions}
    best = by_name.get(cands[0].name)
    if best is None:
        return cands
    said = set(tokens(clause))
    makes = {w for o in best.outputs for w in o.split("_")} | _OBJECT_WORDS
    for c in cands[1:]:
        then = by_name.get(c.name)
        if (c.accepted and then is not None and set(then.inputs) & set(best.outputs)
                and said & ({w for o in then.outputs for w in o.split("_")} - makes)):
            return [c, *(x for x in cands if x is not c)]
    return cands


__all__ = ["NEAR_MISS_ALONE", "NEAR_MISS_MARGINS", "UNSAID_PENALTIES", "argument_problem", "card_of", "closest_misses", "counted", "distinguishing", "figure_only",
           "images_only", "in_a_table", "makes_figure", "named",
           "near_misses", "outputs_count", "per_frame_too", "phrasings", "prefer_default", "prefer_product", "untaken_parameters", "tool_phrasings", "upstream_tasks", "with_upstream"]
