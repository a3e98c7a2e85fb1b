"""What a long or indirect clause asks (issue 12, sets p and q): its ask scored apart from what it tells about the
data, acquisition details and data sources that name no method, and words that read as another statistic,
object or parameter only out of context."""

from __future__ import annotations

import pytest

from planexec.clause_kinds import tells_only
from planexec.coverage import assess
from planexec.coverage_names import method_names
from planexec.coverage_result import INPUT, NOTHING
from planexec.coverage_terms import set_parameters, worked_on
from planexec.coverage_wording import ask_spans
from planexec.knowledge.reuse import extract_terms
from planexec.similarity import EmbeddingScorer

from .judging import decided, library


def test_a_long_clause_is_also_read_by_its_parts() -> None:
    spans = ask_spans("Our 40-min session (GCaMP6s, 30 Hz) sags a lot. Could you give each ROI a sliding F0? "
                      "Thanks: the lab")
    assert "Our 40-min session sags a lot." in spans
    assert "Could you give each ROI a sliding F0?" in spans
    assert not any("(" in s for s in spans)  # the aside is dropped
    assert "Thanks" not in spans  # too short to carry an ask alone
    assert len(spans) == len(set(spans))


@pytest.mark.parametrize("text", ["count the cells", "plot traces - events", "mean image"])
def test_a_short_clause_has_no_parts(text: str) -> None:
    assert ask_spans(text) == []


@pytest.mark.parametrize("text", [
    "the anatomical reference of the 30-min session (L2/3 V1, 15 Hz, 25x Olympus): the average of all frames",
    "cells from the GCaMP8 movie (20x/1.0 NA, 30 Hz)",
    "summarise the columns of this German SAP export",
    "the frames from our Bruker scope are noisy",
    "the raw 1P frames are grainy",
])
def test_acquisition_details_and_data_sources_are_no_method_names(text: str) -> None:
    assert method_names(text) == []


@pytest.mark.parametrize(("text", "names"), [
    ("segment the somata with Cellpose (cyto2, 30 px)", ["Cellpose", "cyto2"]),
    ("denoise the Zeiss scope data with BM3D", ["BM3D"]),
    ("register the movie with NoRMCorre (30 Hz)", ["NoRMCorre"]),
])
def test_a_method_named_beside_them_is_still_one(text: str, names: list[str]) -> None:
    assert method_names(text) == names


def test_firing_together_is_a_correlation_and_a_stack_of_lines_a_layout() -> None:
    assert "event" not in worked_on("do the neurons fire together?")
    assert "event" in worked_on("how often does each neuron fire?")
    assert "image" not in worked_on("a stack of dF/F lines, one per cell")
    assert "image" in worked_on("denoise the stack")


def test_peak_to_half_amplitude_is_a_decay_time() -> None:
    groups = extract_terms("the time each event takes from its peak to half amplitude").groups
    assert groups["feature"] == frozenset({"decay_time"})
    assert extract_terms("the mean amplitude of the events").groups["feature"] == frozenset({"amplitude"})


def test_an_air_puff_is_an_external_variable() -> None:
    assert "external" in extract_terms("events during the air puffs").groups["measure"]


@pytest.mark.parametrize(("clause", "action"), [
    ("how long from each event's peak until it has fallen to half amplitude?", "event_kinetics"),
    ("do these neurons fire together? correlation for every pair of cells", "cell_correlation"),
    ("what does the documentation say about choosing a neuropil coefficient?", "rag_retrieval"),
    ("functional boxplot statistics of the ensemble with a 75% central region", "compute_functional_boxplot_statistics"),
    ("how far did the field of view drift over the session?", "register_motion"),
    ("a table of each cell's area, centroid and eccentricity", "region_properties"),
])
def test_served_once_the_words_are_read_for_what_they_mean(minilm, clause: str, action: str) -> None:  # noqa: ANN001
    c = decided(minilm, clause, action)
    assert c.accepted, c.reason


@pytest.mark.parametrize(("clause", "action"), [
    ("maximum intensity projection of the frames during the air puffs only", "max_projection"),
    ("the mean event amplitude during odour presentation", "event_statistics"),
    ("functional boxplot statistics with spatial depth", "compute_functional_boxplot_statistics"),
    ("compute the skewness of each cell trace", "classify_cells"),  # it reads skewness, it does not report it
    ("write a short literature review on neuropil subtraction", "rag_retrieval"),
    ("subtract the global mean background trace from every ROI", "extract_neuropil"),
])
def test_still_refused(minilm, clause: str, action: str) -> None:  # noqa: ANN001
    assert not decided(minilm, clause, action).accepted


