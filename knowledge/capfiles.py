"""The capability store's files: `capabilities/<id>.py` + `<id>.json`, written atomically and
committed through gitstore.py, with damaged files restored from git history.

A write first records its ids in `.pending.json`; if a writer is killed midway, `recover()`
(called by the next writer, under the store's lock) commits or rolls back exactly those ids.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from pathlib import Path

from planexec.errors import UsageError
from planexec.knowledge.capability import Capability, record_problems
from planexec.knowledge.fsutil import (
    atomic_write_bytes,
    atomic_write_text,
    sha256_bytes,
    sha256_text,
)
from planexec.knowledge.gitstore import GitFiles

log = logging.getLogger(__name__)
CAP_DIR = "capabilities"
PENDING = ".pending.json"


class CapabilityFiles:
    """The `.py` + `.json` files of each capability under `path`, committed to `git`; callers hold the lock to write."""

    def __init__(self, path: Path, git: GitFiles) -> None:
        self.path = path
        self.git = git

    def recover(self, stale: Callable[[], None]) -> None:
        """Finish or roll back, as a whole, a write that a killed process left half done.

        The pending mark lists the hash of every file the write meant to leave: when all of them
        are on disk the write is committed, otherwise every one goes back to HEAD. A write of
        several capabilities (a run's usage record) is thus never half applied. `stale()` drops the cache.
        """
        pending_file = self.path / PENDING
        if not pending_file.exists():
            return
        self.git.clear_stale_locks()
        try:
            mark = json.loads(pending_file.read_text())
            ids, files = list(mark["ids"]), dict(mark["files"])
            message = str(mark.get("message") or "")
        except (OSError, ValueError, KeyError, TypeError):
            ids, files = ["(unreadable mark)"], {p.relative_to(self.path).as_posix(): ""
                                                 for p in (self.path / CAP_DIR).glob("*.*")}
            message = ""
        disk = {rel: _read_bytes(self.path / rel) for rel in files}
        complete = all(data is not None and sha256_bytes(data) == files[rel] for rel, data in disk.items())
        changes: dict[str, bytes | None] = {}
        for rel, data in disk.items():
            committed = self.git.read(rel)
            if data == committed:
                continue
            if complete:
                changes[rel] = data
            elif committed is not None:
                atomic_write_bytes(self.path / rel, committed, sync=False)
        if changes:  # the write's own message (a run's usage token in it) says what was recorded, and by whom
            recovered = f"Recover interrupted write of {', '.join(ids)}"
            self.git.commit(changes, f"{message} ({recovered.lower()})" if message else recovered)
        stale()
        pending_file.unlink(missing_ok=True)
        log.warning("capability store %s: %s an interrupted write (%s)", self.path,
                    "finished" if complete else "rolled back", ", ".join(ids))

    def resnapshot(self, reason: str) -> tuple[str, int]:
        """Commit every sound capability file on disk as a fresh tree (HEAD's own objects are damaged)."""
        changes: dict[str, bytes | None] = {".gitignore": b".index/\n.lock\n.pending.json\n"}
        for meta in sorted((self.path / CAP_DIR).glob("*.json")):
            if self.read(meta.stem) is not None:
                changes[f"{CAP_DIR}/{meta.name}"] = meta.read_bytes()
                changes[f"{CAP_DIR}/{meta.stem}.py"] = (self.path / CAP_DIR / f"{meta.stem}.py").read_bytes()
        kept = (len(changes) - 1) // 2
        head = self.git.commit(changes, f"Repair: snapshot of {kept} sound capability files ({reason})", fresh=True)
        log.warning("capability store %s: %s; committed the %d sound capability files on disk as a new snapshot",
                    self.path, reason, kept)
        return head, kept

    def read(self, cap_id: str) -> Capability | None:
        """The capability as on disk, or None when a file is missing, unreadable or inconsistent."""
        try:
            data = json.loads((self.path / CAP_DIR / f"{cap_id}.json").read_text(encoding="utf-8"))
            code = (self.path / CAP_DIR / f"{cap_id}.py").read_text(encoding="utf-8")
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("id") != cap_id or record_problems(data):
            return None
        if data.get("code_sha256") and data["code_sha256"] != sha256_text(code):
            return None
        return Capability.from_json(data, code)

    def load_or_restore(self, cap_id: str, quiet_missing: bool = False) -> Capability | None:
        """The capability on disk, else its newest readable version in git (written back to disk)."""
        cap = self.read(cap_id)
        if cap is not None:
            return cap
        rels = [f"{CAP_DIR}/{cap_id}.json", f"{CAP_DIR}/{cap_id}.py"]
        for commit in [self.git.head(), *[c.sha for c in self.git.log(rels)]]:
            blobs = [self.git.read(r, commit) for r in rels] if commit else [None, None]
            if None in blobs:
                continue
            for rel, blob in zip(rels, blobs, strict=True):
                atomic_write_text(self.path / rel, blob.decode("utf-8"), sync=False)  # type: ignore[union-attr]
            cap = self.read(cap_id)
            if cap is not None:
                log.warning("capability %s was missing or corrupted; restored from commit %s", cap_id, commit[:8])
                return cap
        if not quiet_missing:
            log.warning("capability %s cannot be read or restored", cap_id)
        return None

    def ids_at(self, head: str | None) -> set[str]:
        """The ids of the capabilities committed in `head` (from the tree, no file read)."""
        from dulwich.objects import Tree

        if not head:
            return set()
        tree = self.git.repo.object_store[self.git.repo.object_store[head.encode()].tree]
        if CAP_DIR.encode() not in tree:
            return set()
        sub = self.git.repo.object_store[tree[CAP_DIR.encode()][1]]
        assert isinstance(sub, Tree)
        return {e.path.decode()[:-5] for e in sub.items() if e.path.endswith(b".json")}

    def read_all(self, head: str | None) -> list[Capability]:
        """Every capability in `head` or on disk; missing or broken files restored from git."""
        ids = {p.stem for p in (self.path / CAP_DIR).glob("*.json")} | self.ids_at(head)
        caps = [self.load_or_restore(i, quiet_missing=True) for i in sorted(ids)]
        return [c for c in caps if c is not None]

    def write_many(
        self, caps: Sequence[Capability], message: str, extra: dict[str, str] | None = None,
        committed: Callable[[str], None] | None = None,
    ) -> str:
        """Write files and commit them as one commit; `committed(head)` runs before the pending mark goes."""
        for cap in caps:
            problems = record_problems(cap.to_json())
            if problems:
                raise UsageError(f"capability {cap.id!r} cannot be stored: {'; '.join(problems)}")
        texts: dict[str, str] = {}
        for cap in caps:
            cap.code_sha256 = sha256_text(cap.code)
            texts[f"{CAP_DIR}/{cap.id}.py"] = cap.code
            texts[f"{CAP_DIR}/{cap.id}.json"] = json.dumps(cap.to_json(), indent=2, sort_keys=True) + "\n"
        texts.update(extra or {})
        pending = self.path / PENDING
        mark = {"ids": [c.id for c in caps], "files": {rel: sha256_text(t) for rel, t in texts.items()},
                "message": message}
        atomic_write_text(pending, json.dumps(mark), sync=False)
        changes: dict[str, bytes | None] = {}
        for rel, text in texts.items():
            if not _same(self.path / rel, text):  # a reuse record changes only the .json
                atomic_write_text(self.path / rel, text, sync=False)
            changes[rel] = text.encode("utf-8")
        head = self.git.commit(changes, message)
        if committed is not None:
            committed(head)
        pending.unlink(missing_ok=True)
        return head


def _read_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def _same(path: Path, text: str) -> bool:
    """Whether `path` already holds exactly `text` (then rewriting it is wasted I/O)."""
    try:
        return path.read_text(encoding="utf-8") == text
    except (OSError, UnicodeDecodeError):
        return False
