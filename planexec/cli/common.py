"""Shared CLI plumbing: one-line errors naming the fix (traceback with -v), and the console.

Exit codes: 0 succeeded, 1 run failed, 2 usage/input error, 3 plan rejected, 4 partial,
5 not covered offline, 6 environment failure (disk full, read-only, not a folder,
permission), 130 interrupted with Ctrl-C (the run folder and the resume command are named).
"""

from __future__ import annotations

import functools
import sqlite3
import sys
import traceback
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from planexec.errors import ENV_ERRNOS, EnvironmentFailure, LLMError, PlanexecError, UsageError

if TYPE_CHECKING:
    from rich.console import Console

F = TypeVar("F", bound=Callable[..., Any])
ENVIRONMENT_EXIT = 6
INTERRUPTED_EXIT = 130


def console(stderr: bool = False) -> Console:
    """The rich console (imported here: rich costs 0.1 s, and a run prints its first line before that)."""
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, soft_wrap=True)


def fail(message: str, code: int = 2) -> None:
    """Print `Error: message` on stderr and exit with `code`."""
    click.echo(f"Error: {message}", err=True)
    raise SystemExit(code)


class RunWatcher:
    """An event subscriber that remembers the run's folder (so Ctrl-C can name it), passing events on."""

    def __init__(self, inner: Callable[[Any], None] | None = None) -> None:
        self.inner = inner
        self.run_dir: str | None = None

    def __call__(self, event: Any) -> None:
        if getattr(event, "kind", "") == "run_started":
            self.run_dir = getattr(event, "output_dir", None)
        if self.inner is not None:
            self.inner(event)


def interrupted(run_dir: str | None) -> None:
    """Ctrl-C: say where the run so far is and how to continue it, then exit 130."""
    if run_dir:
        fail(f"interrupted; the run so far is in {run_dir}; continue it with `planexec resume {run_dir}`",
             INTERRUPTED_EXIT)
    fail("interrupted before the run started; nothing was written", INTERRUPTED_EXIT)


def _home() -> str:
    from planexec.config import Config

    try:
        return str(Config.from_env().home)
    except PlanexecError:
        return "the planexec home"


def environment_message(exc: BaseException) -> str | None:
    """One line naming the path and the fix when `exc` is an environment failure, else None."""
    if isinstance(exc, EnvironmentFailure):
        return str(exc)
    if isinstance(exc, OSError) and exc.errno in ENV_ERRNOS:
        return str(EnvironmentFailure.from_os_error(exc, exc.filename or f"{_home()} or the output folder"))
    if isinstance(exc, sqlite3.OperationalError):
        text = str(exc).lower()
        if "readonly" in text or "read-only" in text:
            return f"cannot write {_home()}: it is on a read-only file system; remount it writable or set PLANEXEC_HOME"
        if "disk is full" in text:
            return f"cannot write {_home()}: the disk is full; free some space there or set PLANEXEC_HOME elsewhere"
        if "unable to open" in text or "disk i/o" in text:
            return f"cannot open a cache in {_home()} ({exc}); check the folder, or run `planexec doctor --repair`"
    return None


def handle_errors(fn: F) -> F:
    """Turn planexec and environment errors into one line on stderr and their exit code; `-v` adds the traceback."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        verbose = bool(kwargs.get("verbose"))
        try:
            return fn(*args, **kwargs)
        except (click.exceptions.Exit, click.ClickException, SystemExit):
            raise
        except KeyboardInterrupt:
            interrupted(None)
        except UsageError as exc:
            if verbose:
                traceback.print_exc()
            fail(str(exc), 2)
        except (LLMError, PlanexecError, OSError, sqlite3.OperationalError) as exc:
            if verbose:
                traceback.print_exc()
            message = environment_message(exc)
            if message is not None:
                fail(message, ENVIRONMENT_EXIT)
            if isinstance(exc, FileNotFoundError):
                fail(f"{exc.filename or exc}: no such file; check the path", 2)
            if isinstance(exc, PlanexecError):
                fail(str(exc), 1)
            raise

    return wrapper  # type: ignore[return-value]


def _verbose(ctx: click.Context, param: click.Parameter, value: bool) -> bool:
    """With -v, planexec's own log records (index rebuilds, restored files) go to stderr."""
    if value:
        import logging

        logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
        logging.getLogger("planexec").setLevel(logging.DEBUG)
    return value


verbose_option = click.option("-v", "--verbose", is_flag=True, callback=_verbose,
                              help="Show tracebacks and planexec's debug logs.")
