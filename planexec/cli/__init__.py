"""The `planexec` command line. Each command group lives in its own module under planexec.cli,
imported only when its command runs, so `planexec run` starts drawing before the rest loads."""

from __future__ import annotations

import importlib
import sys

import click

from planexec import __version__

# Command name -> the module whose `COMMANDS` list defines it, in help order.
COMMAND_MODULES = {
    "run": "run_cmd",
    "resume": "run_cmd",
    "tools": "tools_cmd",
    "demo-data": "demo_cmd",
    "knowledge": "knowledge_cmd",
    "capabilities": "capabilities_cmd",
    "eval": "eval_cmd",
    "batch": "batch_cmd",
    "doctor": "doctor_cmd",
}


class _LazyGroup(click.Group):
    """A group that imports a command's module the first time the command is asked for."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMAND_MODULES)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module = COMMAND_MODULES.get(cmd_name)
        if module is None:
            return None
        for command in importlib.import_module(f"{__name__}.{module}").COMMANDS:
            if command.name == cmd_name:
                return command
        raise AssertionError(f"{module} defines no command {cmd_name!r}")


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="planexec")
def cli() -> None:
    """planexec: plan, run with tool fallback, verify every step, answer from all results."""


def main() -> None:
    """Console-script entry point; ends without the interpreter's teardown once the command is done.

    With numpy, scipy and matplotlib loaded, tearing the interpreter down takes 0.2-0.6 s after the
    answer is on screen. The exit handlers still run (the sandbox stops, temporary folders go,
    logs flush) and both streams are flushed; only the module-by-module teardown is skipped.
    """
    try:
        code = cli.main(prog_name="planexec", standalone_mode=True)
    except SystemExit as exc:
        code = exc.code
    status = code if isinstance(code, int) else (0 if code is None else 1)
    if code is not None and not isinstance(code, int):
        print(code, file=sys.stderr)
    _exit_now(status)


def _exit_now(status: int) -> None:
    import atexit
    import os
    import threading

    if any(t is not threading.main_thread() and not t.daemon for t in threading.enumerate()):
        sys.exit(status)  # a thread still works: the normal shutdown waits for it
    forkserver = sys.modules.get("planexec.sandbox.forkserver")
    if forkserver is not None:
        forkserver.let_go()  # it cleans up after itself; the user need not wait for that
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(status)
