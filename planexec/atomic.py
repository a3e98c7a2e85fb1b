"""Atomic file writes: a temp file in the same folder, then a rename, so a reader (or a crash)
sees the old file or the new one, never half of one. The one helper every module uses."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO


def atomic_write(path: Path, write: Callable[[BinaryIO], object], *, sync: bool = True) -> None:
    """Replace `path` with what `write(fh)` writes; `sync` fsyncs before the rename (durable on power loss)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            if sync:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_bytes(path: Path, data: bytes, *, sync: bool = True) -> None:
    atomic_write(path, lambda fh: fh.write(data), sync=sync)


def atomic_write_text(path: Path, text: str, *, sync: bool = True) -> None:
    atomic_write_bytes(path, text.encode("utf-8"), sync=sync)
