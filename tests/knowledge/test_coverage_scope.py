"""What an action must name to serve a clause (issue 12, 2026-11-27 round): a part or split of the data,
a relation between two things, an external variable or a figure kind; and what a clause says that is not
asked of the action: its purpose, the step it comes before, what its input already went through."""

from __future__ import annotations

import dataclasses

import pytest

from planexec.actions import actions_from
from planexec.coverage import Judge, library_vocabulary
from planexec.coverage_names import method_names, unknown_methods
from planexec.coverage_tables import missing_columns, named_columns
from planexec.coverage_terms import objects, without_purpose
from planexec.knowledge.reuse import extract_terms
from planexec.knowledge.starters import read_capability_dir
from planexec.knowledge.store import default_seed_dir
from planexec.similarity import EmbeddingScorer
from planexec.tools import default_registry


@pytest.mark.parametrize(("text", "group", "term"), [
    ("mean image of only the first 100 frames", "scope", "subset"),
    ("average the frames of each trial separately", "scope", "split"),
    ("map of neuropil fluorescence per pixel", "scope", "per_pixel"),
    ("distance between every pair of cell centroids", "measure", "distance"),
    ("distance between every pair of cell centroids", "relation", "pairwise"),
    ("correlation between each cell and its neuropil", "relation", "versus"),
    ("correlate each neuron's activity with the running speed", "measure", "external"),
    ("a violin plot of the amplitudes", "plot", "violin"),
    ("outliers of the band-depth boxplot", "depth", "band_depth"),
    ("middle value of revenue", "statistic", "median"),
])
def test_the_lexicon_reads_the_new_specifics(text: str, group: str, term: str) -> None:
    assert term in extract_terms(text).groups.get(group, frozenset())


def test_a_whole_recording_and_a_per_cell_axis_are_no_subset_or_split() -> None:
    for text in ("average the frames over the whole recording", "the dF/F trace of each cell",
                 "Pearson correlation of every cell pair's traces over time"):
        assert "scope" not in extract_terms(text).groups, text


def test_purpose_next_step_and_input_history_are_not_asked() -> None:
    assert without_purpose("maximum image so I can see every cell that lit up at least once").strip() == "maximum image"
    assert "comparison" not in extract_terms(without_purpose("peak image so I can spot cells that fired at least once")).groups
    assert "task" not in extract_terms(without_purpose("low-pass the movie before segmenting")).groups
    assert "task" not in extract_terms(without_purpose("detect ROIs in the registered recording")).groups
    # the task asked stays
    assert extract_terms(without_purpose("register the movie")).groups["task"] == {"register"}


def test_frames_beside_events_are_times_and_references_are_the_literature() -> None:
    assert objects("which frames have transients?") == {"event"}
    assert "image" in objects("how many frames are corrupted by motion")
    assert "paper" in objects("cite a source for the dF/F definition")
    assert "paper" not in objects("align every frame to the reference image")


def test_method_names_in_lower_case_and_qualified_names() -> None:
    assert method_names("infer spikes with MLspike and a Kalman filter") == ["MLspike", "Kalman"]
    assert method_names("Kalman-filter the stack") == ["Kalman"]
    assert method_names("mahalanobis outliers among the curves") == ["mahalanobis"]
    vocab = library_vocabulary(library())
    assert unknown_methods("LoG-based ROI detection", vocab) == []
    assert unknown_methods("turn the raw fluorescence into deltaF over F", vocab) == []


def test_table_columns_are_found_where_the_clause_names_them() -> None:
    columns = ["date", "region", "product", "units", "revenue"]
    assert named_columns("how spread out is the units column? give its standard deviation", columns) == ["units"]
    assert missing_columns("what is the largest single revenue figure", columns) == []
    assert missing_columns("what is the mean profit", columns) == ["profit"]


def library() -> list:
    return actions_from(default_registry(), read_capability_dir(default_seed_dir()))


@pytest.mark.parametrize(("clause", "action", "served"), [
    ("compute the mean image of the movie", "mean_projection", True),
    ("mean image of only the first 100 frames", "mean_projection", False),
    ("average the frames within each trial separately", "mean_projection", False),
    ("measure the area of each cell", "region_properties", True),
    ("distance between every pair of cell centroids", "region_properties", False),
    ("subtract the neuropil from each cell's trace", "extract_neuropil", True),
    ("correlation between each cell and its neuropil", "extract_neuropil", False),
    ("detect ROIs from activity in the registered movie", "segment_cells", True),
    ("maximum-intensity image so I can see every cell that lit up at least once", "max_projection", True),
    ("denoise my podcast audio recording", "denoise_movie", False),
    ("stacked dF/F traces with the events ticked", "plot_traces", True),
])
def test_the_decision_on_one_action(minilm, clause: str, action: str, served: bool) -> None:
    actions = library()
    judge = dataclasses.replace(Judge.for_scorer(EmbeddingScorer(minilm)), vocabulary=library_vocabulary(actions))
    cand = judge.candidates(clause, [a for a in actions if a.name == action])[0]
    assert cand.accepted is served, cand.reason


def test_a_clause_that_states_parameters_asks_nothing_and_a_dash_before_a_question_splits() -> None:
    from planexec.actions import split_clauses
    from planexec.coverage import NOTHING, assess_clause

    clauses = split_clauses("the somata are roughly 7 px wide - how many cells does the movie contain?")
    assert clauses == ["the somata are roughly 7 px wide", "how many cells does the movie contain?"]
    judge = Judge.for_scorer(EmbeddingScorer(_Fixed()))
    stated = assess_clause("this was imaged at 10 Hz", library(), judge)
    assert stated.served_by == NOTHING and "fs=10" in stated.reason
    # a question or a request that gives a parameter still asks something
    assert assess_clause("count the cells imaged at 10 Hz", library(), judge).served_by != NOTHING
    assert assess_clause("the cells that are larger than 8 px", library(), judge).served_by != NOTHING
    assert split_clauses("plot the traces - no events marked") == ["plot the traces and no events marked"]


