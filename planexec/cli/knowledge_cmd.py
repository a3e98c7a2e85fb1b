"""`planexec knowledge build|query`: index the method papers and ask them questions."""

from __future__ import annotations

import json
from pathlib import Path

import click

from planexec.cli.common import console, handle_errors, verbose_option


def _kb(papers: str | None, index: str | None):  # noqa: ANN202 - a planexec.knowledge.KnowledgeBase
    from planexec.config import Config
    from planexec.knowledge.embedder import CachedEmbedder, get_embedder
    from planexec.knowledge.rag import KnowledgeBase, default_papers_dir

    config = Config.from_env()
    index_dir = Path(index) if index else config.home / "knowledge"
    embedder = CachedEmbedder(get_embedder(config.embedder), index_dir)
    return KnowledgeBase(Path(papers) if papers else default_papers_dir(), index_dir, embedder)


_papers_opt = click.option("--papers", type=click.Path(), help="Folder of papers (.txt, .md, .pdf); default data/papers.")
_index_opt = click.option("--index", type=click.Path(), help="Index folder; default $PLANEXEC_HOME/knowledge.")


@click.group("knowledge")
def knowledge() -> None:
    """Index method papers and retrieve passages from them."""


@knowledge.command("build")
@_papers_opt
@_index_opt
@click.option("--rebuild", is_flag=True, help="Re-index every paper, not only the changed ones.")
@verbose_option
@handle_errors
def build(papers: str | None, index: str | None, rebuild: bool, verbose: bool) -> None:
    """Chunk, embed and index the papers (only changed papers unless --rebuild)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    kb = _kb(papers, index)
    out = console()
    with Progress(TextColumn("embedding chunks"), BarColumn(), MofNCompleteColumn(), console=console(True),
                  transient=True) as bar:
        task = bar.add_task("embed", total=None)
        report = kb.build(rebuild=rebuild, progress=lambda done, total: bar.update(task, completed=done, total=total))
    for warning in report.warnings:
        click.echo(f"Warning: {warning}", err=True)
    out.print(
        f"{report.papers} papers, {report.total_chunks} chunks; embedded {report.embedded_chunks} chunks from "
        f"{report.embedded_papers} changed paper(s){' (full rebuild)' if report.full else ''} "
        f"in {report.seconds:.2f} s -> {kb.index_dir}"
    )


@knowledge.command("query")
@click.argument("question")
@click.option("-k", "--top", "k", default=3, show_default=True, help="How many passages.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@_papers_opt
@_index_opt
@verbose_option
@handle_errors
def query(question: str, k: int, as_json: bool, papers: str | None, index: str | None, verbose: bool) -> None:
    """Print the passages that best answer QUESTION, with sources and scores."""
    found = _kb(papers, index).retrieve(question, k)
    if as_json:
        rows = [{"source": s, "score": sc, "text": t} for t, s, sc in zip(found.chunks, found.sources, found.scores, strict=True)]
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    out = console()
    for text, source, score in zip(found.chunks, found.sources, found.scores, strict=True):
        out.print(f"[bold]{source}[/bold]  score {score:.3f}")
        out.print(text, markup=False)
        out.print()


COMMANDS = [knowledge]
