"""The shipped library and one clause's decision against one of its actions, for the coverage tests."""

from __future__ import annotations

import dataclasses

from planexec.actions import Action, actions_from
from planexec.coverage import Judge, library_vocabulary
from planexec.coverage_result import Candidate
from planexec.knowledge.starters import read_capability_dir
from planexec.knowledge.store import default_seed_dir
from planexec.similarity import EmbeddingScorer
from planexec.tools import default_registry


def library() -> list[Action]:
    return actions_from(default_registry(), read_capability_dir(default_seed_dir()))


def decided(minilm, clause: str, action: str) -> Candidate:  # noqa: ANN001 - the fixture's model
    """The decision of `clause` against one action of the shipped library, with the packaged model."""
    actions = library()
    judge = dataclasses.replace(Judge.for_scorer(EmbeddingScorer(minilm)), vocabulary=library_vocabulary(actions))
    return judge.candidates(clause, [a for a in actions if a.name == action])[0]
