"""Which sentences of a long request ask and which only tell its story (planexec.clause_mood)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planexec.clause_mood import (
    narrative,
    points_back,
    postponed,
    requests,
    story_sentences,
    without_story,
)


@pytest.mark.parametrize("sentence", [
    "Could you count the cells in this movie?",
    "Please give me the mean event rate.",
    "I'd like the functional boxplot of these curves, ranked by band depth.",
    "Our reviewer asked us to report the outliers under a fence factor of 1.0.",
    "Then detect the transients in every cell.",
    "What I need is the median rise time.",
])
def test_a_request_has_a_requests_form(sentence: str) -> None:
    assert requests(sentence)
    assert not narrative(sentence)


@pytest.mark.parametrize("sentence", [
    "Priya already fitted orientation tuning curves to the other sessions.",
    "Our collaborators in Ghent will run the assembly detection on their side.",
    "We'll compare the result with a shape-outlier plot in our own script later.",
    "Kinetics can wait until the faster recordings arrive.",
    "The folder holds 100 frames of a 64 x 64 field imaged at 10 Hz.",
    "Hello, this is a pilot recording from a GRIN lens.",
    "A summer student measured the input resistance on the rig, which is unrelated.",
    "Hi and I run the regional sales desk.",
    "Dear planexec team, we image layer 2/3 of barrel cortex and this folder is a 64 x 64 crop.",
    "Our PI wants to compare preparations, and eventually we will do a proper burst analysis.",
    "Hey Ari, the transients are all detected, thanks.",     # work done, told in the passive
    "If it comes out near zero we stop worrying.",           # what the writer does with the answer
    "Our analyst already split the numbers by product for the board deck.",
    "Dear maintainers, our group studies whether neighbouring neurons fire together.",
])
def test_a_narrative_tells_what_was_or_will_be_done(sentence: str) -> None:
    assert narrative(sentence)
    assert not requests(sentence)


@pytest.mark.parametrize("sentence", [
    "The baseline should be the 8th percentile.",  # a present specification stays part of the ask
    "The mean image with the cells outlined.",     # a bare noun phrase may be the ask itself
    "The detailed version is too long for first-years, so just the short one.",
    "I'd like the standard analysis: rank the curves and tell me the median.",
])
def test_specifications_and_bare_asks_are_no_narrative(sentence: str) -> None:
    assert not narrative(sentence)


def test_a_narrative_pointed_back_to_is_part_of_the_ask() -> None:
    told = ["Our lab's convention, as the reviewers saw in the first paper, is F0 at the 20th percentile.",
            "Could you compute dF/F with exactly that F0?"]
    assert narrative(told[0]) and points_back(told[1])
    assert story_sentences(told) == set()
    plain = ["Sam did the cell detection in the previous round.", "Could you compute the mean correlation?"]
    assert story_sentences(plain) == {0}


def test_without_a_request_nothing_is_story() -> None:
    assert story_sentences(["Sam did the cell detection.", "Marta will do the kinetics next week."]) == set()


@given(st.text(alphabet=st.characters(codec="ascii", categories=("L", "Zs", "P")), max_size=80))
def test_a_sentence_saying_please_is_never_narrative(text: str) -> None:
    assert not narrative(f"{text} please")


def test_what_was_done_is_left_out_of_what_is_matched() -> None:
    assert without_story("We ran the event detection last week. Could you measure the kinetics?") == \
        "Could you measure the kinetics?"
    kept = "Our cells are large at this zoom, so put the seeds 10 px apart. Could you watershed the mean image?"
    assert without_story(kept) == kept  # a description with an instruction in it is asked
    assert without_story("Sam did the detection. Marta did the kinetics.") == "Sam did the detection. Marta did the kinetics."


@pytest.mark.parametrize("sentence", [
    "The trace plot is postponed.",
    "Classification comes later.",
    "Registration across days is a separate discussion.",
    "Notes: no PCA denoising yet, Jun wants to benchmark that separately.",
])
def test_a_step_put_off_is_postponed(sentence: str) -> None:
    assert postponed(sentence)
    assert not postponed("For now just denoise the stack with a Gaussian.")


def test_in_notes_with_no_request_only_what_waits_is_story() -> None:
    assert story_sentences(["Notes: ROI contours over the average image.", "The trace plot is postponed."]) == {1}
    # a request made of story only keeps its story: nothing is left to serve
    assert story_sentences(["Sam did the cell detection.", "Marta will do the kinetics next week."]) == set()
    assert requests("For now just denoise the stack with a Gaussian.")
