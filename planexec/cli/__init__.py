"""The `planexec` command line. Each command group lives in its own module under planexec.cli."""

from __future__ import annotations

import importlib
import importlib.util
import sys

import click

from planexec import __version__

# Modules whose `COMMANDS` list is added to the top-level group, in help order.
COMMAND_MODULES = (
    "run_cmd",
    "tools_cmd",
    "demo_cmd",
    "knowledge_cmd",
    "capabilities_cmd",
    "eval_cmd",
    "batch_cmd",
    "doctor_cmd",
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="planexec")
def cli() -> None:
    """planexec: plan, run with tool fallback, verify every step, answer from all results."""


for _mod in COMMAND_MODULES:
    _name = f"{__name__}.{_mod}"
    if importlib.util.find_spec(_name) is not None:
        for _cmd in importlib.import_module(_name).COMMANDS:
            cli.add_command(_cmd)


def main() -> None:
    """Console-script entry point."""
    sys.exit(cli.main(prog_name="planexec", standalone_mode=True))
