"""Ancestry and merge bases on commits made within the same second (dulwich's date-ordered
walks got these wrong, and a node merged its own usage record twice)."""

from __future__ import annotations

from dulwich.objects import Commit, Tree
from dulwich.repo import MemoryRepo
from hypothesis import given, settings
from hypothesis import strategies as st

from planexec.knowledge.gitstore import ancestors, is_ancestor, merge_base


def _graph(salt: str, stamps: list[int]) -> tuple[MemoryRepo, dict[str, bytes]]:
    """init -> x -> a1 -> a2 and x -> b1; m merges b1 and a2 (b's merge of a's work)."""
    repo = MemoryRepo()
    tree = Tree()
    repo.object_store.add_object(tree)
    ids: dict[str, bytes] = {}
    for (name, parents), stamp in zip((("init", []), ("x", ["init"]), ("a1", ["x"]), ("a2", ["a1"]),
                                        ("b1", ["x"]), ("m", ["b1", "a2"])), stamps, strict=True):
        commit = Commit()
        commit.tree = tree.id
        commit.parents = [ids[p] for p in parents]
        commit.author = commit.committer = b"t <t@localhost>"
        commit.author_time = commit.commit_time = stamp
        commit.author_timezone = commit.commit_timezone = 0
        commit.message = f"{name} {salt}".encode()
        repo.object_store.add_object(commit)
        ids[name] = commit.id
    return repo, ids


@settings(max_examples=150, deadline=None)
@given(salt=st.text(max_size=8), spread=st.lists(st.integers(0, 1), min_size=6, max_size=6))
def test_ancestry_and_merge_base_do_not_depend_on_commit_times(salt: str, spread: list[int]) -> None:
    stamps = [1_795_484_805 + sum(spread[: i + 1]) for i in range(6)]  # equal or one second apart
    repo, c = _graph(salt, stamps)
    assert is_ancestor(repo, c["a2"], c["m"]) and is_ancestor(repo, c["b1"], c["m"])
    assert not is_ancestor(repo, c["m"], c["a2"]) and not is_ancestor(repo, c["a2"], c["b1"])
    assert is_ancestor(repo, c["m"], c["m"])
    assert merge_base(repo, c["a2"], c["m"]) == c["a2"]
    assert merge_base(repo, c["a2"], c["b1"]) == c["x"]
    assert merge_base(repo, c["b1"], c["a2"]) == c["x"]
    assert ancestors(repo, [c["a1"]]) == {c["init"], c["x"], c["a1"]}


def test_unrelated_histories_have_no_merge_base() -> None:
    one, c1 = _graph("one", [1] * 6)
    two, c2 = _graph("two", [1] * 6)
    for sha in c2.values():
        one.object_store.add_object(two[sha])
    assert merge_base(one, c1["m"], c2["m"]) is None