class _Fixed:
    """An embedder whose vectors do not matter for decisions made before any similarity is computed."""

    dim = 4

    def embed(self, texts):
        import numpy as np

        return np.ones((len(texts), 4), dtype=np.float32) / 2.0


def test_the_format_an_output_is_saved_in_is_not_an_object_and_foreign_objects_are_named() -> None:
    from planexec.coverage_terms import foreign_words, worked_on

    assert worked_on("save a functional boxplot of the curves as an image") == {"curve"}
    assert foreign_words("denoise my podcast audio recording") == ["podcast", "audio"]


def test_a_foreign_object_refuses_with_its_words(minilm) -> None:
    actions = library()
    judge = dataclasses.replace(Judge.for_scorer(EmbeddingScorer(minilm)), vocabulary=library_vocabulary(actions))
    # (not "denoise my podcast audio recording": a labelled near miss of denoise_movie says that, and its why wins)
    cand = judge.candidates("clean the hiss out of my podcast audio", [a for a in actions if a.name == "denoise_movie"])[0]
    assert not cand.accepted and "podcast, audio" in cand.reason, cand.reason


def test_a_denied_choice_of_an_argument_is_no_conflict_only_when_another_choice_is_asked(minilm) -> None:
    actions = library()
    judge = dataclasses.replace(Judge.for_scorer(EmbeddingScorer(minilm)), vocabulary=library_vocabulary(actions))
    stats = [a for a in actions if a.name == "compute_functional_boxplot_statistics"]
    plain = judge.candidates("functional boxplot statistics with plain band depth (BD) rather than MBD", stats)[0]
    assert plain.accepted, plain.reason
    assert stats[0].args_for("band depth rather than MBD").get("method") == "bd"
    other = judge.candidates("functional boxplot statistics with extremal depth instead of band depth", stats)[0]
    assert not other.accepted
    # the plan never sets the choice the clause denies
    assert stats[0].args_for("extremal depth instead of band depth").get("method") != "bd"
    # a step the plan adds upstream serves no clause: the whole request chooses (requests_heldout25)
    assert stats[0].args_for("", "Rank them by band depth, not the modified one. Which curve is the median?")["method"] == "bd"
    assert stats[0].args_for("with MBD", "Rank them by band depth first.").get("method") != "bd"


def test_hyphenated_method_families_and_units_that_look_like_names() -> None:
    assert method_names("optical-flow based registration") == ["optical-flow"]
    assert method_names("segment the cells with a U-Net") == ["U-Net"]
    assert method_names("peaks more than 3.5 robust SDs above the median") == []


def test_a_time_series_is_no_object_and_an_image_file_asks_for_a_figure(minilm) -> None:
    assert objects("Fiji Z Project with Max Intensity on the time series") == frozenset()
    actions = library()
    judge = dataclasses.replace(Judge.for_scorer(EmbeddingScorer(minilm)), vocabulary=library_vocabulary(actions))
    fig = judge.candidates("PNG of the fbplot for curves.npy", [a for a in actions if a.name == "plot_functional_boxplot"])[0]
    assert "figure only" not in fig.vetoes, fig.reason


@pytest.mark.parametrize(("text", "group", "term"), [
    ("add all frames together into a summed-intensity image", "projection", "sum_projection"),
    ("rank the curves by extremal depth", "depth", "other_depth"),
    ("spaghetti plot of all ensemble members", "plot", "spaghetti"),
    ("surface boxplot of the 2D fields", "plot", "render_3d"),
    ("correct the axial (z) motion", "scope", "axial"),
    ("total neuron count for this FOV", "statistic", "count"),
    ("give me a tally of the neurons", "statistic", "count"),
])
def test_more_specifics_the_lexicon_reads(text: str, group: str, term: str) -> None:
    assert term in extract_terms(text).groups.get(group, frozenset())


def test_context_is_not_a_specific() -> None:
    assert "sum" not in extract_terms("total neuron count for this FOV").groups.get("statistic", frozenset())
    assert "min" not in extract_terms("its only a 2 min recording").groups.get("statistic", frozenset())
    assert "comparison" not in extract_terms("my traces bleach a lot over 20 min").groups
    assert "max" not in extract_terms("seeds at local maxima of the image").groups.get("statistic", frozenset())
    assert "action" not in extract_terms("the spreadsheet export from our behavioural sessions").groups
    assert "simulate" not in extract_terms("read my simulated hydrographs").groups.get("action", frozenset())
    assert "simulate" in extract_terms("give me 60 simulated curves").groups.get("action", frozenset())
    assert objects("for each neuron (F - F0)/F0, frame by frame") == {"cell"}
    assert objects("stack the traces in one figure") == {"trace"}
    assert "paper" not in objects(without_purpose("summarise the events for the paper"))


def test_courtesy_preparation_and_quoted_words_name_no_method() -> None:
    assert method_names("We imaged a Thy1-GCaMP6s mouse in V1. Please find every cell") == []
    assert method_names("Could you low-pass it? Resonant scanner at 30 Hz") == []
    assert method_names("fbplot using band depth, title 'July runs'") == []
    assert "random_walker" in method_names("segment the FOV with skimage's random_walker")
    assert method_names("Li threshold followed by watershed") == ["Li threshold"]
