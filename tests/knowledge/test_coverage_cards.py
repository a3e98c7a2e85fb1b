"""The action cards in the coverage decision, with the packaged MiniLM: what a card serves widens an
action's phrasings, a near miss it names refuses the action, and words nothing it serves says cost."""

from __future__ import annotations

import dataclasses

from planexec.action_cards import hand_cards, load_cards
from planexec.actions import actions_from
from planexec.coverage import Judge, library_vocabulary
from planexec.coverage_actions import distinguishing, named, phrasings
from planexec.knowledge.starters import read_capability_dir
from planexec.knowledge.store import default_seed_dir
from planexec.similarity import EmbeddingScorer, KeywordScorer
from planexec.tools import default_registry


def library() -> list:
    return actions_from(default_registry(), read_capability_dir(default_seed_dir()))


def judge_for(scorer, actions) -> Judge:
    return dataclasses.replace(Judge.for_scorer(scorer), vocabulary=library_vocabulary(actions))


def by_name(cands) -> dict:
    return {c.name: c for c in cands}


def test_a_cards_served_requests_are_phrasings_but_not_the_actions_specifics() -> None:
    count = next(a for a in library() if a.name == "count_cells")
    card = load_cards()["count_cells"]
    assert set(card.serves) <= set(phrasings(count)) and set(hand_cards()["count_cells"].serves) <= set(card.serves)
    assert not set(hand_cards()["count_cells"].serves) & set(phrasings(count, cards=False))
    # "n cells after curation" or "in the 2p recording" are ways to ask, not numbers or tasks of the counter
    assert named(count).terms.numbers == frozenset()


def test_a_near_miss_of_the_card_refuses_the_action_and_says_why(minilm) -> None:
    actions = library()
    judge = judge_for(EmbeddingScorer(minilm), actions)
    layer = by_name(judge.candidates("how many cells per cortical layer", actions))["count_cells"]
    assert not layer.accepted and "near miss" in layer.vetoes and "cortical layer" in layer.reason
    served = by_name(judge.candidates("how many neurons are in the field of view", actions))["count_cells"]
    assert served.accepted and "near miss" not in served.vetoes
    miss = next(n for n in load_cards()["count_cells"].not_served if "cortical layer" in n.text)
    # "layer" is said by a labelled paraphrase ("... movie of layer 2/3"), so only "cortical" sets the miss apart
    assert "cortical" in distinguishing(next(a for a in actions if a.name == "count_cells"), miss)


def test_words_nothing_the_action_serves_says_cost_it_the_decision(minilm) -> None:
    actions = library()
    judge = judge_for(EmbeddingScorer(minilm), actions)
    audio = by_name(judge.candidates("denoise my podcast audio recording", actions))["denoise_movie"]
    assert not audio.accepted and "podcast" in audio.reason and "audio" in audio.reason
    movie = by_name(judge.candidates("denoise the recording", actions))["denoise_movie"]
    assert movie.accepted, movie.reason


def test_keyword_matching_has_no_near_miss_rule() -> None:
    """Overlap counts cannot tell a near miss from what is served, so offline keywords keep the old rules."""
    actions = library()
    judge = judge_for(KeywordScorer(), actions)
    assert all("near miss" not in c.vetoes for c in judge.candidates("how many cells per cortical layer", actions))
