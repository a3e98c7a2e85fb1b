"""Where the data planexec ships lives: one place, read through importlib.resources.

The repository's top-level `data/` folder is installed as the package `planexec.data`, so
the same calls work from a checkout, an editable install and a wheel in site-packages.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def shipped(*parts: str) -> Path:
    """Path to a file or folder inside the shipped data (`shipped("capabilities")`)."""
    root = resources.files("planexec.data")
    # Wheels and checkouts are unpacked on disk, so the Traversable is a real path.
    return Path(str(root.joinpath(*parts)))
