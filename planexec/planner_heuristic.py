"""The offline planner: clauses matched to actions by similarity, then chained backwards.

Deterministic and explainable: every step's context says which clause chose it and with
what score, or which later step needed the variable it produces.
"""

from __future__ import annotations

from dataclasses import dataclass

from planexec.actions import Action, actions_from, reachable, split_clauses
from planexec.errors import PlanValidationError
from planexec.models import Plan, PlanStep
from planexec.protocols import PlanningContext
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
        avoid = set(ctx.extra.get("avoid", ()))
        candidates = [a for a in actions_from(ctx.tools, ctx.capabilities) if a.name not in avoid]
        actions = reachable(candidates, roots)
        if not actions:
            raise PlanValidationError("no tool can serve this request; register tools or pass inputs")
        chosen = self._match_clauses(ctx.request, actions)
        ordered = self._chain(chosen, actions, roots, ctx.request)
        ordered += self._figures(ordered, actions, roots)
        return self._to_plan(ordered, ctx)

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

    def _match_clauses(self, request: str, actions: list[Action]) -> list[_Choice]:
        """One choice per distinct matched action; a clause matching nothing joins its neighbour's goal."""
        chosen: list[_Choice] = []
        leftover: list[str] = []
        for clause in split_clauses(request):
            action, score = self._best(clause, actions)
            matched = score >= self.scorer.threshold
            same = next((i for i, c in enumerate(chosen) if c.action.name == action.name), None) if matched else None
            if matched and same is None:
                chosen.append(_Choice(action, clause, score, f'matches "{clause}" (score {score:.2f})'))
                continue
            target = same if same is not None else len(chosen) - 1
            if target < 0:
                leftover.append(clause)
                continue
            prev = chosen[target]
            chosen[target] = _Choice(prev.action, f"{prev.clause}; {clause}", max(prev.score, score if matched else 0.0), prev.reason)
        if not chosen:
            action, score = self._best(request, actions)
            return [_Choice(action, request, score, f"closest action to the request (score {score:.2f})")]
        if leftover:
            first = chosen[0]
            chosen[0] = _Choice(first.action, "; ".join([*leftover, first.clause]), first.score, first.reason)
        return chosen

    def _chain(self, chosen: list[_Choice], actions: list[Action], roots: set[str], request: str) -> list[_Choice]:
        """Insert producers of every missing input before the step that needs it."""
        ordered: list[_Choice] = []
        made: set[str] = set(roots)

        def ensure(choice: _Choice, depth: int = 0) -> None:
            if depth > 20 or any(c.action.name == choice.action.name for c in ordered):
                return
            for var in choice.action.inputs:
                if var in made:
                    continue
                producers = [a for a in actions if var in a.outputs and a.name != choice.action.name]
                if not producers:
                    continue
                producer, score = self._best(request, producers) if len(producers) > 1 else (producers[0], 0.0)
                defaults = [p for p in producers if p.default]
                if defaults and len(producers) > 1 and score < self.scorer.threshold:
                    producer = defaults[0]
                ensure(_Choice(producer, "", score, f"produces {var} for {choice.action.name}"), depth + 1)
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
            deps = sorted({producer_of[v] for v in a.inputs if v in producer_of})
            if not a.inputs and steps and not a.outputs:
                deps = [steps[-1].step_num]
            goal = choice.clause or a.title or a.description
            steps.append(
                PlanStep(
                    step_num=num,
                    goal=goal[:1].upper() + goal[1:],
                    primary_tools=(a.tool,),
                    fallback_tools=tuple(f for f in fallbacks if f != a.tool),
                    success_criteria=_criteria(a),
                    context=f"{a.name}: {choice.reason}",
                    depends_on=tuple(deps),
                    inputs=a.inputs,
                    outputs=a.outputs,
                    args=dict(a.args),
                )
            )
            for v in a.outputs:
                producer_of[v] = num
        return Plan(steps=tuple(steps), rationale="clauses matched to actions, inputs chained backwards", planner=self.name)


def _criteria(a: Action) -> str:
    """Checkable criteria: the declared outputs (else empty: the verifier checks success and non-emptiness)."""
    return "produces " + ", ".join(a.outputs) if a.outputs else ""


def _roots(ctx: PlanningContext) -> set[str]:
    roots: set[str] = set()
    if ctx.images is not None:
        roots.add("images")
    if ctx.files:
        roots.add("files")
    for r in ctx.completed:
        if r.ok:
            roots.update(r.step.outputs)
    return roots