@pytest.mark.parametrize(("clause", "why"), [
    ("simulate 21 curves of which 9 are outliers", "a third of n_curves (7)"),
    ("generate 2 curves", "at least 3 curves"),
])
def test_a_tool_refuses_numbers_its_own_check_rejects(minilm, clause: str, why: str) -> None:  # noqa: ANN001
    c = decided(minilm, clause, "generate_ensemble_curves")
    assert not c.accepted and why in c.reason and "arguments" in c.vetoes


def test_numbers_it_takes_pass_its_check(minilm) -> None:  # noqa: ANN001
    assert decided(minilm, "simulate 21 curves of which 7 are outliers", "generate_ensemble_curves").accepted


@pytest.mark.parametrize("clause", [
    "Hello and I am new in the lab",
    "I'm preparing the quarterly review",
    "our lab is new to calcium imaging",
])
def test_a_clause_that_only_tells_asks_nothing(clause: str) -> None:
    assert tells_only(clause)


@pytest.mark.parametrize("clause", [
    "the baseline is the 20th percentile of each trace",  # a statement that sets something is still asked
    "the count should leave out the border cells",
    "skewness of each trace",  # a noun phrase asks
    "is the mean misleading here?",
    "per trial",
])
def test_a_clause_that_asks_or_sets_something_is_kept(clause: str) -> None:
    assert not tells_only(clause)


def test_an_ordinal_percentile_sets_the_percentile() -> None:
    assert set_parameters("F0 = the 20th percentile of each trace") == [("percentile", 20.0)]


@pytest.mark.parametrize(("clause", "action"), [
    ("Normalise to dF/F using F0 = the 20th percentile of each trace", "compute_dff"),  # the baselines use 10 or none
    ("Normalise to dF/F using F0 = the 20th percentile of each trace", "baseline_percentile"),
    ("compute dF/F with a 10th percentile baseline", "baseline_percentile"),  # the baseline only, no dF/F
    ("population standard deviation (divide by N) of the units column", "describe_table"),
])
def test_refused_for_a_setting_or_product_it_lacks(minilm, clause: str, action: str) -> None:  # noqa: ANN001
    assert not decided(minilm, clause, action).accepted


def test_how_many_frames_it_takes_is_a_duration() -> None:
    groups = extract_terms("how many frames does it take a transient to fall to half its peak?").groups
    assert groups == {"feature": frozenset({"decay_time"})}
    assert extract_terms("how many frames are there?").groups["statistic"] == frozenset({"count"})


def assessed(minilm, request: str, has_input: bool = True) -> dict[str, str | None]:  # noqa: ANN001
    """Each clause of `request` with what serves it, by the shipped library and the packaged model."""
    return {c.clause: c.served_by for c in assess(request, library(), EmbeddingScorer(minilm), has_input=has_input).clauses}


@pytest.mark.parametrize(("request_text", "asked"), [
    ("Hello, please how many cells are in this recording? I need only the number for my lab book.", "count_cells"),
    ("Hi all, we imaged layer 2/3 of barrel cortex in an awake mouse. How many cells are there?", "count_cells"),
    ("indicator decay time constant in s? 10 fps", "deconvolve_events"),
    ("Dear team, for the slide on Monday I need the mean of the revenue column of sales.csv.", "describe_table"),
])
def test_what_surrounds_the_ask_asks_nothing(minilm, request_text: str, asked: str) -> None:  # noqa: ANN001
    served = assessed(minilm, request_text)
    assert asked in served.values(), served
    assert set(served.values()) <= {asked, NOTHING, INPUT}, served


def test_where_passages_come_from_is_asked_of_the_search_before(minilm) -> None:  # noqa: ANN001
    served = assessed(minilm, "Which passages of the method papers explain the outlier rule of a functional boxplot? "
                              "Please show me where each one comes from.", has_input=False)
    assert set(served.values()) == {"rag_retrieval"}, served


def test_loading_and_ordering_is_more_than_naming_the_input(minilm) -> None:  # noqa: ANN001
    served = assessed(minilm, "Load data/curves.npy and order the curves by band depth")
    assert "compute_functional_boxplot_statistics" in served.values(), served


