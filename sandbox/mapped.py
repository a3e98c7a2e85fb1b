"""A movie file mapped read-only into the worker whose reads do not stay resident.

`np.memmap` keeps every page a read touched mapped into the process: one pass over a 2.6 GB
movie leaves 2.6 GB in the worker's resident memory (clean page cache, but counted as the
worker's RSS). A `ReleasingMap` returns each indexed read as a copy and then drops the map's
pages (`madvise(MADV_DONTNEED)`: the kernel keeps them in its page cache, the next read maps
them again), so the worker holds one block of frames, not the movie.

Only indexing releases: `np.asarray(movie)`, ufuncs and reductions over the whole map
(`movie.max(axis=0)`) read through it as a plain memmap and keep what they touch until the
next indexed read. Analysis code reads a large movie in blocks of frames.
"""

from __future__ import annotations

import mmap
from typing import Any

import numpy as np


class ReleasingMap(np.memmap):
    """A read-only memmap of a host file whose indexed reads are copies that leave no pages mapped."""

    def __getitem__(self, key: Any) -> Any:
        item = super().__getitem__(key)
        if not isinstance(item, np.ndarray):
            return item
        if getattr(self, "_mmap", None) is None:  # an array computed from the map: plain views, as numpy's
            return item.view(np.ndarray) if isinstance(item, ReleasingMap) else item
        if not np.may_share_memory(item, self):  # fancy indexing already copied
            self.release()
            return item.view(np.ndarray)
        copy = np.array(item, subok=False)
        self.release()
        return copy

    def release(self) -> None:
        """Unmap every page of the file this process holds (they stay in the kernel's page cache)."""
        mapping = getattr(self, "_mmap", None)
        if mapping is not None and not mapping.closed:
            mapping.madvise(mmap.MADV_DONTNEED)


def map_readonly(fh: Any, dtype: Any, shape: tuple[int, ...], offset: int, fortran: bool) -> ReleasingMap:
    """The array stored at `offset` in the open file `fh`, mapped read-only."""
    return ReleasingMap(fh, dtype=dtype, mode="r", offset=offset, shape=shape, order="F" if fortran else "C")


__all__ = ["ReleasingMap", "map_readonly"]
