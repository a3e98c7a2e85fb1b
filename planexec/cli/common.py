"""Shared CLI plumbing: one-line errors naming the fix (traceback with -v), and the console."""

from __future__ import annotations

import functools
import sys
import traceback
from collections.abc import Callable
from typing import Any, TypeVar

import click
from rich.console import Console

from planexec.errors import LLMError, PlanexecError, UsageError

F = TypeVar("F", bound=Callable[..., Any])


def console(stderr: bool = False) -> Console:
    return Console(stderr=stderr, highlight=False, soft_wrap=True)


def fail(message: str, code: int = 2) -> None:
    """Print `Error: message` on stderr and exit with `code`."""
    click.echo(f"Error: {message}", err=True)
    raise SystemExit(code)


def handle_errors(fn: F) -> F:
    """Turn planexec errors into one line on stderr and a non-zero exit; `-v` adds the traceback."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        verbose = bool(kwargs.get("verbose"))
        try:
            return fn(*args, **kwargs)
        except (click.exceptions.Exit, click.ClickException, SystemExit, KeyboardInterrupt):
            raise
        except UsageError as exc:
            if verbose:
                traceback.print_exc()
            fail(str(exc), 2)
        except (LLMError, PlanexecError) as exc:
            if verbose:
                traceback.print_exc()
            fail(str(exc), 1)
        except FileNotFoundError as exc:
            if verbose:
                traceback.print_exc()
            fail(f"{exc.filename or exc}: no such file; check the path", 2)

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
