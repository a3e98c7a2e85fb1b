"""The replaceable parts of the loop, and the default set for a model or for offline runs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from planexec.config import Config
from planexec.evaluator import default_evaluators
from planexec.inputs import HeuristicInputGenerator, LLMInputGenerator
from planexec.llm.base import LLM
from planexec.llm.bounded import BoundedLLM
from planexec.planner_additive import AdditivePlanner
from planexec.planner_heuristic import HeuristicPlanner
from planexec.planner_llm import LLMPlanner
from planexec.protocols import (
    Embedder,
    InputGenerator,
    Planner,
    StepEvaluator,
    Synthesizer,
    Verifier,
)
from planexec.similarity import default_scorer
from planexec.synthesis import LLMSynthesizer, TemplateSynthesizer
from planexec.verifier import StepVerifier


@dataclass
class Components:
    """The replaceable parts of the loop; `defaults` picks LLM-backed or offline (heuristic) ones."""

    planner: Planner
    inputs: InputGenerator
    verifier: Verifier
    evaluator: StepEvaluator
    synthesizer: Synthesizer

    @classmethod
    def defaults(cls, llm: LLM | None, config: Config, embedder: Embedder | None = None) -> Components:
        """LLM-backed parts, or with `llm=None` the offline ones; planners score with `embedder`
        (None: the model `config.embedder` names)."""
        if llm is None:
            planner: Planner = HeuristicPlanner(_LazyScorer(config, embedder))
            return cls(planner, HeuristicInputGenerator(), StepVerifier(), default_evaluators(), TemplateSynthesizer())
        offline = HeuristicPlanner(_LazyScorer(config, embedder), coder_fallback=True)
        bounded = llm if isinstance(llm, BoundedLLM) else BoundedLLM(llm, config)
        return cls(
            AdditivePlanner(LLMPlanner(bounded.for_purpose("plan"), offline.scorer), offline),
            LLMInputGenerator(bounded.for_purpose("arguments")),
            StepVerifier(bounded.for_purpose("verification"), config.verify_with_llm),
            default_evaluators(),
            LLMSynthesizer(bounded.for_purpose("answer")),
        )


class _LazyScorer:
    """Loads the embedding model only when the heuristic planner first scores something."""

    def __init__(self, config: Config, embedder: Embedder | None = None) -> None:
        self.spec = config.embedder
        self.embedder = embedder
        self.cache_dir = Path(config.home) / "capabilities" / ".index"
        self._scorer: Any = None

    def _get(self) -> Any:
        if self._scorer is None:
            self._scorer = default_scorer(self.spec, self.cache_dir, self.embedder)
        return self._scorer

    @property
    def name(self) -> str:
        return self._get().name

    @property
    def threshold(self) -> float:
        return self._get().threshold

    def scores(self, query: str, docs: Sequence[str]) -> list[float]:
        return self._get().scores(query, docs)


__all__ = ["Components"]
