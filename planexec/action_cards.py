"""Action cards: for each action, requests it fully serves and close requests it does not.

A card widens an action's few phrasings (a capability's examples, a tool's phrasings) with the
field's vocabulary, and names near misses with the reason each is not served. The cards ship in
`data/calibration/action_cards.json`; they were written from the actions' code and documentation,
without seeing any labelled pairs or request suites.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from planexec.datafiles import shipped

__all__ = ["Card", "NotServed", "load_cards"]


@dataclass(frozen=True)
class NotServed:
    """A request close in wording that the action does not serve, and why."""

    text: str
    why: str


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
def load_cards() -> dict[str, Card]:
    """Every shipped card, by action name (read once per process)."""
    data = json.loads(shipped("calibration", "action_cards.json").read_text(encoding="utf-8"))
    return {name: _card(raw) for name, raw in data["cards"].items()}
