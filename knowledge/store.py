"""The capability store: `.py` + `.json` files in a dulwich git repository (the source of
truth, written by capfiles.py), a catalog and FAISS index as a rebuildable cache (catalog.py),
and the reuse decision.

Layout of `path`: `capabilities/<id>.py|json` (committed), `.index/` (cache, ignored),
`.lock` (serialises writers across processes), `.pending.json` (a write in progress: if
a writer is killed, the next writer finishes or rolls back exactly those ids).
"""

from __future__ import annotations

import difflib
import json
import logging
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planexec.datafiles import shipped
from planexec.errors import ENV_ERRNOS, EnvironmentFailure, UnknownNameError, UsageError
from planexec.knowledge import starters
from planexec.knowledge.capability import Capability, Match, slugify
from planexec.knowledge.capfiles import CAP_DIR, CapabilityFiles
from planexec.knowledge.catalog import Catalog
from planexec.knowledge.fsutil import sha256_text
from planexec.knowledge.gitstore import GitFiles
from planexec.knowledge.reuse import (
    ReusePolicy,
    code_terms,
    compare_terms,
    extract_terms,
    io_agreement,
)

if TYPE_CHECKING:
    from planexec.protocols import Embedder

log = logging.getLogger(__name__)
SORT_KEYS = ("created", "updated", "reuse_count", "last_used", "success_rate", "name", "runs")


