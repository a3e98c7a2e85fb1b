"""Action cards: for each action, requests it fully serves and close requests it does not.

A card widens an action's few phrasings (a capability's examples, a tool's phrasings) with the
field's vocabulary, and names near misses with the reason each is not served. The hand-written cards
ship in `data/calibration/action_cards.json` (written from the actions' code and documentation, without
seeing any labelled pairs or request suites). `load_cards` widens them with the labelled coverage pairs
of the development sets (`LABELLED_SETS`): a pair that serves joins what its action serves, a hard
negative its near misses. More labelled neighbours raised recall on sets no rule or card had seen
(benchmarks/bench_reuse_decision.py); a held-out set never widens the cards.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from planexec.datafiles import shipped

__all__ = ["LABELLED_SETS", "Card", "NotServed", "hand_cards", "load_cards", "widened"]

LABELLED_SETS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456"
"""The sets of data/calibration/coverage_pairs.json whose pairs widen the cards: development sets only."""


@dataclass(frozen=True)
class NotServed:
    """A request close in wording that the action does not serve, and why."""

    text: str
    why: str
    labelled: bool = False
    """A labelled pair's hard negative (not hand-written): it refuses only through a word that sets it apart."""


@dataclass(frozen=True)
class Card:
    """What one action serves when run alone, and the close requests it does not."""

    serves: tuple[str, ...]
    not_served: tuple[NotServed, ...]


def _card(raw: dict[str, Any]) -> Card:
    return Card(
        serves=tuple(str(s) for s in raw.get("serves", ())),
        not_served=tuple(NotServed(text=str(n["text"]), why=str(n["why"])) for n in raw.get("not", ())),
    )


@lru_cache(maxsize=1)
def hand_cards() -> dict[str, Card]:
    """The hand-written cards, by action name (read once per process)."""
    data = json.loads(shipped("calibration", "action_cards.json").read_text(encoding="utf-8"))
    return {name: _card(raw) for name, raw in data["cards"].items()}


def labelled_pairs(sets: str) -> list[dict[str, Any]]:
    """The labelled coverage pairs of `sets`, as stored."""
    data = json.loads(shipped("calibration", "coverage_pairs.json").read_text(encoding="utf-8"))
    return [p for p in data["pairs"] if p.get("set", "a") in sets]


def widened(cards: dict[str, Card], pairs: list[dict[str, Any]]) -> dict[str, Card]:
    """`cards` with labelled pairs added: one that serves to what its action serves, a hard negative (with
    its why) to its near misses. Pairs of another task are left out: they are not close to the action."""
    out = dict(cards)
    for name in {p["action"] for p in pairs} | set(cards):
        mine = [p for p in pairs if p["action"] == name]
        card = cards.get(name, Card((), ()))
        out[name] = Card(
            serves=(*card.serves, *dict.fromkeys(p["query"] for p in mine if p["serves"] and p["query"] not in card.serves)),
            not_served=(*card.not_served, *(NotServed(p["query"], p.get("why") or "a labelled near miss", labelled=True)
                                            for p in mine if not p["serves"] and p.get("kind") == "hard_negative")),
        )
    return out


@lru_cache(maxsize=1)
def load_cards() -> dict[str, Card]:
    """Every card, by action name: the hand-written ones widened with the development sets' labelled pairs."""
    return widened(hand_cards(), labelled_pairs(LABELLED_SETS))
