"""The offline planner: each clause served by the action its coverage decision accepts, then chained backwards.

Deterministic and explainable: a step's goal says what its action does, `serves` keeps the
clause it was chosen for, and its context gives the decision. A request with a clause that
nothing covers (or that is out of scope) is refused with `NotCovered` before any step runs.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from planexec.actions import Action, actions_from, makes_up_data, reachable
from planexec.coverage import (
    INPUT,
    NOTHING,
    Coverage,
    asked_columns,
    assess,
    missing_columns,
    named_columns,
    table_columns,
    with_columns,
)
from planexec.coverage_actions import named
from planexec.coverage_terms import Named, denial_conflicts, without_purpose
from planexec.errors import InputError, NotCovered, PlanValidationError
from planexec.knowledge.reuse import extract_terms
from planexec.models import Plan, PlanStep
from planexec.protocols import PlanningContext
from planexec.request_paths import paths_in, without_paths
from planexec.similarity import KeywordScorer, Scorer


@dataclass(frozen=True)
class _Choice:
    action: Action
    clause: str
    score: float
    reason: str


class HeuristicPlanner:
    """Plans without an LLM: clause splitting, similarity over action descriptions, backward chaining."""

    name = "heuristic"

    def __init__(self, scorer: Scorer | None = None, coder_fallback: bool = False) -> None:
        self.scorer = scorer or KeywordScorer()
        self.coder_fallback = coder_fallback

    def plan(self, ctx: PlanningContext) -> Plan:
        roots = _roots(ctx)
        avoid = ctx.avoid
        columns = table_columns([*ctx.files, *re.findall(r"[\w./-]+\.(?:csv|tsv|json)\b", ctx.request)])
        _check_columns(ctx.request, columns)
        candidates = with_columns([a for a in actions_from(ctx.tools, ctx.capabilities) if a.name not in avoid], columns)
        actions = reachable(candidates, roots)
        if not actions:
            raise PlanValidationError("no tool can serve this request; register tools or pass inputs")
        coverage = self.coverage(ctx, actions, candidates, roots)
        chosen = self._served(coverage, actions, columns)
        ordered = self._chain(chosen, actions, roots, ctx.request)
        if not _NO_FIGURES.search(ctx.request):  # "No plot yet", "no figures please": none drawn unasked
            ordered += self._figures(ordered, actions, roots)
        return self._to_plan(ordered, ctx)

    def coverage(self, ctx: PlanningContext, actions: list[Action], candidates: list[Action] | None = None,
                 roots: set[str] | None = None) -> Coverage:
        """The per-clause decision; raises NotCovered (or names the missing input) unless every clause is served."""
        named_file = paths_in(ctx.request)  # relative, absolute, ~ and quoted paths (planexec.request_paths)
        has_input = bool(roots if roots is not None else _roots(ctx)) or bool(named_file)
        user_data = bool(ctx.files) or ctx.images is not None or bool(named_file)
        if user_data and not _ASKS_GENERATED.search(ctx.request):
            # made-up data never serves a request about the user's own ("fit a gaussian process to
            # the curves" is not answered by generating gaussian curves)
            actions = [a for a in actions if not makes_up_data(ctx.tools, a.tool)]
            candidates = [a for a in candidates or () if not makes_up_data(ctx.tools, a.tool)]
        coverage = assess(without_paths(ctx.request), actions, self.scorer, has_input=has_input)
        if coverage.complete:
            return coverage
        unreachable = [a for a in (candidates or ()) if a not in actions]
        if unreachable and coverage.uncovered:
            needs = assess("; ".join(c.clause for c in coverage.uncovered), unreachable, self.scorer)
            served = {c.served_by for c in needs.covered} - {INPUT, NOTHING, None}
            missing = sorted({v for a in unreachable if a.name in served for v in a.inputs} - (roots or set()))
            if served and len(needs.covered) == len(needs.clauses):
                raise PlanValidationError(
                    f"{', '.join(sorted(served))} would serve this request but need(s) {', '.join(missing) or 'inputs'}; "
                    "pass them (--images DIR for a movie, --file PATH for a table or curves)")
        raise NotCovered(coverage)

    def _served(self, coverage: Coverage, actions: list[Action], columns: list[str] = ()) -> list[_Choice]:
        """One choice per distinct serving action; clauses served by the same action share its step."""
        by_name = {a.name: a for a in actions}
        asks_statistic = bool(extract_terms(coverage.request).groups.get("statistic"))
        chosen: list[_Choice] = []
        for c in coverage.covered:
            if c.served_by in (INPUT, NOTHING) or c.served_by not in by_name:
                continue
            named = [col for col in columns if col.lower() in asked_columns(c.clause)]
            anywhere = named_columns(c.clause, columns)
            if not named and asks_statistic and len(anywhere) == 1:  # "the units column? give its standard deviation"
                named = anywhere
            # "std dev of units, then total revenue": a table step per column asked, the tool takes one
            col = named[0] if named and c.served_by == "describe_table" else None
            same = next((i for i, x in enumerate(chosen) if x.action.name == c.served_by
                         and (col is None or x.action.args.get("column") in (None, col))), None)
            action = by_name[c.served_by] if same is None else chosen[same].action
            if named and action.name == "describe_table" and "column" not in action.args:  # the tool checks it
                action = dataclasses.replace(action, args={**action.args, "column": named[0]})
            if same is not None:
                prev = chosen[same]
                chosen[same] = _Choice(action, f"{prev.clause}; {c.clause}", max(prev.score, c.score), prev.reason)
                continue
            chosen.append(_Choice(action, c.clause, c.score, f'serves "{c.clause}": {c.reason}'))
        if not chosen:  # every clause only named the input: describe it with the best default action
            raise NotCovered(coverage)
        return chosen

    def _figures(self, ordered: list[_Choice], actions: list[Action], roots: set[str]) -> list[_Choice]:
        """Figures of what the plan makes (vis tools, capabilities whose outputs are fig_*): results come with pictures."""
        made = set(roots).union(*(c.action.outputs for c in ordered))
        have = {c.action.name for c in ordered} | {c.action.tool for c in ordered if c.action.type == "vis"}
        plots = [
            a for a in actions
            if (a.type == "vis" or (a.type == "capability" and a.outputs and all(o.startswith("fig") for o in a.outputs)))
            and a.inputs and set(a.inputs) <= made and a.name not in have
        ]
        return [_Choice(a, "", 0.0, "figure of the results") for a in plots]

    def _best(self, text: str, actions: list[Action]) -> tuple[Action, float]:
        flat = [(a, t) for a in actions for t in a.texts]
        scores = self.scorer.scores(text, [t for _, t in flat])
        best: dict[str, float] = {}
        for (a, _), s in zip(flat, scores, strict=True):
            best[a.name] = max(best.get(a.name, -1.0), s)
        top = max(actions, key=lambda a: (best[a.name], a.default))
        return top, best[top.name]

    def _producer(self, request: str, producers: list[Action]) -> tuple[Action, str]:
        """Which of several actions makes an input the request needs but does not ask for: one whose specific the
        request names and the default does not ("a percentile baseline", "no neuropil correction" rules out the
        neuropil step), else the default (the field's standard step), else the closest by similarity. Closeness
        alone does not pick it: "the average event amplitude" is no request for plain traces."""
        asked = Named.of(without_purpose(request))
        fitting = [p for p in producers if not denial_conflicts(asked, named(p))] or producers
        defaults = [p for p in fitting if p.default]
        if not defaults:
            return self._best(request, fitting)[0], ""
        standard = named(defaults[0]).terms.groups
        for p in fitting:
            own = named(p).terms.groups
            said = sorted(w for g, v in asked.terms.groups.items() for w in v & own.get(g, frozenset()) - standard.get(g, frozenset()))
            if p is not defaults[0] and said:
                return p, f" (the request names {', '.join(said)})"
        return defaults[0], " (the standard step)" if len(fitting) == len(producers) else " (the request rules out the others)"

    def _chain(self, chosen: list[_Choice], actions: list[Action], roots: set[str], request: str) -> list[_Choice]:
        """Insert producers of every missing input before the step that needs it."""
        ordered: list[_Choice] = []
        made: set[str] = set(roots)

        def ensure(choice: _Choice, depth: int = 0) -> None:
            if depth > 20 or any(c.action.name == choice.action.name and c.action.args == choice.action.args
                                 for c in ordered):  # one table step per asked column
                return
            for var in choice.action.inputs:
                if var in made:
                    continue
                producers = [a for a in actions if var in a.outputs and a.name != choice.action.name]
                readers = [a for a in producers if a.inputs and set(a.inputs) <= roots]
                producers = readers or producers  # the user's data before generated data
                if not producers:
                    continue
                producer, why = self._producer(request, producers) if len(producers) > 1 else (producers[0], "")
                ensure(_Choice(producer, "", 0.0, f"produces {var} for {choice.action.name}{why}"), depth + 1)
            ordered.append(choice)
            made.update(choice.action.outputs)

        for choice in chosen:
            ensure(choice)
        return ordered

    def _to_plan(self, ordered: list[_Choice], ctx: PlanningContext) -> Plan:
        steps: list[PlanStep] = []
        producer_of: dict[str, int] = {}
        fallbacks = ("python_coder",) if self.coder_fallback and "python_coder" in ctx.tools else ()
        for num, choice in enumerate(ordered, start=1):
            a = choice.action
            deps = sorted({producer_of[v] for v in (*a.inputs, *a.uses) if v in producer_of})
            if not a.inputs and steps and not a.outputs:
                deps = [steps[-1].step_num]
            goal = a.title or a.description
            steps.append(
                PlanStep(
                    step_num=num,
                    goal=goal[:1].upper() + goal[1:],
                    serves=choice.clause,
                    primary_tools=(a.tool,),
                    fallback_tools=tuple(f for f in fallbacks if f != a.tool),
                    success_criteria=_criteria(a),
                    context=f"{a.name}: {choice.reason}",
                    depends_on=tuple(deps),
                    inputs=a.inputs,
                    outputs=a.outputs,
                    args=a.args_for(choice.clause or ctx.request, ctx.request),
                )
            )
            for v in a.outputs:
                producer_of[v] = num
        return Plan(steps=tuple(steps), rationale="each clause served by the action its coverage decision accepts, inputs chained backwards", planner=self.name)


_NO_FIGURES = re.compile(r"\b(?:no|without|skip(?: the)?|don['’]?t (?:need|want|make|draw|plot)(?: an?| the| any)?|"
                         r"not asking for (?:an?|the|any))\s+(?:\w+\s+)?(?:plots?|figures?|pictures?|images? of|graphs?|"
                         r"charts?|visuali[sz]ations?)\b|\b(?:plots?|figures?|pictures?) (?:is|are)(?:n['’]t| not) needed\b", re.I)
_ASKS_GENERATED = re.compile(r"\b(?:generat|simulat|synthe|make up|made-up|random|toy|fake)", re.I)


def _criteria(a: Action) -> str:
    """Checkable criteria: the declared outputs (else empty: the verifier checks success and non-emptiness)."""
    return "produces " + ", ".join(a.outputs) if a.outputs else ""


def _check_columns(request: str, columns: list[str]) -> None:
    """A statistic asked of a column the given table does not have is an input error naming the columns."""
    if not columns:
        return
    missing = missing_columns(request, columns)
    if missing:
        raise InputError(f"the table has no column {', '.join(repr(m) for m in missing)}; "
                         f"its columns are: {', '.join(columns)}")


def _roots(ctx: PlanningContext) -> set[str]:
    roots: set[str] = set()
    if ctx.images is not None:
        roots.add("images")
    if ctx.files or paths_in(ctx.request):  # a file named in the request is read like one given with --file
        roots.add("files")
    for r in ctx.completed:
        if r.ok:
            roots.update(r.step.outputs)
    return roots
