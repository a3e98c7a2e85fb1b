"""Method names the library never says: read from their form, known through the library's words or initials."""

from __future__ import annotations

from planexec.actions import Action
from planexec.coverage import Judge, library_vocabulary
from planexec.coverage_names import Vocabulary, method_names, unknown_methods
from planexec.similarity import KeywordScorer

SEGMENT = Action("segment_blobs", "run_capability", "capability",
                 "Find cells as Laplacian-of-Gaussian blobs on the mean image.", ("mean_image",),
                 ("cell_labels",), examples=("segment the cells", "maximum intensity projection of the stack"),
                 title="Segment cells by blob detection")


def test_names_are_read_from_their_form_not_from_a_list() -> None:
    assert method_names("segment the cells with a U-Net") == ["U-Net"]
    assert method_names("infer spikes with MLspike and a Kalman filter") == ["MLspike", "Kalman"]
    assert method_names("denoise the frames with BM3D") == ["BM3D"]
    assert method_names("register the frames with optical flow") == ["optical flow"]
    # units, ordinals, notation and the first word of a clause are not method names
    assert method_names("Count the cells, 12 px wide at 30 Hz, dF/F over F0 of the 10th percentile") == []


def test_a_name_is_known_when_the_library_says_it_or_spells_out_its_initials() -> None:
    vocab = Vocabulary.of([*SEGMENT.texts, SEGMENT.title])
    assert unknown_methods("LoG blob detection of the somata", vocab) == []
    assert unknown_methods("MIP of the movie", vocab) == []
    assert unknown_methods("segment the cells by Laplacian-of-Gaussian", vocab) == []
    assert unknown_methods("segment the cells with CNMF", vocab) == ["CNMF"]
    # initials must come from content words: 'per cell and' does not spell PCA
    assert not Vocabulary.of(["events per cell and event rate"]).knows("PCA")


def test_an_unknown_method_is_served_by_no_action_however_close_the_wording() -> None:
    judge = Judge.for_scorer(KeywordScorer(), threshold=0.0)
    (same,) = judge.candidates("segment the cells", [SEGMENT])
    (unet,) = judge.candidates("segment the cells with a U-Net", [SEGMENT])
    assert same.accepted
    assert not unet.accepted and "U-Net" in unet.reason
    # the whole library's words count: a method another action names is left to the term rules
    other = Action("segment_cnmf", "run_capability", "capability", "Segment cells with CNMF.", ("images",),
                   ("cell_labels",), title="Segment cells (CNMF)")
    judge = Judge(judge.scorer, judge.policy, vocabulary=library_vocabulary([SEGMENT, other]))
    (cnmf,) = judge.candidates("segment the cells with CNMF", [SEGMENT])
    assert "CNMF" not in cnmf.reason