@pytest.mark.parametrize(("clause", "action", "veto"), [
    ("The runs came from our old pipeline as sims.mat. Could you load the curves?", "load_curves", "objects"),
    ("We have 95 neurons here. Stack the dF/F traces of every one of the 95 neurons in a figure.", "plot_traces",
     "arguments"),
    ("register the frames, correcting the rotation as well as the shifts", "register_motion", "conflict"),
    ("flag shape outliers of the ensemble with an outliergram", "compute_functional_boxplot_statistics", "conflict"),
    ("the area under each transient, per cell", "event_kinetics", "conflict"),
    ("each ROI's area in square microns", "region_properties", "conflict"),
])
def test_specifics_the_action_lacks_are_vetoed(minilm, clause: str, action: str, veto: str) -> None:  # noqa: ANN001
    c = decided(minilm, clause, action)
    assert not c.accepted and veto in c.vetoes, (c.reason, c.vetoes)


def test_a_count_within_the_figures_limit_is_drawn(minilm) -> None:  # noqa: ANN001
    assert decided(minilm, "plot the dF/F traces of our 12 neurons stacked, with the events", "plot_traces").accepted


def test_a_possessive_is_no_quoted_name() -> None:
    from planexec.coverage_terms import without_names

    assert without_names("each cell's trace and it's fine") == "each cell's trace and it's fine"
    assert "events" not in without_names("total of the 'events' column")


def test_the_held_out_suite_8_findings() -> None:
    """Found by requests_heldout8's one blind run: a seed distance 'between cell centres', bands of J = 3 curves,
    a verb 'skew', a rate said as frames in one second, and a greeting with the acquisition in parentheses."""
    from planexec.params import from_request

    assert set_parameters("keep the minimum distance between cell centres at 8 px") == [("minimum distance", 8.0)]
    assert "other_depth" in extract_terms("band depth from bands of three curves (J = 3)").groups["depth"]
    assert "measure" not in extract_terms("the median, because a few big orders skew it").groups
    assert "skewness" in extract_terms("how skewed is each trace").groups["measure"]
    assert from_request("The camera took 10 frames in one second.") == {"fs": 10.0}
    assert tells_only("Hi, attached is a short two-photon run (GCaMP6f, imaged at 10 Hz, ten seconds long)")


def test_the_median_not_the_mean_is_in_a_summary_that_reports_both(minilm) -> None:  # noqa: ANN001
    c = decided(minilm, "the median of the units column, not the mean", "describe_table")
    assert c.accepted, c.reason


def test_file_names_and_plain_asides_name_no_method() -> None:
    from planexec.coverage_terms import without_names
    from planexec.coverage_wording import without_plain_asides

    assert without_names("cells in mouse7_d3.tif and /srv/run_members.npy") == "cells in file.tif and file.npy"
    assert without_plain_asides("cells in layer 5 (GCaMP8m, 25x objective, 256 x 256 px)?") == "cells in layer 5?"
    assert without_plain_asides("a depth (outliergram)") == "a depth (outliergram)"  # an aside that asks stays


@pytest.mark.parametrize(("clause", "action"), [
    ("retrain the cell classifier on my own hand labels", "classify_cells"),
    ("the mean image, but only from the frames in which the animal sat still", "mean_projection"),
    ("how many ROIs in total, including those that were classified as non-cells", "count_cells"),
    ("the average fluorescence of the whole field in every frame, as a time course", "mean_projection"),
])
def test_what_the_action_does_not_do_is_refused(minilm, clause: str, action: str) -> None:  # noqa: ANN001
    assert not decided(minilm, clause, action).accepted


def test_the_words_of_the_story_around_the_ask_cost_nothing(minilm) -> None:  # noqa: ANN001
    """A long request's unsaid words are counted in its asking sentences: the supervisor, last month and Monday
    are not words the action should have said."""
    story = ("Our PI was unhappy after last month's vessel mix-up at the group meeting. Could you draw each detected "
             "cell's outline over the average image, numbered, so we can go through them on Friday?")
    c = decided(minilm, story, "plot_cells")
    assert c.accepted, c.reason


def test_a_size_said_in_the_story_still_sets_the_parameter(minilm) -> None:  # noqa: ANN001
    c = decided(minilm, "Our somata are huge, radius around 25 pixels. Could you find them as blobs in the mean image?",
                "segment_blobs")
    assert not c.accepted and "parameter" in c.reason


