"""The coverage decision per clause: served, uncovered (with candidates and reasons) or out of scope."""

from __future__ import annotations

import dataclasses

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from planexec.actions import Action, split_clauses
from planexec.coverage import INPUT, Coverage, Judge, assess, in_domain
from planexec.coverage_terms import worked_on
from planexec.models import PlanStep
from planexec.similarity import KeywordScorer
from planexec.tools.base import ToolContext, ToolOutput

ACTIONS = [
    Action("count_cells", "run_capability", "capability", "Count the detected cells.", ("cell_centroids",),
           ("n_cells",), examples=("how many neurons are there", "number of cells in the image"),
           title="Count cells", tags=("count", "cells")),
    Action("baseline_running", "run_capability", "capability",
           "Estimate each cell's baseline F0 with a sliding minimum of the smoothed trace.", ("roi_traces",),
           ("baseline",), examples=("estimate the baseline fluorescence of each trace",), title="Running baseline"),
    Action("plot_cells", "run_capability", "capability", "Draw the segmented cells outlined on the mean image.",
           ("cell_labels",), ("fig_cells",), examples=("show the detected cells", "how many cells are outlined"),
           title="Figure: cells"),
    Action("segment_otsu", "run_capability", "capability", "Segment cells with an Otsu threshold of the image.",
           ("images",), ("cell_labels", "cell_centroids"), examples=("find the cells in the images",),
           title="Segment cells (Otsu)"),
]


def cover(request: str, has_input: bool = True) -> Coverage:
    return assess(request, ACTIONS, KeywordScorer(), has_input=has_input)


def test_out_of_scope_requests_are_refused_not_mapped() -> None:
    for request in ("Bake me a chocolate cake", "What is the capital of France?"):
        cov = cover(request)
        assert not cov.complete
        assert cov.out_of_scope == cov.clauses
        assert cov.clauses[0].served_by is None and cov.uncovered == ()
        assert "out of scope" in cov.message() and "Nothing was run" in cov.message()


def test_a_conflicting_measure_is_not_served_by_the_nearest_action() -> None:
    cov = cover("Compute the skewness of each cell trace")
    (clause,) = cov.uncovered
    assert clause.served_by is None
    assert clause.candidates, "the closest candidates are named"
    assert any("skewness" in c.reason for c in clause.candidates)
    assert "LLM backend" in cov.message() and "skewness" in cov.message()


def test_a_covered_clause_names_what_serves_it() -> None:
    cov = cover("count the cells")
    assert cov.complete and cov.covered[0].served_by == "count_cells"
    assert cov.covered[0].candidates[0].accepted


def test_a_figure_does_not_serve_a_clause_that_asks_for_a_number() -> None:
    judge = Judge.for_scorer(KeywordScorer())
    cands = {c.name: c for c in judge.candidates("how many cells are outlined", ACTIONS)}
    assert not cands["plot_cells"].accepted and "figure" in cands["plot_cells"].reason


def test_a_clause_that_only_names_the_input_is_served_by_it() -> None:
    cov = cover("Load the images, then count the cells")
    assert [c.served_by for c in cov.clauses] == [INPUT, "count_cells"]
    assert not cover("Load the images", has_input=False).complete


def test_mixed_requests_name_every_unserved_clause() -> None:
    cov = cover("count the cells, then compute the kurtosis of each trace; bake a cake")
    assert [c.served_by for c in cov.covered] == ["count_cells"]
    assert len(cov.uncovered) + len(cov.out_of_scope) == 2
    data = cov.to_dict()
    assert [c["clause"] for c in data["clauses"]] == [c.clause for c in cov.clauses]


def test_domain_words_come_from_the_actions_and_the_field() -> None:
    assert in_domain("segment the neurons", ACTIONS)
    assert not in_domain("write me a poem about autumn", ACTIONS)


@settings(max_examples=60, deadline=None)
@given(st.text(min_size=1, max_size=80).filter(lambda s: s.strip()))
def test_every_clause_is_decided_exactly_once(request: str) -> None:
    cov = cover(request)
    assert [c.clause for c in cov.clauses] == split_clauses(request)
    parts = len(cov.covered) + len(cov.uncovered) + len(cov.out_of_scope)
    assert parts == len(cov.clauses)
    assert cov.complete == (not cov.uncovered and not cov.out_of_scope)


