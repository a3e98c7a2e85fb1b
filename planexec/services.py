"""Run-scoped shared objects (sandbox sessions, store, knowledge base, journal, log), as typed fields.

Each is a `Lazy` slot: created by the first caller's factory, shared by every later caller of the
run (parallel steps included), and closed, newest first, when the run ends.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from planexec.checkpoint import Journal
    from planexec.context import Background
    from planexec.knowledge.rag import KnowledgeBase
    from planexec.protocols import Embedder, ImageLoader, Sandbox, SandboxSession, Store
    from planexec.report import RunLog

T = TypeVar("T")
_opened = itertools.count()


class Lazy(Generic[T]):
    """One service of a run: empty until set or first asked for with a factory."""

    def __init__(self) -> None:
        self._value: T | None = None
        self.opened = -1
        """When it was created, for closing newest first."""
        self.owned = True
        """Whether the run closes it (not when the caller gave it and keeps it)."""
        self._lock = threading.RLock()

    def get(self, factory: Callable[[], T] | None = None) -> T:
        """The service, created now by `factory` if nobody created it yet."""
        with self._lock:
            if self._value is None:
                if factory is None:
                    raise LookupError("this service is not available in this run")
                self.set(factory())
            assert self._value is not None
            return self._value

    def set(self, value: T, owned: bool = True) -> None:
        """Use `value`; `owned=False` for one the caller passed in and closes itself."""
        with self._lock:
            self._value, self.owned = value, owned
            self.opened = next(_opened)

    def peek(self) -> T | None:
        """The service if it exists, without creating it."""
        return self._value

    def take(self) -> T | None:
        """Remove and return the service (None when it was never created)."""
        with self._lock:
            value, self._value = self._value, None
            return value


def _default_image_loader() -> ImageLoader:
    from planexec.tools import default_image_loader

    return default_image_loader()


@dataclass
class Services:
    """The shared objects a run may use; tools and the loop reach them by field, never by name."""

    store: Lazy[Store] = field(default_factory=Lazy)
    """The capability store (planexec.knowledge.CapabilityStore or any Store)."""
    session: Lazy[SandboxSession] = field(default_factory=Lazy)
    """The run's sandbox session, shared by code tools and capabilities."""
    figures: Lazy[SandboxSession] = field(default_factory=Lazy)
    """A second sandbox worker drawing figures while the analysis goes on."""
    knowledge: Lazy[KnowledgeBase] = field(default_factory=Lazy)
    """The papers' index for `rag_retrieval`."""
    background: Lazy[Background] = field(default_factory=Lazy)
    """Background passages for LLM prompts, retrieved on first use."""
    journal: Lazy[Journal] = field(default_factory=Lazy)
    """What the run already wrote to its checkpoint journal."""
    run_log: Lazy[RunLog] = field(default_factory=Lazy)
    """run.log, one line per event."""
    movie: Lazy[Any] = field(default_factory=Lazy)
    """The run's opened --images input (closed with the run: removes a temporary copy of a streamed movie)."""

    sandbox: Sandbox | None = None
    """Where sessions open; None: the real confined `planexec.sandbox.Sandbox`, sized for the run."""
    embedder: Embedder | None = None
    """The embedder given to the Orchestrator; None: the model `Config.embedder` names."""
    image_loader: ImageLoader = field(default_factory=lambda: _default_image_loader())
    """Loads the run's --images input (the tools package registers the domain's)."""

    def close(self) -> None:
        """Close every service that has a close(), newest first; a failing close is ignored."""
        slots: list[Lazy[Any]] = sorted((s for f in fields(self) if isinstance(s := getattr(self, f.name), Lazy)),
                                        key=lambda s: s.opened, reverse=True)
        for slot in slots:
            owned, item = slot.owned, slot.take()
            closer = getattr(item, "close", None) if owned else None
            if callable(closer):
                try:
                    closer()
                except Exception:  # noqa: BLE001 - closing must not mask the run's result
                    pass
