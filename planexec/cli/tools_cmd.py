"""`planexec tools list|show NAME`: what the registry holds."""

from __future__ import annotations

import json

import click
from rich.table import Table

from planexec.cli.common import console, handle_errors, verbose_option
from planexec.tools import default_registry


@click.group()
def tools() -> None:
    """The built-in tools."""


@tools.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the catalogue as JSON.")
def list_tools(as_json: bool) -> None:
    """List every tool with its type and description."""
    registry = default_registry()
    if as_json:
        click.echo(json.dumps([{"name": t.name, "type": t.type, "description": t.description,
                                "input_schema": t.input_schema} for t in registry], indent=2))
        return
    table = Table(title=f"{len(registry)} tools")
    for col in ("name", "type", "description"):
        table.add_column(col)
    for t in registry:
        table.add_row(t.name, t.type, t.description)
    console().print(table)


@tools.command("show")
@click.argument("name")
@verbose_option
@handle_errors
def show_tool(name: str, verbose: bool) -> None:
    """Show one tool's description and input schema."""
    t = default_registry().get(name)
    click.echo(f"{t.name} [{t.type}]\n{t.description}\n")
    click.echo(json.dumps(t.input_schema, indent=2))


COMMANDS = [tools]
