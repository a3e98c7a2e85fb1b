"""`planexec capabilities list|show|history|search|archive|calibrate`: browse the capability store."""

from __future__ import annotations

import json

import click

from planexec.cli.common import console, handle_errors, verbose_option


def _store():  # noqa: ANN202 - a planexec.knowledge.CapabilityStore
    from planexec.config import Config
    from planexec.knowledge.embedder import get_embedder
    from planexec.knowledge.store import CapabilityStore

    config = Config.from_env()
    return CapabilityStore(config.home / "capabilities", get_embedder(config.embedder))


@click.group("capabilities")
def capabilities() -> None:
    """Browse, search and archive stored capabilities (a git repository under $PLANEXEC_HOME)."""


@capabilities.command("list")
@click.option("--sort-by", default="created", show_default=True,
              type=click.Choice(["created", "updated", "reuse_count", "last_used", "success_rate", "name", "runs"]))
@click.option("--all", "include_archived", is_flag=True, help="Include archived capabilities.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@verbose_option
@handle_errors
def list_cmd(sort_by: str, include_archived: bool, as_json: bool, verbose: bool) -> None:
    """List capabilities with their record."""
    from rich.table import Table

    caps = _store().list(sort_by=sort_by, include_archived=include_archived)
    if as_json:
        click.echo(json.dumps([c.to_json() for c in caps], indent=2))
        return
    table = Table("id", "origin", "v", "reuses", "success", "description")
    for c in caps:
        rate = "-" if c.success_rate is None else f"{c.success_rate:.0%}"
        table.add_row(c.id, c.origin, str(c.version), str(c.reuse_count), rate, c.description[:70])
    console().print(table)
    console().print(f"{len(caps)} capabilities")


@capabilities.command("show")
@click.argument("cap_id")
@verbose_option
@handle_errors
def show(cap_id: str, verbose: bool) -> None:
    """Show one capability: description, variables, record and code."""
    store = _store()
    cap = store.load(cap_id)
    out = console()
    out.print(f"[bold]{cap.id}[/bold] v{cap.version} ({cap.origin}){'  ARCHIVED' if cap.archived else ''}")
    out.print(cap.description, markup=False)
    out.print(f"inputs: {', '.join(cap.inputs) or '-'}   outputs: {', '.join(cap.outputs) or '-'}")
    out.print(json.dumps(store.stats(cap_id), indent=2), markup=False)
    out.print(cap.code, markup=False)


@capabilities.command("history")
@click.argument("cap_id")
@verbose_option
@handle_errors
def history(cap_id: str, verbose: bool) -> None:
    """The commits that changed a capability, newest first."""
    for entry in _store().history(cap_id):
        click.echo(f"{entry['commit'][:10]}  {entry['time']}  v{entry['version']}  {entry['message'].splitlines()[0]}")


@capabilities.command("search")
@click.argument("text")
@click.option("-k", "--top", "k", default=5, show_default=True)
@verbose_option
@handle_errors
def search(text: str, k: int, verbose: bool) -> None:
    """Capabilities closest to TEXT, with the reuse decision and its reason."""
    for m in _store().search(text, k):
        mark = "REUSE" if m.reusable else "     "
        click.echo(f"{mark} {m.score:6.3f} (cos {m.semantic:.3f})  {m.capability.id}: {m.reason}")


@capabilities.command("archive")
@click.argument("cap_id")
@verbose_option
@handle_errors
def archive(cap_id: str, verbose: bool) -> None:
    """Hide a capability from search and reuse (its history stays)."""
    _store().archive(cap_id)
    click.echo(f"archived {cap_id}")


@capabilities.command("calibrate")
@click.option("--pairs", type=click.Path(exists=True), help="Labelled pairs JSON; default data/calibration/reuse_pairs.json.")
@verbose_option
@handle_errors
def calibrate_cmd(pairs: str | None, verbose: bool) -> None:
    """Measure the reuse decision (and plain cosine) on labelled pairs with the configured embedder."""
    import tempfile

    from planexec.config import Config
    from planexec.knowledge.calibration import calibrate, evaluate, load_pairs
    from planexec.knowledge.embedder import get_embedder
    from planexec.knowledge.store import CapabilityStore

    caps, labelled = load_pairs(pairs)
    with tempfile.TemporaryDirectory() as tmp:
        store = CapabilityStore(tmp, get_embedder(Config.from_env().embedder), seed=False)
        store.save_many(caps)
        for line in evaluate(store, labelled).lines():
            click.echo(line)
        click.echo(f"best threshold on these pairs: {calibrate(store, labelled).threshold:.3f}")
        store.close()


COMMANDS = [capabilities]
