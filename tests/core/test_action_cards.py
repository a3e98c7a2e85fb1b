"""The shipped action cards: one per action of the library, full enough, and new text only."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from planexec.action_cards import LABELLED_SETS, Card, NotServed, hand_cards, load_cards, widened
from planexec.actions import Action, actions_from
from planexec.datafiles import shipped
from planexec.knowledge.starters import read_capability_dir
from planexec.knowledge.store import default_seed_dir
from planexec.tools import default_registry


def _norm(text: str) -> str:
    return " ".join(text.casefold().split())


@pytest.fixture(scope="module")
def actions() -> list[Action]:
    return actions_from(default_registry(), read_capability_dir(default_seed_dir()))


@pytest.fixture(scope="module")
def cards() -> dict[str, Card]:
    return hand_cards()


def test_every_action_has_a_card_and_every_card_an_action(actions: list[Action], cards: dict[str, Card]) -> None:
    names = {a.name for a in actions}
    assert len(names) == 30
    assert names - set(cards) == set()
    assert set(cards) - names == set()


def test_every_card_is_full(cards: dict[str, Card]) -> None:
    thin = {name: (len(c.serves), len(c.not_served)) for name, c in cards.items()
            if len(c.serves) < 15 or len(c.not_served) < 10}
    assert thin == {}
    unexplained = [(name, n.text) for name, c in cards.items() for n in c.not_served
                   if len(n.text.split()) < 2 or len(n.why.split()) < 2 or _norm(n.why) == _norm(n.text)]
    assert unexplained == []
    blank = [(name, s) for name, c in cards.items() for s in c.serves if len(s.strip()) < 3]
    assert blank == []


def test_no_text_repeats_within_or_across_cards(cards: dict[str, Card]) -> None:
    texts = Counter(_norm(t) for c in cards.values() for t in (*c.serves, *(n.text for n in c.not_served)))
    assert [t for t, k in texts.items() if k > 1] == []


def test_no_card_text_restates_an_existing_phrasing(actions: list[Action], cards: dict[str, Card]) -> None:
    tools = json.loads(shipped("calibration", "tool_phrasings.json").read_text(encoding="utf-8"))["tools"]
    existing = {_norm(t) for a in actions for t in a.texts} | {_norm(t) for ts in tools.values() for t in ts}
    restated = [(name, t) for name, c in cards.items() for t in (*c.serves, *(n.text for n in c.not_served))
                if _norm(t) in existing]
    assert restated == []


def test_the_cards_are_read_once(cards: dict[str, Card]) -> None:
    assert hand_cards() is cards and load_cards() is load_cards()


def test_labelled_pairs_widen_a_card_and_other_tasks_do_not() -> None:
    card = Card(("count the cells",), (NotServed("count cells per layer", "no split by layer"),))
    pairs = [{"query": "how many somata", "action": "count_cells", "serves": True, "kind": "paraphrase"},
             {"query": "count the cells", "action": "count_cells", "serves": True, "kind": "paraphrase"},
             {"query": "median cell area", "action": "count_cells", "serves": False, "kind": "hard_negative",
              "why": "an area, not a count"},
             {"query": "bake a cake", "action": "count_cells", "serves": False, "kind": "different"},
             {"query": "max image", "action": "max_projection", "serves": True, "kind": "paraphrase"}]
    out = widened({"count_cells": card}, pairs)
    assert out["count_cells"].serves == ("count the cells", "how many somata")
    assert out["count_cells"].not_served == (card.not_served[0], NotServed("median cell area", "an area, not a count", True))
    assert out["max_projection"] == Card(("max image",), ())


def test_the_shipped_cards_hold_the_development_pairs_only(cards: dict[str, Card]) -> None:
    from planexec.knowledge.calibration import load_coverage_pairs

    widened_cards = load_cards()
    texts = {t for c in widened_cards.values() for t in (*c.serves, *(n.text for n in c.not_served))}
    pairs = load_coverage_pairs()
    held = {p.set for p in pairs} - set(LABELLED_SETS)
    assert held, "at least one labelled set stays held out"
    dev = {p.query for p in pairs if p.set in LABELLED_SETS}
    assert {p.query for p in pairs if p.set in LABELLED_SETS and (p.serves or p.kind == "hard_negative")} <= texts
    hand = {t for c in cards.values() for t in (*c.serves, *(n.text for n in c.not_served))}
    assert texts <= hand | dev
