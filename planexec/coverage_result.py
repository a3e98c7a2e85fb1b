"""What the coverage decision says: per action considered, per clause and per request, with the message a
refused request ends with (`planexec.coverage` decides)."""

from __future__ import annotations

from dataclasses import dataclass

INPUT = "input"
"""`served_by` of a clause that only names the given input (load/open/analyse the images)."""
NOTHING = "nothing"
"""`served_by` of a clause that asks for nothing to compute ("please be quick")."""


@dataclass(frozen=True)
class Candidate:
    """One action considered for a clause: its scores and the decision with its reason."""

    name: str
    tool: str
    score: float
    semantic: float
    accepted: bool
    reason: str
    vetoes: tuple[str, ...] = ()
    """Every veto that applies (`planexec.coverage_model.VETOES`), whatever the score."""
    unexplained: float = 0.0
    """The rarity-weighted share of the clause's content words this action's texts never say."""
    foreign: float = 0.0
    """The share of the clause's content words no action says."""


@dataclass(frozen=True)
class ClauseCoverage:
    """The decision for one clause: what serves it (None if nothing), the best candidates and why."""

    clause: str
    served_by: str | None
    score: float
    candidates: tuple[Candidate, ...]
    reason: str
    out_of_scope: bool = False

    @property
    def covered(self) -> bool:
        return self.served_by is not None

    def explain(self, limit: int = 3) -> str:
        """One paragraph: the clause, and each close candidate with why it was rejected."""
        if self.out_of_scope:
            return f'"{self.clause}": out of scope ({self.reason})'
        rejected = [c for c in self.candidates if not c.accepted][:limit]
        near = "; ".join(f"{c.name} ({c.reason})" for c in rejected) or "no candidate"
        return f'"{self.clause}": not covered; closest: {near}'


@dataclass(frozen=True)
class Coverage:
    """Per-clause decisions for a request."""

    request: str
    clauses: tuple[ClauseCoverage, ...]
    model_refused: str = ""
    """Why the configured model's plan for the uncovered clauses was refused ("": not asked)."""

    @property
    def covered(self) -> tuple[ClauseCoverage, ...]:
        return tuple(c for c in self.clauses if c.covered)

    @property
    def uncovered(self) -> tuple[ClauseCoverage, ...]:
        """In-scope clauses nothing serves (with an LLM these go to the model)."""
        return tuple(c for c in self.clauses if not c.covered and not c.out_of_scope)

    @property
    def out_of_scope(self) -> tuple[ClauseCoverage, ...]:
        return tuple(c for c in self.clauses if c.out_of_scope)

    @property
    def complete(self) -> bool:
        """Every clause is served (by an action or by the input)."""
        return all(c.covered for c in self.clauses)

    def message(self) -> str:
        """What is not served and what to do about it, one clause per line."""
        lines = [c.explain() for c in (*self.out_of_scope, *self.uncovered)]
        if not lines and all(c.served_by in (INPUT, NOTHING) for c in self.clauses):
            return "The request only names its input; nothing was run. Say what to compute (e.g. count the cells)."
        if not lines:
            return "every clause of the request is covered"
        if self.out_of_scope and not self.uncovered:
            fix = "planexec analyses calcium-imaging movies, curve ensembles and tables; this request is outside that"
        elif self.model_refused:
            fix = (f"The model was asked, and its plan was refused: {self.model_refused}. Add a capability "
                   "that does it (planexec capabilities add), or try a stronger model")
        else:
            fix = ("use an LLM backend (--llm openai|anthropic) to generate code for it, or add a capability "
                   "that does it (planexec capabilities add)")
        return "\n".join([*lines, f"Nothing was run. {fix}."])

    def to_dict(self) -> dict[str, object]:
        return {
            "request": self.request,
            "clauses": [
                {"clause": c.clause, "served_by": c.served_by, "score": round(c.score, 3), "reason": c.reason,
                 "out_of_scope": c.out_of_scope,
                 "candidates": [{"name": k.name, "score": round(k.score, 3), "accepted": k.accepted,
                                 "reason": k.reason} for k in c.candidates]}
                for c in self.clauses
            ],
        }


__all__ = ["INPUT", "NOTHING", "Candidate", "ClauseCoverage", "Coverage"]