def test_verification_checks_the_kind_of_result_the_clause_asks_for() -> None:
    from planexec.verifier import heuristic_verdict

    figure_only = ToolOutput({"fig_cells": "cells.png"}, artifacts=["out/cells.png"])
    asks_number = PlanStep(1, "Figure: cells", ("run_capability",), serves="how many cells are active")
    verdict = heuristic_verdict(asks_number, figure_only, ToolContext())
    assert not verdict.ok and "asks for a number" in verdict.reason
    asks_plot = PlanStep(1, "Count cells", ("run_capability",), serves="plot the cells")
    verdict = heuristic_verdict(asks_plot, ToolOutput({"n_cells": 6}, results={"n_cells": 6}), ToolContext())
    assert not verdict.ok and "asks for a figure" in verdict.reason
    assert heuristic_verdict(PlanStep(1, "Count cells", ("t",), serves="how many cells are there"),
                             ToolOutput({"n_cells": 6}), ToolContext()).ok
    assert heuristic_verdict(asks_plot, figure_only, ToolContext()).ok


def test_how_many_is_answered_only_by_the_steps_own_number() -> None:
    """Scalars left in the run by earlier steps, or a capability's version, do not answer "how many"."""
    from planexec.verifier import heuristic_verdict

    earlier = ToolContext(state={"variables": {"diameter_px": 6.4, "n_bad_frames": 0, "n_transients": 18}})
    classified = ToolOutput({"iscell": np.ones((6, 2)), "cell_features": [{"roi": 0}], "capability_id": "classify_cells",
                             "version": 1})
    step = PlanStep(7, "Classify ROIs as cells", ("run_capability",), serves="how many ROIs are active?",
                    outputs=("iscell", "cell_features"))
    verdict = heuristic_verdict(step, classified, earlier)
    assert not verdict.ok and "no single number" in verdict.reason
    undeclared = dataclasses.replace(step, outputs=())
    assert not heuristic_verdict(undeclared, classified, earlier).ok
    counted = ToolOutput({"n_cells": 6, "capability_id": "count_cells", "version": 1}, results={"n_cells": 6})
    assert heuristic_verdict(dataclasses.replace(step, outputs=("n_cells",)), counted, earlier).ok


def test_an_action_that_never_names_what_the_clause_is_about_does_not_serve_it() -> None:
    judge = Judge.for_scorer(KeywordScorer())
    cands = {c.name: c for c in judge.candidates("count the events in each neuron", ACTIONS)}
    assert not cands["count_cells"].accepted and "not event" in cands["count_cells"].reason
    assert {c.name for c in judge.candidates("count the neurons", ACTIONS) if c.accepted} >= {"count_cells"}


def test_a_denied_specific_is_not_matched_on_the_shared_word() -> None:
    from planexec.coverage_terms import Named, denial_conflicts, split_negated

    assert split_negated("peak detection without deconvolution")[1].strip() == "deconvolution"
    assert split_negated("cell or not for each ROI")[1] == "", "'or not' denies nothing"
    peaks = Named.of("find peaks of the traces, no deconvolution")
    assert denial_conflicts(Named.of("infer spikes by deconvolution"), peaks)
    assert denial_conflicts(Named.of("functional boxplot statistics, no figure"), Named.of("plot the boxplot figure"))
    plain = Action("extract_plain", "run_capability", "capability", "Extract plain traces without neuropil correction.",
                   ("images",), ("roi_traces",), title="Plain traces")
    judge = Judge.for_scorer(KeywordScorer(), threshold=0.0)
    cand = judge.candidates("extract the traces and subtract the neuropil", [plain])[0]
    assert not cand.accepted and "not neuropil" in cand.reason


def test_a_count_is_served_only_by_an_action_that_outputs_one() -> None:
    classify = Action("classify", "run_capability", "capability", "Decide cell or not for each ROI.",
                      ("cell_labels",), ("iscell",), examples=("which ROIs are cells",), title="Classify ROIs")
    judge = Judge.for_scorer(KeywordScorer(), threshold=0.0)
    cand = judge.candidates("how many ROIs are cells?", [classify, ACTIONS[0]])
    by_name = {c.name: c for c in cand}
    assert not by_name["classify"].accepted and "count" in by_name["classify"].reason
    assert by_name["count_cells"].accepted


def test_an_actions_objects_include_what_its_variables_hold() -> None:
    from planexec.coverage_terms import variable_objects

    assert variable_objects(["images_registered"]) == {"image"}
    assert {"cell", "trace"} <= variable_objects(["roi_traces"])
    assert "neuropil" in variable_objects(["Fneu"])


def test_a_purpose_or_a_time_span_is_not_what_a_clause_works_on() -> None:
    assert worked_on("make a neighbourhood correlation map of the movie to find dim active cells") == {"image"}
    assert worked_on("a baseline that follows bleaching over the recording") == frozenset()
    assert worked_on("count the cells of the movie") == {"cell", "image"}
    # the recording a clause is about describes its data ("in this CA1 recording"), like how it was acquired
    assert worked_on("count the cells in the recording") == {"cell"}
    assert worked_on("how many transients are there in this movie?") == {"event"}


