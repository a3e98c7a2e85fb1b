"""Share one capability library between machines: each node keeps its own clone (its store
under PLANEXEC_HOME) and synchronises with a git remote through dulwich, no git binary.

The remote is a bare repository on shared storage (a path) or one served over git's
protocol (`git://host:port/path`). `LibrarySync.sync()` fetches the remote branch, merges
it into the local store, and pushes the result; a push that loses a race is retried after
merging again. The merge works per capability, so it never leaves a conflict to a person:

- additions on either side are kept; a capability changed on one side only takes that change;
- the same code changed on both sides (usage records: runs, successes, reuse counts) merges
  its counters as ours + theirs - base, so no run is counted twice or lost;
- different code for one id is resolved by version (then by `updated`, then by code hash,
  the same answer on every node): the winner keeps the id, the loser is kept as an archived
  capability `<id>__v<version>_<sha8>` with `metadata.conflict_of`, so nothing is lost.

Writes take the store's own lock (`<store>/.lock`); call sync between runs, not while a
`CapabilityStore` in this process holds that lock.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from planexec.errors import UsageError
from planexec.knowledge.capfiles import CAP_DIR, PENDING
from planexec.knowledge.fsutil import atomic_write_bytes
from planexec.knowledge.gitstore import GitFiles, is_ancestor, merge_base, new_commit

BRANCH = b"refs/heads/main"
_COUNTERS = ("reuse_count", "runs", "successes")
ZERO = b"0" * 40


@dataclass
class SyncReport:
    """What one synchronisation did."""

    fetched: bool = False
    """The remote had commits this clone did not."""
    merged: bool = False
    """A merge commit was written (both sides had changes)."""
    pushed: bool = False
    """The remote branch now points at this clone's head."""
    conflicts: list[str] = field(default_factory=list)
    """Capability ids whose code differed on both sides (the loser kept under a new id)."""
    attempts: int = 0
    seconds: float = 0.0
    skipped: str = ""
    """Why nothing was done (an interrupted store write waits for the store to recover it)."""


