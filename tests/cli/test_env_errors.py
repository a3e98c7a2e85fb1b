"""Environment failures in the CLI: one line naming the path and the fix, exit 6; -v adds the traceback."""

from __future__ import annotations

import errno
import sqlite3

import click
import pytest
from click.testing import CliRunner

from planexec.cli.common import environment_message, handle_errors, verbose_option
from planexec.errors import EnvironmentFailure


@pytest.mark.parametrize(("code", "words"), [
    (errno.ENOSPC, "disk is full"), (errno.EROFS, "read-only"), (errno.ENOTDIR, "a file stands where a folder"),
    (errno.EACCES, "permission denied"), (errno.EEXIST, "a file stands where a folder"),
])
def test_os_errors_name_the_path_and_the_fix(code: int, words: str) -> None:
    message = environment_message(OSError(code, "x", "/some/where"))
    assert message is not None and words in message and "/some/where" in message and ";" in message


def test_sqlite_and_other_errors() -> None:
    assert "read-only" in (environment_message(sqlite3.OperationalError("attempt to write a readonly database")) or "")
    assert "disk is full" in (environment_message(sqlite3.OperationalError("database or disk is full")) or "")
    assert environment_message(ValueError("x")) is None
    assert environment_message(OSError(errno.EINVAL, "bad")) is None


def _command(exc: BaseException) -> click.Command:
    @click.command()
    @verbose_option
    @handle_errors
    def boom(verbose: bool) -> None:
        raise exc

    return boom


@pytest.mark.parametrize("exc", [OSError(errno.EROFS, "Read-only file system", "/h/.lock"),
                                 EnvironmentFailure("cannot write /h: full; free space", "/h"),
                                 NotADirectoryError(errno.ENOTDIR, "Not a directory", "/h/capabilities")])
def test_exit_code_six_and_one_line(exc: BaseException) -> None:
    result = CliRunner().invoke(_command(exc), [])
    assert result.exit_code == 6
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: cannot write /h")
    verbose = CliRunner().invoke(_command(exc), ["-v"])
    assert verbose.exit_code == 6 and "Traceback" in verbose.output


def test_ctrl_c_is_130_and_unrelated_errors_still_raise() -> None:
    assert CliRunner().invoke(_command(KeyboardInterrupt()), []).exit_code == 130
    result = CliRunner().invoke(_command(OSError(errno.EINVAL, "odd")), [])
    assert isinstance(result.exception, OSError)
