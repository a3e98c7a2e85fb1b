"""MemoryStore: the capability store's fake, a dict in memory, for testing agents offline.

It satisfies `planexec.protocols.Store` like `CapabilityStore` does, without git, files or an
embedding model. The reuse decision is a plain function (by default: the request is one of
the capability's phrasings, ignoring case), so a test says exactly what gets reused.
"""

from __future__ import annotations

import builtins
import dataclasses
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from planexec.errors import UnknownNameError, UsageError
from planexec.knowledge.capability import Capability, Match, slugify


def same_phrasing(description: str, cap: Capability) -> bool:
    """The default reuse decision: `description` is the capability's name or one of its phrasings."""
    text = description.strip().casefold()
    return any(text == p.strip().casefold() for p in [cap.name, *cap.phrasings()])


class MemoryStore:
    """Capabilities kept in a dict; `reuse(description, capability)` decides what may be reused."""

    def __init__(self, capabilities: Iterable[Capability] = (),
                 reuse: Callable[[str, Capability], bool] = same_phrasing) -> None:
        self.caps: dict[str, Capability] = {}
        self.reuse = reuse
        self._tokens: set[str] = set()
        self._lock = threading.Lock()
        for cap in capabilities:
            self.save(cap)

    def list(self) -> builtins.list[Capability]:
        """Every capability not archived, in the order saved."""
        with self._lock:
            return [c for c in self.caps.values() if not c.archived]

    def load(self, cap_id: str) -> Capability:
        with self._lock:
            if cap_id not in self.caps:
                raise UnknownNameError(f"no capability {cap_id!r}; stored: {', '.join(self.caps) or 'none'}")
            return self.caps[cap_id]

    def find_reusable(self, description: str, inputs: Sequence[str] | None = None,
                      outputs: Sequence[str] | None = None) -> Match | None:
        """The first capability `reuse` accepts for `description` (variables are not compared)."""
        for cap in self.list():
            if self.reuse(description, cap):
                return Match(cap, 1.0, 1.0, None, True, "accepted by the store's reuse function")
        return None

    def save(self, capability: Capability | None = None, /, **fields: Any) -> str:
        """Store a capability (or its fields as keywords); returns its id."""
        if capability is None:
            fields.setdefault("name", "")
            capability = Capability(id=fields.pop("id", ""), **fields)
        if not capability.description.strip():
            raise UsageError("a capability needs a description of what it does")
        cap = dataclasses.replace(capability, name=capability.name or capability.description[:60])
        cap.id = cap.id or slugify(cap.name)
        with self._lock:
            self.caps.setdefault(cap.id, cap)
        return cap.id

    def record_uses(self, uses: Sequence[tuple[str, bool, float]], token: str | None = None) -> None:
        """Count runs of stored capabilities; uses already recorded under `token` count once."""
        with self._lock:
            if token is not None and token in self._tokens:
                return
            if token is not None:
                self._tokens.add(token)
        for cap_id, ok, seconds in uses:
            cap = self.load(cap_id)
            cap.reuse_count += 1
            cap.runs += 1
            cap.successes += bool(ok)
            cap.total_seconds += float(seconds)

    def close(self) -> None:
        """Nothing to release."""