def test_an_image_per_cell_is_still_not_a_projection(minilm) -> None:  # noqa: ANN001
    assert not decided(minilm, "a separate max projection for each cell", "max_projection").accepted


@pytest.mark.parametrize(("clause", "action"), [
    ("a map of how every pixel correlates with the seed pixel at (12, 60)", "correlation_image"),
    ("register every frame to the first frame of the movie", "register_motion"),
    ("an image holding, for each pixel, the frame number at which it peaked", "max_projection"),
])
def test_a_seed_pixel_a_given_reference_or_a_time_map_is_not_done(minilm, clause: str, action: str) -> None:  # noqa: ANN001
    c = decided(minilm, clause, action)
    assert not c.accepted and "conflict" in c.vetoes, c.reason


def test_a_purpose_ends_with_its_sentence(minilm) -> None:  # noqa: ANN001
    from planexec.coverage_terms import without_purpose

    text = "I want to test the ranking code on fake data. Simulate 40 gaussian curves with 3 outliers."
    assert "Simulate 40 gaussian curves" in without_purpose(text)
    assert decided(minilm, text, "generate_ensemble_curves").accepted


def test_the_held_out_suite_9_findings() -> None:
    """Found by requests_heldout9's one blind run: counts in words past twenty, sign-offs, and an occasion that names
    a figure ("for a methods figure") read by the step's verification as a figure asked."""
    from planexec.clause_kinds import the_ask
    from planexec.coverage_terms import without_purpose
    from planexec.inputs import number_near

    assert number_near(["curves"], "make sixty linear ramp curves") == 60
    assert number_near(["seed"], "with seed twenty-one") == 21
    assert number_near(["curves"], "forty-five gaussian curves") == 45
    assert tells_only("Much appreciated") and tells_only("Many thanks in advance, Marta (postdoc, imaging group)")
    asked = extract_terms(without_purpose(the_ask("For a methods figure I need a toy ensemble of 45 curves"))).groups
    assert "plot" not in asked.get("action", frozenset())
    assert worked_on("the transients in every cell of this recording") == {"event", "cell"}


@pytest.mark.parametrize(("clause", "action"), [
    # the story around the ask names segmentation, events and cells; the ask is what is served
    ("The segmentation merged a few somata yesterday. Could you make the neighbourhood correlation image of the movie?",
     "correlation_image"),
    ("We ran the event detection already and it looked fine. Could you average the movie over time into one image?",
     "mean_projection"),
    ("the mean and range of the 'transients' column of results.csv", "describe_table"),  # a name in quotes
    ("segment every soma, also the dim ones that almost never fire", "segment_cells"),  # how the cells behave
    ("read out each segmented cell's fluorescence over time from the movie", "extract_traces"),  # read out: extract
    ("Before I reply to the referee, could you look up what the papers say about neuropil coefficients?", "rag_retrieval"),
    ("segment the mean image by watershed (Otsu mask, a seed per peak)", "segment_watershed"),
    ("smooth the movie in x, y and t with a Gaussian of σ = 1", "denoise_movie"),
    # cells are what an image of the whole movie shows
    ("one image of each pixel's brightest value over the session, so every cell that ever fired is visible",
     "max_projection"),
    # what the writer plans next, and the behaviour of a median curve, ask nothing
    ("Could you make the time-averaged image? We'll use it next month to compare sessions across days.", "mean_projection"),
    ("write up the ensemble's uncertainty in prose: median behaviour, band widths and outliers",
     "generate_uncertainty_report"),
    ("rise and half-decay times of the transients, comparing 8s with 6f", "event_kinetics"),  # indicator variants
    ("label every ROI as soma or not from its trace skewness, size and compactness", "classify_cells"),
    ("an overview of our behaviour.csv (reward count, lick latency, one row per trial): rows, columns, basic stats",
     "describe_table"),
    ("graph the dF/F of the cells with dots on the events", "plot_traces"),
    ("a time-varying F0 per ROI over a 10 s window, movie at 15 Hz", "baseline_running"),
])
def test_served_whatever_surrounds_the_ask(minilm, clause: str, action: str) -> None:  # noqa: ANN001
    """The data's story, names, descriptions, plans, what a decision reads from, and words read for what they say
    leave a served ask served."""
    c = decided(minilm, clause, action)
    assert c.accepted, c.reason
