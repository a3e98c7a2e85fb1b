"""The starter library (shipped capabilities), reconciled with a store by content on every open.

A starter missing from the store (an interrupted first set-up, a deleted file) or damaged in it
is imported again; one the store holds unchanged since it shipped (version 1, not archived) is
brought up to the shipped version, keeping its usage record; one the user changed is kept.
Nothing here lists starters by name: whatever the seed folder holds is the starter set.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from planexec.knowledge.capability import Capability, record_problems
from planexec.knowledge.capfiles import CAP_DIR, CapabilityFiles
from planexec.knowledge.fsutil import atomic_write_text, sha256_bytes

log = logging.getLogger(__name__)

MARKER = "starters.json"
_USAGE = ("created", "reuse_count", "runs", "successes", "total_seconds", "last_used")
_CONTENT = ("name", "description", "inputs", "outputs", "tags", "examples", "code")


@dataclass
class Reconciliation:
    """What reconciling found: starters to write, and why each one."""

    write: list[Capability] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    damaged: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    kept_edits: list[str] = field(default_factory=list)

    def message(self) -> str:
        parts = [f"{len(ids)} {what} ({', '.join(ids[:4])}{', ...' if len(ids) > 4 else ''})"
                 for what, ids in (("missing", self.missing), ("damaged", self.damaged),
                                   ("changed upstream", self.updated)) if ids]
        return "Reconcile starter capabilities: " + "; ".join(parts)


def read_capability_dir(directory: Path, origin: str = "builtin") -> list[Capability]:
    """Capabilities stored as `<id>.json` (+ `<id>.py` with the code) in `directory`; unreadable ones are skipped."""
    caps = []
    for meta in sorted(Path(directory).glob("*.json")):
        try:
            data = json.loads(meta.read_text(encoding="utf-8"))
            code_file = meta.with_suffix(".py")
            code = code_file.read_text(encoding="utf-8") if code_file.exists() else data.get("code", "")
            data.setdefault("id", meta.stem)
            data.setdefault("origin", origin)
            problems = record_problems({k: v for k, v in data.items() if k != "code"})
        except (OSError, ValueError, AttributeError) as exc:
            problems = [str(exc)]
        if problems or not isinstance(code, str):
            log.warning("starter capability %s skipped: %s", meta.name, "; ".join(problems) or "code is not text")
            continue
        caps.append(Capability.from_json(data, code))
    return caps


def seed_digest(directory: Path) -> str:
    """A hash of the seed folder's files, so an unchanged folder and store skip reconciling."""
    parts = []
    for path in sorted(Path(directory).glob("*")):
        if path.suffix in (".json", ".py") and path.is_file():
            parts.append(path.name.encode() + b"\0" + path.read_bytes())
    return sha256_bytes(b"\0\0".join(parts))


def reconcile(files: CapabilityFiles, seed: list[Capability]) -> Reconciliation:
    """Compare each shipped starter with what git's HEAD holds and decide what to write."""
    out = Reconciliation()
    for cap in seed:
        raw = files.git.read(f"{CAP_DIR}/{cap.id}.json")
        code = files.git.read(f"{CAP_DIR}/{cap.id}.py")
        if raw is None:
            out.missing.append(cap.id)
            out.write.append(cap)
            continue
        try:
            data = json.loads(raw)
            ok = code is not None and data.get("id") == cap.id and not record_problems(data)
        except (ValueError, AttributeError):
            ok = False
        if not ok:
            out.damaged.append(cap.id)
            out.write.append(cap)
            continue
        stored = Capability.from_json(data, code.decode("utf-8", "replace"))  # type: ignore[union-attr]
        if all(getattr(stored, k) == getattr(cap, k) for k in _CONTENT):
            continue
        if stored.version == 1 and not stored.archived and stored.origin == cap.origin:
            for key in _USAGE:
                setattr(cap, key, getattr(stored, key))
            out.updated.append(cap.id)
            out.write.append(cap)
        else:
            out.kept_edits.append(cap.id)
    return out


def sync(files: CapabilityFiles, seed_dir: Path, index_dir: Path,
         write: Callable[[list[Capability], str], object], now: str) -> Reconciliation | None:
    """Reconcile the store (lock held) with the starters in `seed_dir`, writing what is missing,
    damaged or changed upstream in one commit; None when the marker says nothing changed since."""
    digest = seed_digest(seed_dir)
    if marker_matches(index_dir, digest, files.git.head()):
        return None
    found = reconcile(files, read_capability_dir(seed_dir))
    if found.write:
        first = not files.ids_at(files.git.head())
        message = f"Import {len(found.write)} builtin capabilities from {seed_dir.name}/" if first else found.message()
        if not first:
            log.warning("capability store %s: %s", files.path, message)
        for cap in found.write:
            cap.created = cap.created or now
            cap.updated = now if cap.id in found.updated else (cap.updated or cap.created)
        write(found.write, message)
    write_marker(index_dir, digest, files.git.head())
    return found


def marker_matches(index_dir: Path, digest: str, head: str | None) -> bool:
    try:
        data = json.loads((index_dir / MARKER).read_text())
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and data.get("seed") == digest and data.get("head") == head


def write_marker(index_dir: Path, digest: str, head: str | None) -> None:
    """Remember that `head` holds the starters of `digest` (a cache: losing it costs one comparison)."""
    try:
        atomic_write_text(index_dir / MARKER, json.dumps({"seed": digest, "head": head}), sync=False)
    except OSError:
        pass
