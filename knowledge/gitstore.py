"""A small git layer on dulwich (no git binary): commit a set of file changes as one
commit, read a file at any commit, and list the commits that touched a file."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

AUTHOR = b"planexec <planexec@localhost>"


def new_commit(tree: bytes, parents: list[bytes], message: str) -> Any:
    """A dulwich Commit of `tree` by planexec, dated now (the caller adds it to the object store)."""
    from dulwich.objects import Commit

    commit = Commit()
    commit.tree = tree
    commit.parents = parents
    commit.author = commit.committer = AUTHOR
    commit.author_time = commit.commit_time = int(time.time())
    commit.author_timezone = commit.commit_timezone = 0
    commit.encoding = b"UTF-8"
    commit.message = message.encode("utf-8")
    return commit


def ancestors(repo: Any, heads: list[bytes]) -> set[bytes]:
    """Every commit reachable from `heads`, the heads included, by following parents.

    Exact, unlike dulwich's date-ordered walks (`can_fast_forward`, `find_merge_base`), which
    went wrong on commits made within the same second: a node merged its own usage record twice.
    """
    seen: set[bytes] = set()
    todo = list(heads)
    while todo:
        sha = todo.pop()
        if sha in seen:
            continue
        seen.add(sha)
        todo.extend(repo[sha].parents)
    return seen


def is_ancestor(repo: Any, older: bytes, newer: bytes) -> bool:
    """Whether `older` is `newer` or one of its ancestors (so `newer` fast-forwards from it)."""
    seen: set[bytes] = set()
    todo = [newer]
    while todo:  # stops at `older`: the common case, a fast-forward, reads few commits
        sha = todo.pop()
        if sha == older:
            return True
        if sha not in seen:
            seen.add(sha)
            todo.extend(repo[sha].parents)
    return False


def merge_base(repo: Any, ours: bytes, theirs: bytes) -> bytes | None:
    """The lowest common ancestor of two commits (the newest one if history criss-crosses)."""
    common = ancestors(repo, [ours]) & ancestors(repo, [theirs])
    below = ancestors(repo, [p for sha in common for p in repo[sha].parents])
    lowest = common - below
    if not lowest:
        return None
    return max(lowest, key=lambda sha: (repo[sha].commit_time, sha))


@dataclass(frozen=True)
class CommitInfo:
    """One commit touching a path: its id, message and time (seconds since the epoch)."""

    sha: str
    message: str
    time: int


class GitFiles:
    """The git repository at `root` (created if missing); paths are posix, relative to root."""

    def __init__(self, root: Path) -> None:
        from dulwich.repo import Repo

        self.root = Path(root)
        git = self.root / ".git"
        if git.is_dir() and not (git / "objects").is_dir():
            # An init killed before it made the object store: it holds no data, so start it over.
            shutil.rmtree(git)
        if not git.exists():
            self._init()
        for staging in self.root.glob(".git-init-*"):  # left by a kill mid-init
            shutil.rmtree(staging, ignore_errors=True)
        self.repo = Repo(str(self.root))

    def _init(self) -> None:
        """Create the repository beside root's .git and rename it into place, so a kill
        mid-init leaves either no repository or a whole one."""
        from dulwich.repo import Repo

        self.root.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".git-init-", dir=self.root))
        try:
            Repo.init(str(staging)).close()
            os.replace(staging / ".git", self.root / ".git")
        finally:
            shutil.rmtree(staging, ignore_errors=True)

    def close(self) -> None:
        self.repo.close()

    def clear_stale_locks(self) -> int:
        """Remove `.lock` files a killed writer left in .git (call only while holding the store lock:
        every writer holds it, so a git lock seen then has no live owner)."""
        git = self.root / ".git"
        removed = 0
        # Loose objects too: dulwich writes each one through `<sha>.lock`, which a kill can leave.
        for lock in [*git.glob("*.lock"), *(git / "refs").rglob("*.lock"), *(git / "objects").glob("*/*.lock")]:
            lock.unlink(missing_ok=True)
            removed += 1
        return removed

    def head(self) -> str | None:
        try:
            return self.repo.refs[b"HEAD"].decode()
        except KeyError:
            return None

    def _tree(self, commit: str | None) -> object | None:
        if commit is None:
            return None
        return self.repo.object_store[self.repo.object_store[commit.encode()].tree]

    def read(self, path: str, commit: str | None = None) -> bytes | None:
        """The content of `path` at `commit` (default HEAD), or None when absent there."""
        from dulwich.object_store import tree_lookup_path

        tree = self._tree(commit or self.head())
        if tree is None:
            return None
        try:
            _, sha = tree_lookup_path(self.repo.object_store.__getitem__, tree.id, path.encode())
            return self.repo.object_store[sha].data
        except KeyError:  # absent there, or its object is missing (fsck names those)
            return None

    def head_sound(self) -> bool:
        """Whether HEAD's commit and root tree can be read (a commit on top needs them)."""
        head = self.head()
        if head is None:
            return True
        try:
            self._tree(head)
            return True
        except KeyError:
            return False

    def commit(self, changes: dict[str, bytes | None], message: str, *, update_index: bool = False,
               fresh: bool = False) -> str:
        """Write `changes` (path -> content, None deletes) as one commit on HEAD; return its id.

        With `fresh` the commit's tree holds only `changes` (a repair when HEAD's tree is damaged);
        HEAD stays its parent when that commit can still be read.

        Commits are built from trees directly, so git's staging index is not needed and is left
        alone unless `update_index` (it costs a full index rewrite per commit: ~10x a save).
        """
        from dulwich.objects import Blob, Tree

        store = self.repo.object_store
        head = self.head()
        if fresh and head is not None and head.encode() not in self.repo.object_store:
            head = None
        root = Tree() if fresh else (self._tree(head) or Tree())
        blobs: dict[str, bytes | None] = {}
        nested: dict[str, object] = {}
        for path, data in changes.items():
            blob = None if data is None else Blob.from_string(data)
            if blob is not None:
                store.add_object(blob)
            blobs[path] = None if blob is None else blob.id
            *folders, name = path.split("/")
            node = nested
            for folder in folders:
                node = node.setdefault(folder, {})  # type: ignore[assignment]
            node[name] = blobs[path]

        def apply(tree: Tree, edits: dict[str, object]) -> Tree:
            new = Tree.from_string(tree.as_raw_string())  # a private copy, parsed by dulwich's C code
            for name, edit in edits.items():
                key = name.encode()
                if isinstance(edit, dict):
                    child = apply(store[new[key][1]] if key in new else Tree(), edit)
                    if len(child):
                        store.add_object(child)
                        new.add(key, 0o040000, child.id)
                    elif key in new:
                        del new[key]
                elif edit is None:
                    if key in new:
                        del new[key]
                else:
                    new.add(key, 0o100644, edit)
            return new

        tree = apply(root, nested)
        store.add_object(tree)
        commit = new_commit(tree.id, [head.encode()] if head else [], message)
        store.add_object(commit)
        self.repo.refs[b"HEAD"] = commit.id
        if update_index:
            self._update_index(blobs)
        return commit.id.decode()

    def fsck(self, limit: int | None = None) -> list[str]:
        """Problems in the objects reachable from HEAD (missing or corrupt commits, trees, blobs),
        like `git fsck` for what this store writes; `limit` bounds the commits walked."""
        from dulwich.objects import Commit, Tree

        head = self.head()
        if head is None:
            return []
        store = self.repo.object_store
        problems: list[str] = []
        seen: set[bytes] = set()

        def get(sha: bytes, what: str) -> object | None:
            try:
                obj = store[sha]
                obj.check()
                return obj
            except KeyError:
                problems.append(f"missing {what} {sha.decode()[:10]}")
            except Exception as exc:  # noqa: BLE001 - dulwich raises several kinds for corrupt objects
                problems.append(f"corrupt {what} {sha.decode()[:10]} ({type(exc).__name__})")
            return None

        def walk_tree(sha: bytes, where: str) -> None:
            if sha in seen:
                return
            seen.add(sha)
            tree = get(sha, f"tree {where or '/'}")
            if isinstance(tree, Tree):
                for entry in tree.items():
                    path = f"{where}/{entry.path.decode()}"
                    if entry.mode == 0o040000:
                        walk_tree(entry.sha, path)
                    elif entry.sha not in seen:
                        seen.add(entry.sha)
                        get(entry.sha, f"file {path.lstrip('/')}")

        todo, walked = [head.encode()], 0
        while todo and (limit is None or walked < limit):
            sha = todo.pop()
            if sha in seen:
                continue
            seen.add(sha)
            walked += 1
            commit = get(sha, "commit")
            if isinstance(commit, Commit):
                walk_tree(commit.tree, "")
                todo.extend(commit.parents)
        return problems

    def _update_index(self, blobs: dict[str, bytes | None]) -> None:
        from dulwich.index import index_entry_from_stat

        index = self.repo.open_index()
        for path, sha in blobs.items():
            full = self.root / path
            if sha is None or not full.exists():
                if path.encode() in index:
                    del index[path.encode()]
            else:
                index[path.encode()] = index_entry_from_stat(os.stat(full), sha)
        index.write()

    def log(self, paths: list[str] | None = None, max_entries: int | None = None) -> list[CommitInfo]:
        """Commits touching any of `paths` (all commits if None), newest first."""
        head = self.head()
        if head is None:
            return []
        walker = self.repo.get_walker(
            include=[head.encode()],
            paths=[p.encode() for p in paths] if paths else None,
            order="topo",
            max_entries=max_entries,
        )
        return [
            CommitInfo(e.commit.id.decode(), e.commit.message.decode("utf-8", "replace").strip(), e.commit.commit_time)
            for e in walker
        ]
