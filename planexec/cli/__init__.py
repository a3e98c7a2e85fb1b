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
    """Console-script entry point."""
    sys.exit(cli.main(prog_name="planexec", standalone_mode=True))
