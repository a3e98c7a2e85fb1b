"""Asides around an ask (issue 12, sets 0 and 2 as development): steps others did or will do told in the passive,
headings, chat-style full stops, a part the writer keeps, and an off-topic ask beside a story that names a step."""

from __future__ import annotations

import pytest

from planexec.clause_kinds import asking_part
from planexec.clause_mood import narrative, postponed, sentences_of, without_header
from planexec.coverage import assess
from planexec.coverage_terms import without_purpose
from planexec.knowledge.reuse import extract_terms
from planexec.similarity import EmbeddingScorer

from .judging import decided, library


@pytest.mark.parametrize("sentence", [
    "The raster plot will be drawn by Oskar next week.",
    "spikes inferred by Leona already.",
    "Clustering will be run by the Lyon group afterwards.",
    "registration + denoising done (Petr).",
    "classification later (Ines).",
])
def test_a_step_someone_else_does_is_narrative(sentence: str) -> None:
    assert narrative(sentence)


def test_a_passive_step_with_no_agent_or_a_request_stays_an_ask() -> None:
    assert not narrative("Please compute dF/F on the traces extracted by Suite2p.")
    assert not narrative("The traces should be plotted by cell.")
    assert postponed("The raster plot will be drawn by Oskar next week.")
    assert not postponed("spikes inferred by Leona already.")


@pytest.mark.parametrize(("text", "sentences"), [
    ("hi, segmentation done (Ugo). count the cells pls", 2),
    ("smooth approx. ten frames then plot", 1),
    ("see Pachitariu et al. for the method", 1),
    ("values vs. time, please", 1),
])
def test_a_chat_full_stop_before_lower_case_ends_a_sentence(text: str, sentences: int) -> None:
    assert len(sentences_of(text)) == sentences


@pytest.mark.parametrize(("text", "rest"), [
    ("Email to Bo: please count the cells.", "please count the cells."),
    ("Notes 4 Feb: count the cells.", "count the cells."),
    ("From yesterday's lab meeting: count the cells.", "count the cells."),
    ("Counting: please do it.", "Counting: please do it."),
])
def test_a_heading_is_left_out(text: str, rest: str) -> None:
    assert without_header(text) == rest


@pytest.mark.parametrize(("text", "gone"), [
    ("Please count the cells; the max projection was already made by Tove", "max"),
    ("Please count the cells; the max projection exists already", "max"),
    ("Just compute dF/F from the traces; the plotting I'll do myself", "plot"),
    ("Please average the frames. Segmentation is Ravi's job afterwards.", "segment"),
    ("Please average the frames. Watershed was Ravi's attempt last week.", "watershed"),
    ("for benchmarking the boxplot code we need 40 sine curves", "boxplot"),
    ("make a correlation image of the stack Fatma registered", "regist"),
])
def test_what_others_did_or_the_writer_keeps_is_not_asked(text: str, gone: str) -> None:
    assert gone not in without_purpose(text).casefold()


def test_a_step_in_the_ask_is_still_read() -> None:
    assert "task" in extract_terms(without_purpose("Please register the stack and count the cells")).groups
    assert "segment" in without_purpose("segment the cells found by the detector").casefold()


def test_an_off_topic_ask_beside_a_story_is_not_served(minilm) -> None:  # noqa: ANN001
    told = decided(minilm, "Hi Jo, the neuropil correction is done. Which wine goes with grilled fish?", "extract_neuropil")
    assert not told.accepted and "tells what was done" in told.reason
    # an ask that points back to the data the story describes is still judged
    kept = decided(minilm, "Here's a CSV of flow profiles, one profile per line. Please bring it into the session.",
                   "load_curves")
    assert "tells what was done" not in kept.reason
    assert asking_part("Hi Jo, the neuropil correction is done. Which wine goes with grilled fish?").startswith("Which")


def test_an_ask_beside_what_others_do_is_served(minilm) -> None:  # noqa: ANN001
    request = ("Dear Ana,\n\nPlease give me the number of cells in the recording. The traces will be plotted by Rolf "
               "afterwards.\n\nBest,\nIda")
    cov = assess(request, library(), EmbeddingScorer(minilm), has_input=True)
    assert cov.complete and "count_cells" in {c.served_by for c in cov.clauses}, [(c.clause, c.reason) for c in cov.clauses]