class LibrarySync:
    """Synchronises the capability store at `store_path` with the git remote `remote`."""

    def __init__(self, store_path: Path | str, remote: str, *, max_attempts: int = 8) -> None:
        from dulwich.client import get_transport_and_path

        self.path = Path(store_path).expanduser()
        self.remote = str(remote)
        self.max_attempts = max_attempts
        if "://" not in self.remote:
            init_bare(self.remote)
        self._client, self._remote_path = get_transport_and_path(self.remote)

    # ---- the public operations ---------------------------------------------------------

    def sync(self) -> SyncReport:
        """Pull (fetch + merge) then push, retrying when another node pushed in between."""

        def pull_push(git: GitFiles, report: SyncReport) -> None:
            for attempt in range(1, self.max_attempts + 1):
                report.attempts = attempt
                remote_head = self._fetch(git)
                self._merge(git, remote_head, report)
                if self._push(git, remote_head):
                    report.pushed = True
                    return
                time.sleep(0.05 * attempt)

        return self._locked(SyncReport(), pull_push)

    def pull(self) -> SyncReport:
        """Fetch and merge the remote into the local store, without pushing."""
        return self._locked(SyncReport(attempts=1), lambda git, report: self._merge(git, self._fetch(git), report))

    def _locked(self, report: SyncReport, work: Callable[[GitFiles, SyncReport], None]) -> SyncReport:
        """Run `work` on the store's repository under its file lock, timed; skipped while a write is pending."""
        started = time.perf_counter()
        if (self.path / PENDING).exists():
            report.skipped = "an interrupted store write is pending; the next store open recovers it"
            return report
        from filelock import FileLock

        self.path.mkdir(parents=True, exist_ok=True)
        with FileLock(str(self.path / ".lock")):
            git = GitFiles(self.path)
            try:
                work(git, report)
            finally:
                git.close()
        report.seconds = time.perf_counter() - started
        return report

    def remote_head(self) -> str | None:
        """The remote branch's commit, or None when nothing was pushed yet."""
        refs = self._client.get_refs(self._remote_path)
        sha = _refs_dict(refs).get(BRANCH)
        return sha.decode() if sha and sha != ZERO else None

    # ---- fetch, merge, push ---------------------------------------------------------------

    def _fetch(self, git: GitFiles) -> bytes | None:
        """Fetch the remote branch; returns the head whose objects were fetched (None: empty remote)."""
        seen: list[bytes | None] = []

        def wants(refs: dict[bytes, bytes], depth: int | None = None) -> list[bytes]:
            sha = refs.get(BRANCH)
            seen.append(sha if sha and sha != ZERO else None)
            return [sha] if sha and sha != ZERO and sha not in git.repo.object_store else []

        result = self._client.fetch(self._remote_path, git.repo, determine_wants=wants)
        if seen:  # the refs the objects were chosen from; the returned refs may be newer (a racing push)
            return seen[-1]
        sha = _refs_dict(result.refs).get(BRANCH)
        return sha if sha and sha != ZERO and sha in git.repo.object_store else None

    def _merge(self, git: GitFiles, theirs: bytes | None, report: SyncReport) -> None:
        ours_hex = git.head()
        ours = ours_hex.encode() if ours_hex else None
        if theirs is None or theirs == ours:
            return
        repo = git.repo
        if ours is not None and is_ancestor(repo, theirs, ours):
            return  # the remote is behind us: only a push is needed
        report.fetched = True
        if ours is None or is_ancestor(repo, ours, theirs):
            self._checkout(git, ours, theirs)
            repo.refs[b"HEAD"] = theirs
            return
        base = merge_base(repo, ours, theirs)
        files_base, files_ours, files_theirs = (_files(repo, c) for c in (base, ours, theirs))
        merged, conflicts = merge_files(files_base, files_ours, files_theirs)
        report.conflicts.extend(conflicts)
        commit = _commit(repo, merged, [ours, theirs],
                         f"Merge library from {self.remote}" + (f" ({len(conflicts)} conflict(s) kept)" if conflicts else ""))
        self._write_worktree(files_ours, merged)
        repo.refs[b"HEAD"] = commit
        report.merged = True

    def _push(self, git: GitFiles, remote_head: bytes | None) -> bool:
        from dulwich.errors import HangupException
        from dulwich.file import FileLocked
        from dulwich.protocol import ZERO_SHA

        head_hex = git.head()
        if head_hex is None:
            return True
        head = head_hex.encode()
        if head == remote_head:
            return True

        def update_refs(refs: dict[bytes, bytes]) -> dict[bytes, bytes]:
            current = refs.get(BRANCH, ZERO_SHA)
            if (current if current != ZERO_SHA else None) != remote_head:
                return {}  # someone pushed since we fetched: fetch and merge again
            return {BRANCH: head}

        try:
            result = self._client.send_pack(self._remote_path, update_refs, git.repo.generate_pack_data)
        except (HangupException, FileLocked):  # another node is updating the branch right now
            return False
        if any(result.ref_status.values() if result.ref_status else ()):
            return False
        return self.remote_head() == head_hex  # a git server may drop a lost compare-and-set silently

    # ---- the working files ----------------------------------------------------------------

    def _checkout(self, git: GitFiles, old: bytes | None, new: bytes) -> None:
        self._write_worktree(_files(git.repo, old), _files(git.repo, new), repo=git.repo)

    def _write_worktree(self, before: dict[str, bytes], after: dict[str, bytes], repo: Any = None) -> None:
        """Make the store's files match `after` (path -> content); only changed files are touched."""
        for rel, data in after.items():
            if before.get(rel) != data or not (self.path / rel).exists():
                atomic_write_bytes(self.path / rel, data, sync=False)
        for rel in set(before) - set(after):
            (self.path / rel).unlink(missing_ok=True)


def init_bare(path: str | Path) -> Path:
    """A bare repository at `path` (created if missing), for shared storage or a git server."""
    from dulwich.repo import Repo
    from filelock import FileLock

    target = Path(path).expanduser()
    if (target / "HEAD").exists() and (target / "objects").is_dir():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(target.parent / f".{target.name}.init.lock")):  # several nodes may start at once
        if (target / "HEAD").exists() and (target / "objects").is_dir():
            return target
        if target.exists() and any(target.iterdir()):
            raise UsageError(f"library remote {target} exists and is not a bare git repository; pass an empty folder")
        target.mkdir(parents=True, exist_ok=True)
        Repo.init_bare(str(target)).close()
    return target


# ---- the per-capability merge ---------------------------------------------------------------


def merge_files(
    base: dict[str, bytes], ours: dict[str, bytes], theirs: dict[str, bytes],
) -> tuple[dict[str, bytes], list[str]]:
    """Three-way merge of the store's files; returns the merged files and the conflicting ids."""
    merged: dict[str, bytes] = {}
    for rel in set(ours) | set(theirs):
        if rel.startswith(CAP_DIR + "/"):
            continue
        merged[rel] = ours.get(rel, theirs.get(rel, b""))
    conflicts: list[str] = []
    ids = {_cap_id(rel) for rel in (*ours, *theirs) if rel.startswith(CAP_DIR + "/")}
    for cap_id in sorted(i for i in ids if i):
        b, o, t = (_record(files, cap_id) for files in (base, ours, theirs))
        for record in _merge_record(b, o, t, conflicts):
            merged.update(_encode(record))
    return merged, conflicts


