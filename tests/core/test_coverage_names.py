"""Method names the library never says: read from their form, known through the library's words or initials."""

from __future__ import annotations

import pytest

from planexec.actions import Action
from planexec.coverage import Judge, library_vocabulary
from planexec.coverage_names import Vocabulary, method_names, people, unknown_methods
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


@pytest.mark.parametrize(("text", "who"), [
    ("Hiya, registered movie is in the state. segment cells pls. ta, Kim", {"Kim"}),
    ("Hi Aya, before Tomas segments, please motion-correct the movie. Thanks, Per", {"Aya", "Tomas", "Per"}),
    ("Milo already detected transients with the peak finder; Kinetics plots are Ana's job later.", {"Milo", "Ana"}),
    ("Registration was done by Ute on Monday. The events from Gil's peak finder are in.", {"Ute", "Gil"}),
    ("Arne's segmentation gave us the ROI list, and Theo is doing the region properties.", {"Arne", "Theo"}),
    ("Hugo says zero-lag correlation is what the old paper used.", {"Hugo"}),
])
def test_people_are_read_from_what_only_people_do(text: str, who: set[str]) -> None:
    assert people(text) == who
    assert not set(method_names(text)) & who


@pytest.mark.parametrize(("text", "method"), [
    ("segment the cells with Cellpose's segmentation", "Cellpose"),
    ("I want the cells segmented by Cellpose.", "Cellpose"),
    ("the depth computed by Fraiman-Muniz", "Fraiman-Muniz"),
    ("denoise the Wiener filtered movie again", "Wiener"),
    ("then segment with Otsu thresholding", "Otsu"),
])
def test_a_method_named_like_a_person_stays_a_method(text: str, method: str) -> None:
    assert method in method_names(text) and method not in people(text)


def test_a_signed_request_is_judged_on_its_ask_not_on_its_signature() -> None:
    judge = Judge.for_scorer(KeywordScorer(), threshold=0.0)
    (signed,) = judge.candidates("Hiya, the mean image is ready. segment the cells pls. ta, Bex", [SEGMENT])
    assert "Bex" not in signed.reason