def test_a_cell_type_or_a_statistical_test_the_action_never_names_is_not_done() -> None:
    classify = Action("classify_cells", "run_capability", "capability", "Decide cell or not for each ROI.",
                      ("roi_traces",), ("iscell",), examples=("classify the ROIs", "which ROIs are cells"),
                      title="Classify ROIs as cells")
    judge = Judge.for_scorer(KeywordScorer(), threshold=0.0)
    (plain,) = judge.candidates("classify the cells", [classify])
    (typed,) = judge.candidates("classify the cells into excitatory and inhibitory neurons", [classify])
    (ttest,) = judge.candidates("run a t-test between the first and the second half of the recording", ACTIONS[:1])
    assert plain.accepted
    assert not typed.accepted and "cell_type" in typed.reason
    assert not ttest.accepted and "ttest" in ttest.reason


def test_a_clause_asking_only_to_analyse_the_input_is_served_by_it_whatever_scores_well() -> None:
    cov = assess("Analyze these images", ACTIONS, KeywordScorer(), has_input=True, threshold=-1.0)
    assert [c.served_by for c in cov.clauses] == [INPUT]
    assert "only names its input" in cov.message()


def test_a_task_that_makes_the_actions_inputs_is_where_they_came_from_not_a_conflict() -> None:
    """ "How many ROIs did segmentation find?" names segmentation as the counter's source: the plan runs it first."""
    from planexec.coverage_actions import upstream_tasks

    judge = Judge.for_scorer(KeywordScorer(), threshold=0.0)
    counted = {c.name: c for c in judge.candidates("how many ROIs did the segmentation find?", ACTIONS)}
    assert counted["count_cells"].accepted, counted["count_cells"].reason
    assert upstream_tasks(ACTIONS)["count_cells"] == {"segment"}
    segmenting = {c.name: c for c in judge.candidates("segment the cells", ACTIONS)}
    assert not segmenting["count_cells"].accepted, "a clause that asks only the upstream task is not the counter's"
    alone = judge.candidates("how many ROIs did the segmentation find?", [ACTIONS[0]])[0]
    assert not alone.accepted and "segment" in alone.reason, "without the segmenter in the library, nothing made them"


def test_a_count_a_tool_reports_is_what_it_answers_not_a_statistic_against_its_others() -> None:
    stats = Action("ensemble_stats", "ensemble_stats", "statistics", "Median curve, central 50% band and outliers of "
                   "the curve ensemble by band depth.", ("curves",), ("statistics",), title="Ensemble statistics")
    judge = Judge.for_scorer(KeywordScorer(), threshold=0.0)
    refused = judge.candidates("how many outliers does the curve ensemble have?", [stats])[0]
    assert not refused.accepted and "count" in refused.reason
    reporting = dataclasses.replace(stats, reports=("median_index", "outliers", "n_outliers"))
    assert judge.candidates("how many outliers does the curve ensemble have?", [reporting])[0].accepted
    assert not judge.candidates("what is the skewness of the curve ensemble?", [reporting])[0].accepted


def test_a_tools_own_key_figures_answer_how_many_but_a_capabilitys_passed_through_variables_do_not() -> None:
    from planexec.verifier import heuristic_verdict

    loaded = ToolOutput({"path": "c.npy"}, results={"n_curves": 40, "n_points": 100}, state={"curves": np.zeros((40, 100))})
    step = PlanStep(1, "Load curves", ("load_curves",), serves="how many curves are in the file?", outputs=("curves",))
    assert heuristic_verdict(step, loaded, ToolContext()).ok
    passed = ToolOutput({"iscell": np.ones((6, 2))}, results={"diameter_px": 6.4})
    classify = PlanStep(2, "Classify ROIs as cells", ("run_capability",), serves="how many ROIs are active?",
                        outputs=("iscell",))
    verdict = heuristic_verdict(classify, passed, ToolContext())
    assert not verdict.ok and "no single number" in verdict.reason


def test_a_clause_that_names_nothing_is_about_what_the_clause_before_named() -> None:
    """ "find the transients and give me the total count" counts transients, not cells."""
    events = Action("detect_events", "run_capability", "capability", "Detect calcium transients in the traces.",
                    ("dff",), ("events", "n_transients"), examples=("count the transients",), title="Detect events")
    cov = assess("find the transients and give me the total count", [ACTIONS[0], events], KeywordScorer(), has_input=True)
    assert [c.served_by for c in cov.clauses] == ["detect_events", "detect_events"], cov.message()
