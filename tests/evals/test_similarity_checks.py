"""The bit-parallel edit distance and LCS agree with the textbook dynamic programmes."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from planexec.evals.similarity_checks import lcs_length, levenshtein_distance, rouge_l

text = st.text(alphabet="abcdé ", max_size=90)


def dp_levenshtein(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def dp_lcs(a: list, b: list) -> int:
    prev = [0] * (len(b) + 1)
    for ca in a:
        cur = [0]
        for j, cb in enumerate(b, 1):
            cur.append(prev[j - 1] + 1 if ca == cb else max(prev[j], cur[j - 1]))
        prev = cur
    return prev[-1]


@settings(max_examples=300)
@given(text, text)
def test_levenshtein_matches_dynamic_programming(a: str, b: str) -> None:
    assert levenshtein_distance(a, b) == dp_levenshtein(a, b)


@settings(max_examples=300)
@given(text, text)
def test_lcs_matches_dynamic_programming(a: str, b: str) -> None:
    assert lcs_length(a, b) == dp_lcs(list(a), list(b))


@given(st.lists(st.sampled_from(["a", "b", "c", "d"]), max_size=150), st.lists(st.sampled_from(["a", "b", "c"]), max_size=150))
def test_lcs_on_long_token_lists(a: list[str], b: list[str]) -> None:
    assert lcs_length(a, b) == dp_lcs(a, b)


def test_known_distances() -> None:
    assert levenshtein_distance("kitten", "sitting") == 3
    assert levenshtein_distance("", "abc") == 3
    assert levenshtein_distance("flaw", "lawn") == 2


def test_rouge_l_f1() -> None:
    # reference 6 tokens, candidate 4 tokens, LCS "the cat the mat" = 4 -> P=1, R=4/6
    assert rouge_l("the cat the mat", "the cat sat on the mat") == 2 * 1 * (4 / 6) / (1 + 4 / 6)
    assert rouge_l("Same words.", "same WORDS") == 1.0
    assert rouge_l("", "x") == 0.0