def _merge_record(base: _Rec | None, ours: _Rec | None, theirs: _Rec | None, conflicts: list[str]) -> list[_Rec]:
    if ours == theirs:
        return [ours] if ours else []
    if ours == base:
        return [theirs] if theirs else []
    if theirs == base:
        return [ours] if ours else []
    if ours is None or theirs is None:  # deleted on one side, changed on the other: keep the change
        return [ours or theirs]  # type: ignore[list-item]
    if ours.code == theirs.code:
        return [_merge_usage(base, ours, theirs)]
    winner, loser = sorted((ours, theirs), key=_rank, reverse=True)
    conflicts.append(winner.meta["id"])
    return [winner, _kept_loser(loser, winner)]


@dataclass(frozen=True)
class _Rec:
    """One capability as stored: its JSON record (parsed) and its code."""

    meta: dict[str, Any]
    code: str


def _rank(rec: _Rec) -> tuple[int, str, str]:
    from planexec.knowledge.fsutil import sha256_text

    return int(rec.meta.get("version") or 1), str(rec.meta.get("updated") or ""), sha256_text(rec.code)


def _merge_usage(base: _Rec | None, ours: _Rec, theirs: _Rec) -> _Rec:
    """Same code on both sides: the newer description wins, usage counters add up."""
    newer, older = sorted((ours, theirs), key=lambda r: (str(r.meta.get("updated") or ""), json.dumps(r.meta, sort_keys=True)),
                          reverse=True)
    meta = dict(newer.meta)
    b = base.meta if base and base.code == ours.code else {}
    for key in (*_COUNTERS, "total_seconds"):
        value = (ours.meta.get(key) or 0) + (theirs.meta.get(key) or 0) - (b.get(key) or 0)
        meta[key] = round(value, 6) if key == "total_seconds" else int(value)
    meta["version"] = max(int(ours.meta.get("version") or 1), int(theirs.meta.get("version") or 1))
    used = [u for u in (ours.meta.get("last_used"), theirs.meta.get("last_used")) if u]
    meta["last_used"] = max(used) if used else None
    created = [c for c in (ours.meta.get("created"), theirs.meta.get("created")) if c]
    meta["created"] = min(created) if created else ""
    return _Rec(meta, newer.code)


def _kept_loser(loser: _Rec, winner: _Rec) -> _Rec:
    """The losing version under its own id, archived so it is never reused by accident."""
    from planexec.knowledge.fsutil import sha256_text

    cap_id = winner.meta["id"]
    meta = dict(loser.meta)
    meta["id"] = f"{cap_id}__v{meta.get('version') or 1}_{sha256_text(loser.code)[:8]}"
    meta["archived"] = True
    meta["metadata"] = {**(meta.get("metadata") or {}), "conflict_of": cap_id,
                        "lost_to_version": winner.meta.get("version")}
    return _Rec(meta, loser.code)


def _cap_id(rel: str) -> str:
    name = rel[len(CAP_DIR) + 1:]
    return name.rsplit(".", 1)[0] if "/" not in name and name.endswith((".py", ".json")) else ""


def _record(files: dict[str, bytes], cap_id: str) -> _Rec | None:
    raw = files.get(f"{CAP_DIR}/{cap_id}.json")
    if raw is None:
        return None
    try:
        meta = json.loads(raw)
    except ValueError:
        return None
    return _Rec(meta, files.get(f"{CAP_DIR}/{cap_id}.py", b"").decode("utf-8"))


def _encode(rec: _Rec) -> dict[str, bytes]:
    from planexec.knowledge.fsutil import sha256_text

    meta = dict(rec.meta, code_sha256=sha256_text(rec.code))
    cap_id = meta["id"]
    return {
        f"{CAP_DIR}/{cap_id}.py": rec.code.encode("utf-8"),
        f"{CAP_DIR}/{cap_id}.json": (json.dumps(meta, indent=2, sort_keys=True) + "\n").encode("utf-8"),
    }


# ---- dulwich plumbing -------------------------------------------------------------------------


def _refs_dict(refs: Any) -> dict[bytes, bytes]:
    """Refs from a fetch result or ls-remote answer (newer dulwich wraps them in `.refs`)."""
    return dict(getattr(refs, "refs", refs) or {})


def _files(repo: Any, commit: bytes | None) -> dict[str, bytes]:
    """Every file in `commit` (path -> content); empty for None."""
    if commit is None:
        return {}
    store = repo.object_store
    out: dict[str, bytes] = {}
    for entry in store.iter_tree_contents(store[commit].tree):
        out[entry.path.decode()] = store[entry.sha].data
    return out


def _commit(repo: Any, files: dict[str, bytes], parents: list[bytes], message: str) -> bytes:
    from dulwich.index import commit_tree
    from dulwich.objects import Blob

    store = repo.object_store
    entries = []
    for rel, data in sorted(files.items()):
        blob = Blob.from_string(data)
        store.add_object(blob)
        entries.append((rel.encode(), blob.id, 0o100644))
    commit = new_commit(commit_tree(store, entries), parents, message)
    store.add_object(commit)
    return commit.id


__all__ = ["LibrarySync", "SyncReport", "init_bare", "merge_files"]
