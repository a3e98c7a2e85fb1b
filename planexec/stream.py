"""A run as a stream of its events: `Orchestrator.iter()` returns a `RunStream` (`run()` drives the
same loop in the calling thread).

The loop runs in a thread of its own (its parallel steps in a pool under that thread). Each event
is handed to the thread iterating the stream, and the loop waits until that thread asks for the
next one: events arrive in the order they were emitted, at the moment a subscriber would see them,
and a consumer that stops stops the run before it goes further. The callbacks given to the run
(plan and tool approval) are handed over the same way, so every callback runs in the consuming
thread. Closing the stream early (`break`, `close()`, leaving a `with` block, an exception while
iterating) cancels the run at its next event or callback: a step already running finishes under
its own limits, as at the deadline; then the run's services (sandbox sessions, store) close and
its thread ends before `close()` returns.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar, cast

from planexec.errors import UsageError
from planexec.events import Event, RunFinished, Subscriber

if TYPE_CHECKING:
    from types import TracebackType

    from planexec.models import RunResult

P = ParamSpec("P")
R = TypeVar("R")


class _Cancelled(BaseException):
    """Raised in the loop's threads once the consumer closed the stream; a BaseException so that no
    `except Exception` (a tool failure becoming an observation) keeps the run going."""


@dataclass(frozen=True)
class _Call:
    """A callback the loop asks the consuming thread to run."""

    fn: Callable[..., Any]
    args: tuple[Any, ...]
    kwargs: dict[str, Any]


class Handoff:
    """Passes events and callbacks from the loop's threads to the consuming thread, one at a time.

    A sender waits until the consumer has dealt with its item (for an event: asked for the next
    one), so the loop never runs ahead of its consumer.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._sending = threading.Lock()  # one item in flight: senders from parallel steps queue here
        self._item: Event | _Call | None = None
        self._reply: tuple[bool, Any] | None = None
        self._cancelled = False
        self._ended = False
        self.outcome: tuple[bool, Any] | None = None
        """(True, the run's result) or (False, the exception that ended the loop), once it ended."""
        self._finished = False  # RunFinished was sent: cancelling no longer cuts the run's bookkeeping

    # -- the loop's side --------------------------------------------------------------------

    def emit(self, event: Event) -> None:
        """A subscriber for the run's EventBus."""
        self._send(event)

    def call(self, fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
        """Run `fn` in the consuming thread; its exception is raised here, in the loop."""
        ok, value = self._send(_Call(fn, args, kwargs))
        if not ok:
            raise value
        return cast(R, value)

    def in_consumer(self, fn: Callable[P, R] | None) -> Callable[P, R] | None:
        """`fn` wrapped to run in the consuming thread (None stays None)."""
        if fn is None:
            return None
        callback = fn

        def relayed(*args: P.args, **kwargs: P.kwargs) -> R:
            return self.call(callback, *args, **kwargs)

        return relayed

    def end(self, ok: bool, value: Any) -> None:
        """The loop is over: it returned `value` (ok) or raised it."""
        with self._cond:
            self.outcome = (ok, value)
            self._ended = True
            self._cond.notify_all()

    def _send(self, item: Event | _Call) -> tuple[bool, Any]:
        with self._sending, self._cond:
            if isinstance(item, RunFinished):
                self._finished = True
            if self._cancelled:
                if self._finished and isinstance(item, Event):
                    return True, None  # after the run finished, only its bookkeeping is left: let it end
                raise _Cancelled
            self._item, self._reply = item, None
            self._cond.notify_all()
            while self._reply is None and not self._cancelled:
                self._cond.wait()
            reply, self._item, self._reply = self._reply, None, None
            if reply is None:  # cancelled while waiting
                if self._finished and isinstance(item, Event):
                    return True, None
                raise _Cancelled
            return reply

    # -- the consumer's side ----------------------------------------------------------------

    def receive(self) -> Event | _Call | None:
        """The next item, waiting for it; None once the loop ended."""
        with self._cond:
            while True:
                if self._item is not None and self._reply is None:
                    return self._item
                if self._ended:
                    return None
                self._cond.wait()

    def answer(self, ok: bool, value: Any = None) -> None:
        """Release the sender of the current item (an event: the consumer asked for the next one)."""
        with self._cond:
            if self._item is not None:
                self._reply = (ok, value)
                self._cond.notify_all()

    def cancel(self) -> None:
        with self._cond:
            self._cancelled = True
            self._cond.notify_all()


Body = Callable[[Handoff], "RunResult"]
"""The run itself, given the handoff to emit events and relay callbacks through."""


class RunStream(Iterator[Event]):
    """The events of one run as they happen; `result` (the RunResult) once they are exhausted.

    Iterate it to the end (the last event is `RunFinished`), then read `result`; the exhausting
    `next()` also carries it as `StopIteration.value`, so `result = yield from stream` works. An
    exception that ends the run (a usage error, an invalid plan) is raised by `next()`. Use it as a
    context manager, or `close()` it, to stop a run early; dropping it does the same.
    """

    def __init__(self, body: Body) -> None:
        self._handoff = Handoff()
        # The thread holds no reference to the stream, so dropping the stream closes it.
        self._thread = threading.Thread(target=_work, args=(body, self._handoff, contextvars.copy_context()),
                                        name="planexec-run", daemon=True)
        self._pending = False  # an event was yielded and its sender waits for the next next()
        self._done = False
        self._consumer: threading.Thread | None = None

    def __iter__(self) -> RunStream:
        return self

    def __next__(self) -> Event:
        if self._done:
            outcome = self._handoff.outcome
            raise StopIteration(outcome[1] if outcome is not None and outcome[0] else None)
        try:
            if self._thread.ident is None:
                self._consumer = threading.current_thread()
                self._thread.start()
            if self._pending:
                self._pending = False
                self._handoff.answer(True)
            while (item := self._handoff.receive()) is not None:
                if isinstance(item, Event):
                    self._pending = True
                    return item
                self._relay(item)
        except BaseException:
            self.close()  # interrupted while waiting (Ctrl-C): stop the run before raising
            raise
        return self._settle()

    def _relay(self, call: _Call) -> None:
        try:
            value = call.fn(*call.args, **call.kwargs)
        except BaseException as exc:  # noqa: BLE001 - the loop handles it as if the callback ran there
            self._handoff.answer(False, exc)
        else:
            self._handoff.answer(True, value)

    def _settle(self) -> Event:
        self._thread.join()
        self._done = True
        outcome = self._handoff.outcome
        assert outcome is not None
        ok, value = outcome
        if not ok:
            raise value
        raise StopIteration(value)

    @property
    def result(self) -> RunResult:
        """The run's result; the stream must have been iterated to its end first."""
        outcome = self._handoff.outcome
        if outcome is not None and outcome[0]:
            return cast("RunResult", outcome[1])
        if outcome is not None and not isinstance(outcome[1], _Cancelled):
            raise UsageError(f"the run raised {type(outcome[1]).__name__}, so it has no result; "
                             "catch the exception where you iterate the stream")
        state = "was closed before it finished" if self._done else "has not finished"
        raise UsageError(f"the run {state}; iterate the stream to its end before reading `result`")

    def consume(self, on_event: Subscriber | None = None) -> RunResult:
        """Iterate to the end, passing each event to `on_event`, and return the result (as `run()` would)."""
        with self:
            for event in self:
                if on_event is not None:
                    on_event(event)
        return self.result

    def close(self) -> None:
        """Cancel the run if it is still going and wait for its thread to end."""
        if self._done:
            return
        self._done = True
        self._handoff.cancel()
        if self._thread.ident is not None and self._thread is not threading.current_thread():
            self._thread.join()

    def __enter__(self) -> RunStream:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def __del__(self) -> None:
        # Dropped in the consuming thread (after a `break`): close and wait. Collected in another
        # thread (a reference cycle), which could be one the run itself waits for: cancel only.
        try:
            if self._consumer in (None, threading.current_thread()):
                self.close()
            else:
                self._handoff.cancel()
        except Exception:  # noqa: BLE001, S110 - a finaliser must not raise
            pass


def _work(body: Body, handoff: Handoff, context: contextvars.Context) -> None:
    """The run's thread: the loop, its outcome kept for the consumer."""
    try:
        result = context.run(body, handoff)
    except BaseException as exc:  # noqa: BLE001 - raised in the consumer's thread by next()
        handoff.end(False, exc)
    else:
        handoff.end(True, result)


__all__ = ["Handoff", "RunStream"]
