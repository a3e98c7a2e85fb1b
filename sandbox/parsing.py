"""One lock around every parse of Python syntax the host may do from parallel step threads.

CPython 3.11 keeps the depth of AST construction in interpreter-wide state, so two threads
parsing at once (the code policy's `ast.parse`, numpy reading a `.npy` header with
`ast.literal_eval`) can fail one of them with "SystemError: AST constructor recursion depth
mismatch" (python/cpython gh-106905). Seen in the test suite: a step failed this way in 3 of
5 full runs.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, BinaryIO

PARSE_LOCK = threading.RLock()


def read_npy_header(fh: BinaryIO) -> tuple[tuple[int, ...], bool, Any]:
    """(shape, fortran_order, dtype) of an open `.npy` file, read under the parse lock."""
    import numpy as np

    with PARSE_LOCK:
        version = np.lib.format.read_magic(fh)
        if version == (1, 0):
            return np.lib.format.read_array_header_1_0(fh)
        if version in ((2, 0), (3, 0)):
            return np.lib.format.read_array_header_2_0(fh)
        raise ValueError(f"unsupported .npy version {version}")


def load_npy(path: str | Path | BinaryIO, **kwargs: Any) -> Any:
    """`np.load` under the parse lock (its header is parsed as Python syntax)."""
    import numpy as np

    with PARSE_LOCK:
        return np.load(path, **kwargs)
