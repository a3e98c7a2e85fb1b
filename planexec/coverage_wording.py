"""Which parts and words of a clause matter: the spans that may carry a long request's ask, and the content
words an action's texts never say (an optional feature of the learned decision).

A long request embeds far from every short phrasing when most of it describes the data ("the 9000-frame
GCaMP6s session (L2/3, 30 Hz): every pixel's brightness averaged over the recording, as one picture"), so
its sentences and colon or dash parts are scored on their own too, and the best score counts.

"Feret diameter of each ROI" is close to region properties in meaning, but "Feret" is a word no
phrasing of it says. Words are weighted by their rarity among the actions (a word every action
says explains nothing), and a word no action says at all is counted apart.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from planexec.similarity import tokens

if TYPE_CHECKING:
    from planexec.actions import Action
    from planexec.coverage import Candidate


_ASIDE = re.compile(r"(?:\s+|(?<!\w))\([^()]*\)|(?<=\w)\((?!\d{1,2}\))[^()]*\)")  # "AR(2)" keeps its order
_PARTS = re.compile(r"(?<=[.?!])\s+|\s*[:;]\s+|\s+[—–-]\s+")


def without_asides(text: str) -> str:
    """The text without its asides in parentheses ("(GCaMP6f, 30 Hz)")."""
    return _ASIDE.sub("", text)


def without_plain_asides(text: str) -> str:
    """The text without the asides in parentheses that name no method or statistic ("(GCaMP6s, 16x objective,
    512 x 512 pixels)" tells how the data was taken; "(J = 3)" or "(Otsu mask)" still asks)."""
    from planexec.knowledge.reuse import extract_terms

    return _ASIDE.sub(lambda m: m.group(0) if extract_terms(m.group(0)).groups else "", text)


def ask_spans(text: str) -> list[str]:
    """The parts of a long clause that may carry its ask alone: its sentences and colon or dash parts (three
    words or more), and the clause without its asides in parentheses."""
    bare = without_asides(text)
    out = [p for p in (q.strip() for q in _PARTS.split(bare)) if len(p.split()) >= 3 and p != text.strip()]
    if bare != text and len(bare.split()) >= 3:
        out.append(bare)
    return list(dict.fromkeys(out))


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


__all__ = ["action_words", "ask_spans", "unexplained_words", "without_asides", "without_plain_asides"]
