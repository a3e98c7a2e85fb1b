"""Plans: the steps a run will take, their tools, dependencies and checkable criteria.

`Plan.problems()` names every problem of a plan (unknown tools, dangling or cyclic
dependencies, duplicate numbers) so a bad plan fails with one clear message.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from planexec.errors import PlanValidationError
from planexec.serialize import to_jsonable


@dataclass(frozen=True)
class PlanStep:
    """One unit of work: a goal, the tools to try in order, and how to tell it worked."""

    step_num: int
    goal: str
    primary_tools: tuple[str, ...]
    fallback_tools: tuple[str, ...] = ()
    success_criteria: str = ""
    context: str = ""
    depends_on: tuple[int, ...] = ()
    inputs: tuple[str, ...] = ()
    outputs: tuple[str, ...] = ()
    args: dict[str, Any] = field(default_factory=dict, hash=False, compare=True)
    """Arguments fixed by the planner; the input generator fills in the rest."""
    serves: str = ""
    """The clause of the request this step serves ("" for a step added to feed or draw another)."""

    def __post_init__(self) -> None:
        # lists (as JSON plans and most callers write them) and any sequence are stored as tuples
        for name in ("primary_tools", "fallback_tools", "inputs", "outputs"):
            object.__setattr__(self, name, _names_tuple(getattr(self, name), name, self.step_num))
        deps = self.depends_on
        object.__setattr__(self, "depends_on", (deps,) if isinstance(deps, int) else tuple(deps))
        if self.args is None:
            object.__setattr__(self, "args", {})

    @property
    def tools(self) -> tuple[str, ...]:
        """Every tool in the order it is tried."""
        return self.primary_tools + tuple(t for t in self.fallback_tools if t not in self.primary_tools)

    def to_dict(self) -> dict[str, Any]:
        return {
            "step_num": self.step_num,
            "goal": self.goal,
            "primary_tools": list(self.primary_tools),
            "fallback_tools": list(self.fallback_tools),
            "success_criteria": self.success_criteria,
            "context": self.context,
            "depends_on": list(self.depends_on),
            "inputs": list(self.inputs),
            "outputs": list(self.outputs),
            "args": to_jsonable(self.args),
            "serves": self.serves,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> PlanStep:
        """Build a step from a planner's or a file's dict, with a clear error on bad fields."""
        if not isinstance(d, dict):
            raise PlanValidationError(f"a plan step must be an object, got {type(d).__name__}")
        missing = [k for k in ("step_num", "goal", "primary_tools") if k not in d]
        if missing:
            raise PlanValidationError(
                f"plan step {d.get('step_num', '?')} lacks {', '.join(missing)}"
            )

        def _names(key: str) -> tuple[str, ...]:
            v = d.get(key) or ()
            if isinstance(v, str):
                v = [v]
            if not isinstance(v, (list, tuple)):
                raise PlanValidationError(f"plan step {d.get('step_num', '?')}: {key} must be a list of names")
            return tuple(str(x) for x in v)

        def _num(x: Any) -> int:
            if isinstance(x, bool) or (isinstance(x, float) and not x.is_integer()):
                raise ValueError(f"{x!r} is not a whole number")
            return int(x)

        raw_deps = d.get("depends_on") or ()
        if isinstance(raw_deps, (int, str)) and not isinstance(raw_deps, bool):
            raw_deps = [raw_deps]
        if not isinstance(raw_deps, (list, tuple)):
            raise PlanValidationError(f"plan step {d.get('step_num', '?')}: depends_on must be a list of step numbers")
        if not isinstance(d.get("args") or {}, dict):
            raise PlanValidationError(f"plan step {d.get('step_num', '?')}: args must be an object")
        try:
            step_num = _num(d["step_num"])
            depends = tuple(_num(x) for x in raw_deps)
        except (TypeError, ValueError) as exc:
            raise PlanValidationError(f"plan step numbers must be integers: {exc}") from None
        return cls(
            step_num=step_num,
            goal=str(d["goal"]),
            primary_tools=_names("primary_tools"),
            fallback_tools=_names("fallback_tools"),
            success_criteria=str(d.get("success_criteria") or ""),
            context=str(d.get("context") or ""),
            depends_on=depends,
            inputs=_names("inputs"),
            outputs=_names("outputs"),
            args=dict(d.get("args") or {}),
            serves=str(d.get("serves") or ""),
        )


def _names_tuple(value: Any, name: str, step_num: Any) -> tuple[str, ...]:
    """A tuple of names from a tuple, list or any iterable of names (a lone string is one name)."""
    if isinstance(value, str):
        return (value,)
    if isinstance(value, tuple):
        return value
    try:
        return tuple(value)
    except TypeError:
        raise PlanValidationError(f"plan step {step_num}: {name} must be a list of names, got {value!r}") from None


@dataclass(frozen=True)
class Plan:
    """An ordered list of steps forming a DAG; `validate()` names every problem it finds."""

    steps: tuple[PlanStep, ...]
    rationale: str = ""
    planner: str = ""
    unplanned: tuple[str, ...] = ()
    """Parts of the request no step serves, each with why (e.g. the model's plan for them was invalid)."""

    def __post_init__(self) -> None:
        if not isinstance(self.steps, tuple):
            object.__setattr__(self, "steps", tuple(self.steps))

    def step(self, num: int) -> PlanStep:
        for s in self.steps:
            if s.step_num == num:
                return s
        raise KeyError(f"no step {num} in plan (steps: {[s.step_num for s in self.steps]})")

    def problems(self, known_tools: set[str] | None = None) -> list[str]:
        """Every validation problem as one sentence each; empty when the plan is sound."""
        out: list[str] = []
        if not self.steps:
            return ["the plan has no steps"]
        nums = [s.step_num for s in self.steps]
        dupes = sorted({n for n in nums if nums.count(n) > 1})
        if dupes:
            out.append(f"duplicate step numbers: {dupes}")
        numset = set(nums)
        for s in self.steps:
            if not s.goal.strip():
                out.append(f"step {s.step_num} has an empty goal")
            if not s.tools:
                out.append(f"step {s.step_num} names no tool")
            for d in s.depends_on:
                if d not in numset:
                    out.append(f"step {s.step_num} depends on step {d}, which does not exist")
                elif d == s.step_num:
                    out.append(f"step {s.step_num} depends on itself")
            if known_tools is not None:
                unknown = [t for t in s.tools if t not in known_tools]
                if unknown:
                    out.append(
                        f"step {s.step_num} uses unknown tool(s) {unknown}; "
                        f"known tools: {sorted(known_tools)}"
                    )
        cycle = self.find_cycle()
        if cycle:
            out.append("dependency cycle: " + " -> ".join(str(n) for n in cycle))
        return out

    def flow_problems(self, available: Iterable[str] = (), variable_tools: Iterable[str] = ()) -> list[str]:
        """Declared inputs that will not exist when their step runs.

        An input must be one of `available` (the run's inputs) or an output of a step upstream
        (through depends_on); a producer elsewhere in the plan without the dependency would race
        it when steps run in parallel. For steps run by `variable_tools` (code working on named
        variables), an input nothing produces is a problem too.
        """
        have, strict = set(available), set(variable_tools)
        producers: dict[str, list[int]] = {}
        for s in self.steps:
            for out in s.outputs:
                producers.setdefault(out, []).append(s.step_num)
        deps = {s.step_num: set(s.depends_on) for s in self.steps}
        problems = []
        for s in self.steps:
            upstream, todo = set(), list(deps.get(s.step_num, ()))
            while todo:
                n = todo.pop()
                if n not in upstream:
                    upstream.add(n)
                    todo.extend(deps.get(n, ()))
            for var in s.inputs:
                made = producers.get(var, [])
                if var in have or upstream & set(made):
                    continue
                if made:
                    problems.append(f"step {s.step_num} needs {var}, made by step {made[0]}, but does not "
                                    f"depend on it; add {made[0]} to its depends_on")
                elif set(s.tools) & strict:
                    problems.append(f"step {s.step_num} needs {var}, which no step produces and the run was not given")
        return problems

    def validate(self, known_tools: set[str] | None = None, available: Iterable[str] | None = None,
                 variable_tools: Iterable[str] = ()) -> Plan:
        """Return self when sound, else raise `PlanValidationError` listing the problems.

        With `available` (the run's input variables), the variable flow is checked too.
        """
        problems = self.problems(known_tools)
        if not problems and available is not None:
            problems = self.flow_problems(available, variable_tools)
        if problems:
            raise PlanValidationError("invalid plan: " + "; ".join(problems), problems=problems)
        return self

    def find_cycle(self) -> list[int] | None:
        """A dependency cycle as a closed path of step numbers, or None."""
        deps: dict[int, list[int]] = {}
        for s in self.steps:  # duplicate numbers (reported separately) pool their dependencies
            deps.setdefault(s.step_num, []).extend(s.depends_on)
        color: dict[int, int] = {}
        stack: list[int] = []

        def visit(n: int) -> list[int] | None:
            color[n] = 1
            stack.append(n)
            for m in deps.get(n, []):
                if m not in deps:
                    continue
                if color.get(m) == 1:
                    return stack[stack.index(m):] + [m]
                if color.get(m) is None:
                    found = visit(m)
                    if found:
                        return found
            stack.pop()
            color[n] = 2
            return None

        for n in deps:
            if color.get(n) is None:
                found = visit(n)
                if found:
                    return found
        return None

    def to_dict(self) -> dict[str, Any]:
        return {
            "steps": [s.to_dict() for s in self.steps],
            "rationale": self.rationale,
            "planner": self.planner,
            "unplanned": list(self.unplanned),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any] | list[Any]) -> Plan:
        """Accept `{"steps": [...]}` or a bare list of steps (the seed's format)."""
        if isinstance(d, list):
            d = {"steps": d}
        if not isinstance(d, dict) or not isinstance(d.get("steps"), list):
            raise PlanValidationError('a plan must be a list of steps or {"steps": [...]}')
        return cls(
            steps=tuple(PlanStep.from_dict(s) for s in d["steps"]),
            rationale=str(d.get("rationale") or ""),
            planner=str(d.get("planner") or ""),
            unplanned=tuple(str(u) for u in d.get("unplanned") or ()),
        )
