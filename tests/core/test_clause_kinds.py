"""What kind of thing a clause is (planexec.clause_kinds): the detectors the coverage decision reads around an ask."""

from __future__ import annotations

import pytest

from planexec.clause_kinds import (
    answer_form_only,
    asking_part,
    asks_sources,
    asks_the_dff,
    only_a_rate,
    tells_only,
)
from planexec.knowledge.reuse import normalise_notation


@pytest.mark.parametrize(("clause", "asks"), [
    ("compute dF/F with a 10th percentile baseline", True),
    ("normalise the traces to ΔF/F", True),
    ("dF/F traces of each ROI", True),
    ("estimate a drifting baseline before we compute ΔF/F", False),
    ("a single F0 per cell overestimates dF/F at the start", False),
])
def test_asking_the_dff_itself(clause: str, asks: bool) -> None:
    assert asks_the_dff(normalise_notation(clause)) is asks


@pytest.mark.parametrize(("clause", "only"), [
    ("I need only the number for my table", True),
    ("just the count, please", True),
    ("just the numbers for the mean", False),
    ("only the number of cells", False),
])
def test_a_word_on_the_answers_form(clause: str, only: bool) -> None:
    assert answer_form_only(clause) is only


@pytest.mark.parametrize(("clause", "only"), [("10 fps", True), ("at 30 Hz.", True), ("count cells at 30 Hz", False)])
def test_a_frame_rate_alone(clause: str, only: bool) -> None:
    assert only_a_rate(clause) is only


@pytest.mark.parametrize(("clause", "asks"), [
    ("please show me where each one comes from", True),
    ("with their sources", True),
    ("count the cells", False),
])
def test_asking_where_passages_come_from(clause: str, asks: bool) -> None:
    assert asks_sources(clause) is asks


def test_numbers_that_set_nothing_keep_a_statement_a_statement() -> None:
    assert tells_only("Hi all, we imaged layer 2/3 in an awake GCaMP6f mouse")
    assert not tells_only("the threshold is 3 SD")


def test_the_asking_sentences_of_a_long_clause() -> None:
    told = "The detection gave us 60 ROIs and half seem to be junk. Please rate each ROI as soma or not."
    assert asking_part(told) == "Please rate each ROI as soma or not."
    assert asking_part("Segment the cells. Then count them.") == "Segment the cells. Then count them."  # all ask
    assert asking_part("count the cells") == "count the cells"
    # an instruction without a modal still asks
    kept = "Watershed the mean image. Our somata are big, so put seeds 12 px apart."
    assert asking_part(kept) == kept


def test_a_relative_which_asks_nothing_and_what_i_am_after_asks() -> None:
    told = "Our tech checked each ROI by eye, which took a week. Can the pipeline label every ROI cell or not?"
    assert asking_part(told) == "Can the pipeline label every ROI cell or not?"
    wanted = "We imaged two lines. The decay times per event are what we're after."
    assert asking_part(wanted) == "The decay times per event are what we're after."


@pytest.mark.parametrize("clause", ["Ana", "Dr. Tomasz Wilk", "With thanks and Marco", "Acquired at 10 Hz", "Tomás"])
def test_a_signature_or_how_the_data_was_acquired_only_tells(clause: str) -> None:
    assert tells_only(clause)


@pytest.mark.parametrize(("clause", "declines"), [
    ("that is her project and nothing I need from you", True),
    ("Nothing else for now", True),
    ("No figures please and the panel is already made", True),
    ("Please don't generate synthetic curves and real data only and skip the written report", True),
    ("Please don't export NWB yet: we are still waiting for the metadata", True),
    ("Please don't use the default, use the 20th percentile", False),   # an ask after the decline
    ("don't subtract neuropil but compute dF/F", False),
])
def test_a_clause_of_declines_only(clause: str, declines: bool) -> None:
    from planexec.clause_kinds import declines_only

    assert declines_only(clause) is declines