def default_seed_dir() -> Path:
    """$PLANEXEC_CAPABILITIES_SEED, else the repository's data/capabilities."""
    env = os.environ.get("PLANEXEC_CAPABILITIES_SEED")
    return Path(env) if env else shipped("capabilities")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class CapabilityStore:
    """A versioned, searchable library of capabilities; safe for several processes at once."""

    def __init__(
        self,
        path: Path | str | None = None,
        embedder: Embedder | None = None,
        *,
        seed: Path | str | bool = True,
        policy: ReusePolicy | None = None,
    ) -> None:
        if path is None:
            from planexec.config import Config

            path = Config.from_env().home / "capabilities"
        self.path = Path(path).expanduser()
        self._embedder_arg = embedder
        self._seed = seed
        self._policy = policy
        self._opened = False
        self._terms: dict[tuple[str, int], Any] = {}
        self._mutex = threading.RLock()

    # ---- opening, locking, recovery -------------------------------------------------

    def _open(self) -> None:
        if self._opened:
            return
        from planexec.knowledge.embedder import CachedEmbedder, QueryCache, get_embedder

        if self.path.exists() and not self.path.is_dir():
            raise EnvironmentFailure(f"capability store path {self.path} is a file; move it away or set "
                                     "PLANEXEC_HOME to a folder", self.path)
        base = self._embedder_arg or get_embedder("auto")
        self.read_only = self._prepare_dirs()
        self.embedder = base if isinstance(base, CachedEmbedder) else CachedEmbedder(base, self.path / ".index")
        self._query = QueryCache(self.embedder.inner)
        self.policy = self._policy or ReusePolicy.for_model(self.embedder.name)
        self._catalog = Catalog(self.path / ".index" / "catalog.sqlite", self.embedder)
        with self._lock:
            self.git = GitFiles(self.path)
            self._files = CapabilityFiles(self.path, self.git)
            if not self.read_only:
                try:
                    self._heal()
                except OSError as exc:  # a disk that filled up: read what is there, write nothing
                    if exc.errno not in ENV_ERRNOS or self.git.head() is None:
                        raise EnvironmentFailure.from_os_error(exc, exc.filename or self.path) from exc
                    self.read_only = str(EnvironmentFailure.from_os_error(exc, exc.filename or self.path))
                    log.warning("capability store %s opened read-only: %s", self.path, exc.strerror)
        self._opened = True

    def _prepare_dirs(self) -> str | None:
        """Create the folders and lock; on a read-only or full disk with a store already there,
        open it read-only (the reason is returned) so runs the library covers still work."""
        from filelock import FileLock

        try:
            self.path.mkdir(parents=True, exist_ok=True)
            (self.path / ".index").mkdir(exist_ok=True)
            self._lock: Any = FileLock(str(self.path / ".lock"))
            with self._lock:
                pass
            return None
        except OSError as exc:
            if exc.errno not in ENV_ERRNOS or not (self.path / ".git").is_dir():
                raise EnvironmentFailure.from_os_error(exc, exc.filename or self.path) from exc
            log.warning("capability store %s opened read-only: %s", self.path, exc.strerror)
            self._lock = nullcontext()
            return str(EnvironmentFailure.from_os_error(exc, exc.filename or self.path))

    def _heal(self) -> None:
        """Under the lock: break stale git locks, finish an interrupted write, create the
        repository, and reconcile the starter library by content."""
        broken = self.git.clear_stale_locks()
        if broken:
            log.warning("capability store %s: removed %d stale git lock(s) left by a killed writer", self.path, broken)
        if not self.git.head_sound():
            self._files.resnapshot("HEAD's git objects are missing or damaged")
            self._catalog.store(None)
        self._recover()
        if self.git.head() is None:
            self._write_many([], "Create capability store", extra={".gitignore": ".index/\n.lock\n.pending.json\n"})
        seed_dir = default_seed_dir() if self._seed is True else (Path(self._seed) if self._seed else None)
        if not seed_dir or not seed_dir.is_dir():
            return
        starters.sync(self._files, seed_dir, self.path / ".index", self._write_many, _now())

    @contextmanager
    def _writing(self) -> Iterator[None]:
        self._open()
        if self.read_only:
            raise EnvironmentFailure(self.read_only, self.path)
        with self._mutex, self._lock:
            self.git.clear_stale_locks()
            self._recover()
            self._sync(locked=True)
            yield

    # ---- the catalog cache ----------------------------------------------------------

    def _sync(self, locked: bool = False) -> None:
        """Bring the in-memory catalog and index up to the repository's HEAD (validated against git)."""
        head = self.git.head()
        if head == self._catalog.head:
            return
        if self._catalog.stored_head() == head and self._catalog.load(head, self._files.ids_at(head)):
            return
        if not locked and not self.read_only:
            with self._lock:
                return self._sync(locked=True)
        self._catalog.refill(head, self._files.read_all(head))
        if not self._catalog.load(head):
            raise EnvironmentFailure(f"the capability catalog in {self.path / '.index'} cannot be rebuilt; "
                                     "run `planexec doctor --repair`", self.path)

    # ---- files (capfiles.py) -----------------------------------------------------------

    def _recover(self) -> None:
        """Finish or roll back a write that a killed process left half done (the cache goes stale)."""
        self._files.recover(lambda: self._catalog.store(None))

    def _write_many(self, caps: Sequence[Capability], message: str, extra: dict[str, str] | None = None) -> str:
        """Write files, commit them as one commit, update the cache; a kill midway is recoverable."""

        def cache(head: str) -> None:
            if self._catalog.loaded:
                self._catalog.apply(head, caps)

        return self._files.write_many(caps, message, extra, committed=cache)

    # ---- public API ---------------------------------------------------------------------

    def save(self, capability: Capability | None = None, /, **fields: Any) -> str:
        """Store a new capability (a Capability, or its fields as keywords); returns its id."""
        if capability is None:
            fields.setdefault("name", "")
            capability = Capability(id=fields.pop("id", ""), **fields)
        return self.save_many([capability])[0]

    def save_many(self, capabilities: Sequence[Capability], message: str | None = None) -> list[str]:
        """Store several capabilities in one commit (re-saving identical content is a no-op)."""
        with self._writing():
            new: list[Capability] = []
            for cap in capabilities:
                if not cap.description.strip():
                    raise UsageError("a capability needs a description of what it does")
                cap.id = cap.id or f"{slugify(cap.name or cap.description)}_{sha256_text(cap.description + cap.code)[:8]}"
                old = self._catalog.caps.get(cap.id)
                if old is not None:
                    if (old.code, old.description) != (cap.code, cap.description):
                        raise UsageError(f"capability {cap.id!r} exists with other content; use update() for a new version")
                    continue
                cap.name = cap.name or cap.description[:60]
                cap.created = cap.created or _now()
                cap.updated = cap.updated or cap.created
                new.append(cap)
            if new:
                what = new[0].id if len(new) == 1 else f"{len(new)} capabilities"
                self._write_many(new, message or f"Add capability {what}: {new[0].description[:60]}")
            return [c.id for c in capabilities]

    def load(self, cap_id: str) -> Capability:
        """The capability `cap_id` (restored from git history if its files were damaged)."""
        self._open()
        self._sync()
        cap = self._files.load_or_restore(cap_id, quiet_missing=True) if cap_id in self._catalog.caps or self._in_git(cap_id) else None
        if cap is None:
            raise self._unknown(cap_id)
        return cap

    def _in_git(self, cap_id: str) -> bool:
        return bool(self.git.log([f"{CAP_DIR}/{cap_id}.json"], max_entries=1))

    def _unknown(self, cap_id: str) -> UnknownNameError:
        close = difflib.get_close_matches(cap_id, list(self._catalog.caps), n=5, cutoff=0.4)
        hint = f"; did you mean {', '.join(close)}?" if close else f"; {len(self._catalog.caps)} stored (see `planexec capabilities list`)"
        return UnknownNameError(f"no capability {cap_id!r}{hint}")

    def __contains__(self, cap_id: str) -> bool:
        self._open()
        self._sync()
        return cap_id in self._catalog.caps

    def __len__(self) -> int:
        self._open()
        self._sync()
        return sum(not c.archived for c in self._catalog.caps.values())

    def _change(self, cap_id: str, message: Callable[[Capability], str], **changes: Any) -> Capability:
        with self._writing():
            if cap_id not in self._catalog.caps:
                raise self._unknown(cap_id)
            cap = self._files.load_or_restore(cap_id) or self._catalog.caps[cap_id]
            for key, value in changes.items():
                setattr(cap, key, value(cap) if callable(value) else value)
            self._write_many([cap], message(cap))
            return cap

    def record_use(self, cap_id: str, ok: bool, seconds: float) -> None:
        """Count one run of a stored capability (reuse count, successes, run time, last used)."""
        self.record_uses([(cap_id, ok, seconds)])

    def record_uses(self, uses: Sequence[tuple[str, bool, float]], token: str | None = None) -> None:
        """Count several runs (id, ok, seconds) in one commit: a run records its reuses together.

        With `token` (naming the run), uses already committed under that token are not counted
        again: a run killed after its usage commit and resumed counts once.
        """
        if not uses:
            return
        with self._writing():
            if token and any(f"[{token}]" in c.message for c in self.git.log(max_entries=50)):
                return
            changed: dict[str, Capability] = {}
            for cap_id, ok, seconds in uses:
                if cap_id not in self._catalog.caps:
                    raise self._unknown(cap_id)
                cap = changed.get(cap_id) or self._files.load_or_restore(cap_id) or self._catalog.caps[cap_id]
                cap.reuse_count += 1
                cap.runs += 1
                cap.successes += bool(ok)
                cap.total_seconds += float(seconds)
                cap.last_used = _now()
                changed[cap_id] = cap
            if len(uses) == 1:
                (cap_id, ok, seconds), cap = uses[0], changed[uses[0][0]]
                message = f"Reuse capability {cap_id} ({'ok' if ok else 'failed'}, {seconds:.3g} s; reuse {cap.reuse_count})"
            else:
                ok_count = sum(bool(ok) for _, ok, _ in uses)
                names = ", ".join(changed) if len(changed) <= 4 else f"{len(changed)} capabilities"
                message = f"Reuse {names} ({ok_count}/{len(uses)} ok)"
            self._write_many(list(changed.values()), message + (f" [{token}]" if token else ""))

    def update(self, cap_id: str, code: str, reason: str) -> Capability:
        """A new version of the code; earlier versions stay in the history."""
        if not reason.strip():
            raise UsageError("say why the capability changes (reason)")
        return self._change(
            cap_id,
            lambda c: f"Update capability {cap_id} to v{c.version}: {reason}",
            code=code,
            version=lambda c: c.version + 1,
            updated=_now(),
        )

    def archive(self, cap_id: str) -> None:
        """Hide a capability from search and reuse; its files and history stay."""
        self._change(cap_id, lambda c: f"Archive capability {cap_id}", archived=True, updated=_now())

    def history(self, cap_id: str) -> list[dict[str, Any]]:
        """Commits that touched the capability, newest first (from git)."""
        self._open()
        entries = self.git.log([f"{CAP_DIR}/{cap_id}.json", f"{CAP_DIR}/{cap_id}.py"])
        if not entries:
            self._sync()
            raise self._unknown(cap_id)
        out = []
        for e in entries:
            raw = self.git.read(f"{CAP_DIR}/{cap_id}.json", e.sha)
            version = json.loads(raw).get("version") if raw else None
            when = datetime.fromtimestamp(e.time, UTC).isoformat(timespec="seconds")
            out.append({"commit": e.sha, "message": e.message, "time": when, "version": version})
        return out

    def code_at(self, cap_id: str, commit: str) -> str | None:
        """The capability's code as of `commit`."""
        self._open()
        raw = self.git.read(f"{CAP_DIR}/{cap_id}.py", commit)
        return raw.decode("utf-8") if raw is not None else None

    def list(self, sort_by: str = "created", include_archived: bool = False) -> list[Capability]:
        """All capabilities, newest / most used / most recent / most reliable first (by `sort_by`)."""
        if sort_by not in SORT_KEYS:
            raise UsageError(f"cannot sort by {sort_by!r}; choose one of {', '.join(SORT_KEYS)}")
        self._open()
        self._sync()
        caps = [c for c in self._catalog.caps.values() if include_archived or not c.archived]
        if sort_by == "name":
            return sorted(caps, key=lambda c: c.name.lower())
        if sort_by == "success_rate":
            return sorted(caps, key=lambda c: (c.success_rate or -1.0, c.runs), reverse=True)
        return sorted(caps, key=lambda c: (getattr(c, sort_by) or "", c.id), reverse=True)

    def stats(self, cap_id: str) -> dict[str, Any]:
        cap = self.load(cap_id)
        return {
            "id": cap.id, "name": cap.name, "origin": cap.origin, "version": cap.version,
            "created": cap.created, "updated": cap.updated, "reuse_count": cap.reuse_count,
            "runs": cap.runs, "successes": cap.successes, "success_rate": cap.success_rate,
            "mean_seconds": cap.mean_seconds, "last_used": cap.last_used, "archived": cap.archived,
        }

    # ---- search and the reuse decision ------------------------------------------------

    def assess(
        self, description: str, cap: Capability, semantic: float,
        inputs: Sequence[str] | None = None, outputs: Sequence[str] | None = None,
    ) -> Match:
        """Score one capability against a request and decide whether it may be reused."""
        key = (cap.id, cap.version)
        if key not in self._terms:
            text = " ".join([cap.name, *cap.phrasings(), *cap.tags])
            self._terms[key] = (extract_terms(text), code_terms(cap.code))
        cap_terms, code = self._terms[key]
        terms = compare_terms(extract_terms(description), cap_terms, code)
        io = io_agreement(inputs, outputs, cap.inputs, cap.outputs)
        ok, score, reason = self.policy.decide(semantic, terms, io)
        return Match(cap, score, semantic, io, ok, reason, tuple(terms.conflicts))

    def similarity(self, text: str, cap: Capability) -> float:
        """Best cosine between `text` and any phrasing of `cap`."""
        self._open()
        q = self._query.embed([text])[0]
        return float((self.embedder.embed(cap.phrasings()) @ q).max())

    def search(
        self, text: str, k: int = 5, inputs: Sequence[str] | None = None, outputs: Sequence[str] | None = None,
    ) -> list[Match]:
        """The `k` best capabilities for `text`, scored and with the reuse decision made."""
        if not text.strip():
            raise UsageError("empty search text: describe the analysis step")
        self._open()
        self._sync()
        best = self._catalog.nearest(self._query.embed([text])[0], 4 * k + 8)
        top = sorted(best.items(), key=lambda kv: -kv[1])[: max(k, 5)]
        matches = [self.assess(text, self._catalog.caps[i], s, inputs, outputs) for i, s in top]
        matches.sort(key=lambda m: (m.reusable, m.score), reverse=True)
        return matches[:k]

    def find_reusable(
        self, description: str, inputs: Sequence[str] | None = None, outputs: Sequence[str] | None = None,
    ) -> Match | None:
        """The best capability that may run for `description`, or None (then generate code)."""
        matches = self.search(description, 5, inputs, outputs)
        return matches[0] if matches and matches[0].reusable else None

    def close(self) -> None:
        catalog: Catalog | None = getattr(self, "_catalog", None)
        if catalog is not None:
            catalog.close()
        if self._opened:
            self.git.close()
            self.embedder.close()
            self._opened = False