def test_a_doubt_the_writer_settles_from_the_ask_is_the_motive() -> None:
    ask = asking_part("can you check whether cell 3 really fires? Extract the raw traces of all cells and I'll have a look.")
    assert ask.startswith("Extract")
    # without the writer settling it, the doubt is asked too
    both = "Can you check whether the cells are correlated? Then plot the traces."
    assert asking_part(both) == both
    # a comparison the writer will make from the building block asked next (set 6): the direct ask is the ask
    compared = asking_part("Can you check whether the decay is slower in the knockout? For each transient compute the "
                           "half-decay time.")
    assert compared.startswith("For each transient")
    assert asking_part("Can you check whether it is slower in the knockout? Then compute the half-decay time.").startswith("Can")


@pytest.mark.parametrize(("text", "gone"), [
    ("we're postponing the event detection until the new batch arrives, but I need the mean image", "event"),
    ("Please count the cells; last time the total included the rejected ones", "total"),
    ("Please register the stack so segmentation ignores the edges", "segment"),
    ("Please classify the ROIs; segmentation gave 140 ROIs", "segment"),
])
def test_a_step_put_off_or_last_times_story_is_not_asked(text: str, gone: str) -> None:
    assert gone not in without_purpose(text).casefold()


def test_what_was_done_to_a_statistic_is_no_column() -> None:
    from planexec.coverage_tables import missing_columns

    columns = ["date", "region", "units", "revenue"]
    assert missing_columns("the revenue total converted to euros at today's rate", columns) == []
    assert missing_columns("the mean speed of the orders", columns) == ["speed"]


@pytest.mark.parametrize("clause", [
    "we're trying to decide whether the line carries a fast or a slow indicator",
    "I mainly want the numbers to be right",
])
def test_a_motive_beside_the_ask_asks_nothing(clause: str) -> None:
    from planexec.clause_kinds import wishes_only

    assert wishes_only(clause)


@pytest.mark.parametrize(("clause", "kind"), [
    ("for now I only need that one number", "answer"),
    ("Please let it estimate the constant itself", "back"),
    ("I don't want to impose one", "decline"),
    ("that's a separate discussion", "decline"),
    ("I'd rather not cherry-pick", "decline"),
])
def test_a_setting_left_to_the_step_or_a_decline_asks_nothing(clause: str, kind: str) -> None:
    from planexec.clause_kinds import answer_form_only, declines_only, refers_back_only

    check = {"answer": answer_form_only, "back": refers_back_only, "decline": declines_only}[kind]
    assert check(clause)


@pytest.mark.parametrize("sentence", [
    "the label on the virus aliquot for this mouse got smudged, so we can't tell the GCaMP6 variant",
    "attached are 40 response curves from our calibration runs, one per row",
    "The folder data/images holds a short recording",
])
def test_what_happened_to_the_sample_or_what_is_attached_is_narrative(sentence: str) -> None:
    assert narrative(sentence)
    assert postponed("the figure comes once the text is settled")


def test_a_mean_dragged_up_by_big_orders_is_the_reason_not_the_ask() -> None:
    assert "statistic" not in extract_terms("the mean revenue is clearly dragged up by a few big orders").groups
    assert not narrative("I'd rather have the median of units.")


def test_a_rate_setting_a_kept_sample_and_a_span_ask_nothing_more() -> None:
    from planexec.clause_kinds import declines_only, only_a_rate
    from planexec.coverage_terms import worked_on

    assert only_a_rate("fs = 10 Hz") and only_a_rate("sampling rate: 20 Hz")
    assert declines_only("I'll decide later whether to exclude them, so please don't drop anything")
    assert not declines_only("drop the dim cells and keep the rest")
    assert "image" not in worked_on("how many calcium transients there are in all this recording")
    assert narrative("A student of mine ranked them with modified band depth for her thesis.")


def test_the_step_a_story_names_does_not_lift_another_ask(minilm) -> None:  # noqa: ANN001
    told = decided(minilm, "Hi Lou, Rui ran the watershed already. Please compute the mean projection of the new movie.",
                   "segment_watershed")
    assert not told.accepted
    # an ask that points back keeps the story it points to: the file the collaborator saved is what is read
    kept = decided(minilm, "My collaborator saved the ensemble as sims.csv, one curve per row. Please read it in.",
                   "load_curves")
    assert kept.accepted, kept.reason
