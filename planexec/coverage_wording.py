"""Which content words of a clause an action's texts never say: an optional feature of the learned decision.

"Feret diameter of each ROI" is close to region properties in meaning, but "Feret" is a word no
phrasing of it says. Words are weighted by their rarity among the actions (a word every action
says explains nothing), and a word no action says at all is counted apart.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from planexec.similarity import tokens

if TYPE_CHECKING:
    from planexec.actions import Action
    from planexec.coverage import Candidate


@lru_cache(maxsize=256)
def action_words(action: Action) -> frozenset[str]:
    """The content words of an action's name, title, phrasings and tags."""
    from planexec.coverage_actions import phrasings
    from planexec.knowledge.reuse import normalise_notation

    text = " ".join([action.name.replace("_", " "), action.title, *phrasings(action), *action.tags])
    return frozenset(tokens(text)) | frozenset(tokens(normalise_notation(text)))


def unexplained_words(clause: str, actions: Sequence[Action], cands: Sequence[Candidate]) -> list[Candidate]:
    """`cands` with `unexplained` and `foreign` set for `clause` among `actions`."""
    from planexec.coverage import _GENERIC

    asked = [w for w in dict.fromkeys(tokens(clause)) if w not in _GENERIC]
    if not asked:
        return list(cands)
    said = {a.name: action_words(a) for a in actions}
    df = {w: sum(w in v for v in said.values()) for w in asked}
    idf = {w: math.log(1 + len(said) / (1 + df[w])) for w in asked}
    total = sum(idf.values())
    foreign = sum(df[w] == 0 for w in asked) / len(asked)
    return [dataclasses.replace(c, unexplained=sum(idf[w] for w in asked if w not in said.get(c.name, ())) / total,
                                foreign=foreign) for c in cands]


__all__ = ["action_words", "unexplained_words"]
