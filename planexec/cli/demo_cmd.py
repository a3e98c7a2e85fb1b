"""`planexec demo-data DIR`: write a synthetic calcium-imaging movie and its ground truth."""

from __future__ import annotations

from pathlib import Path

import click

from planexec.cli.common import console, handle_errors, verbose_option


@click.command("demo-data")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@click.option("--frames", default=200, show_default=True, type=click.IntRange(min=1), help="Number of frames.")
@click.option("--cells", default=15, show_default=True, type=click.IntRange(min=0), help="Number of cells.")
@click.option("--size", default=128, show_default=True, type=click.IntRange(min=16), help="Frame width and height in pixels.")
@click.option("--seed", default=0, show_default=True, type=int, help="Random seed (same seed, same movie).")
@click.option("--noise", default=0.02, show_default=True, type=click.FloatRange(min=0.0, max=1.0), help="Pixel noise standard deviation, in [0, 1] intensity units.")
@click.option("--format", "fmt", default="png", show_default=True, type=click.Choice(["png", "tiff"]), help="PNG frames or one multi-page TIFF.")
@click.option("--bits", default=16, show_default=True, type=click.Choice(["8", "16"]), help="Bit depth of the written pixels.")
@click.option("--force", is_flag=True, help="Write into a non-empty folder that holds no earlier demo.")
@verbose_option
@handle_errors
def demo_data(
    directory: Path,
    frames: int,
    cells: int,
    size: int,
    seed: int,
    noise: float,
    fmt: str,
    bits: str,
    force: bool,
    verbose: bool,
) -> None:
    """Write a synthetic movie (cells, spikes, GCaMP6f-like transients, noise) and ground_truth.json."""
    from planexec.tools.calcium_demo import write_demo

    written, truth = write_demo(
        directory, frames, cells, size, seed, noise, format=fmt, bits=int(bits), force=force
    )
    what = f"{len(written)} PNG frames" if fmt == "png" else f"a {frames}-page TIFF"
    out = console()
    out.print(
        f"Wrote {what} ({size}x{size}, {truth.n_cells} cells, {truth.n_spikes} spikes, "
        f"noise {noise:g}) to {directory}"
    )
    out.print(f"Ground truth: {directory / 'ground_truth.json'}")
    out.print(f'Try: planexec run "Count the cells in the images" --images {directory}')


COMMANDS = [demo_data]
