"""The data-only format between parent and worker: length-prefixed JSON, arrays as `.npy` files.

Nothing here ever unpickles: arrays are loaded with `allow_pickle=False`, everything else is
plain JSON, so a hostile worker can send data, never code.
"""

from __future__ import annotations

import json
import os
import re
import socket
import stat
import struct
import time
from collections.abc import Callable
from typing import Any

ARRAY_KEY = "$ndarray"
SAFE_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,100}\.npy$")
_HEADER = struct.Struct("!I")
MAX_DEPTH = 64


class ReadOnlyFile:
    """An input the worker memory-maps read-only from a host .npy file instead of a copy.

    The worker opens it before confining itself, so neither Landlock nor its uid need to
    reach the file; the worker can read it, never write it.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.path.realpath(os.fspath(path))
        try:
            with open(self.path, "rb") as fh:
                dtype, shape, _fortran, _offset = npy_header(fh)
        except (OSError, ValueError) as exc:
            raise EncodeError(f"{path} is not a readable .npy file without pickles: {exc}") from None
        count = 1
        for n in shape:
            count *= n
        self.nbytes = count * dtype.itemsize

    def __repr__(self) -> str:
        return f"ReadOnlyFile({self.path!r})"


class EncodeError(TypeError):
    """A value that cannot cross the sandbox boundary; the message names where it is."""


class WireError(ValueError):
    """A message or file from the worker broke the format or a size cap."""


def encode(value: Any, save_array: Callable[[Any], str], where: str = "value", depth: int = 0) -> Any:
    """JSON-able form of `value`; numpy arrays are saved via `save_array(arr) -> file name`."""
    if depth > MAX_DEPTH:
        raise EncodeError(f"{where} is nested more than {MAX_DEPTH} levels deep")
    if value is None or isinstance(value, (bool, int, float, str)):
        return value if type(value) in (bool, int, float, str, type(None)) else _plain(value)
    import numpy as np

    if isinstance(value, ReadOnlyFile):
        return {ARRAY_KEY: save_array(value)}
    if isinstance(value, np.ndarray):
        if value.dtype.hasobject:
            raise EncodeError(f"{where} is an object array; convert it to numbers or strings")
        return {ARRAY_KEY: save_array(value)}
    if isinstance(value, np.generic):
        item = value.item()
        if isinstance(item, complex):
            raise EncodeError(f"{where} is complex; store .real and .imag separately")
        return item if not isinstance(item, bytes) else item.decode("utf-8", "replace")
    if isinstance(value, (list, tuple)):
        return [encode(v, save_array, f"{where}[{i}]", depth + 1) for i, v in enumerate(value)]
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if not isinstance(key, (str, int)) or isinstance(key, bool):
                raise EncodeError(f"{where} has a key of type {type(key).__name__}; use strings")
            out[str(key)] = encode(item, save_array, f"{where}[{key!r}]", depth + 1)
        return out
    raise EncodeError(
        f"{where} is a {type(value).__name__}, which cannot leave the sandbox; "
        "use numbers, strings, lists, dicts or numpy arrays"
    )


def _plain(value: Any) -> Any:
    for kind in (bool, int, float, str):
        if isinstance(value, kind):
            return kind(value)
    return None


def decode(obj: Any, load_array: Callable[[str], Any], depth: int = 0) -> Any:
    """Inverse of `encode`, using `load_array(file name)` for arrays."""
    if depth > MAX_DEPTH + 2:
        raise WireError("message nested too deeply")
    if isinstance(obj, list):
        return [decode(v, load_array, depth + 1) for v in obj]
    if isinstance(obj, dict):
        if set(obj) == {ARRAY_KEY} and isinstance(obj[ARRAY_KEY], str):
            return load_array(obj[ARRAY_KEY])
        return {k: decode(v, load_array, depth + 1) for k, v in obj.items()}
    return obj


def npy_header(fh: Any) -> tuple[Any, tuple[int, ...], bool, int]:
    """(dtype, shape, fortran_order, data offset) of an open .npy file, without reading data."""
    from planexec.sandbox.parsing import read_npy_header

    try:
        shape, fortran, dtype = read_npy_header(fh)
    except ValueError as exc:
        raise WireError(str(exc)) from None
    if dtype.hasobject:
        raise WireError("object arrays are refused")
    return dtype, tuple(int(n) for n in shape), bool(fortran), fh.tell()


def load_array_file(dir_fd: int, name: str, budget: Budget) -> Any:
    """Load `name` from the directory `dir_fd` as .npy: no pickles, no symlinks, within `budget`.

    The size is checked before any data is read, from the file's own size and from its
    header (they must agree), so neither a declared size nor a sparse file gets past the cap.
    """
    import numpy as np

    if not SAFE_NAME.match(name):
        raise WireError(f"refusing array file name {name!r}")
    fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, dir_fd=dir_fd)
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fh.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise WireError(f"{name} is not a regular file")
        budget.take_array(name, info.st_size)
        dtype, shape, fortran, offset = npy_header(fh)
        count = 1
        for n in shape:
            count *= n
        if offset + count * dtype.itemsize != info.st_size:
            raise WireError(f"{name} declares {count * dtype.itemsize} bytes of data but holds "
                            f"{info.st_size - offset}")
        data = np.fromfile(fh, dtype=dtype, count=count)
        if data.size != count:
            raise WireError(f"{name} ended early")
        return data.reshape(shape, order="F" if fortran else "C")


def map_array_fd(fd: int) -> Any:
    """A read-only memory map of the .npy file open as `fd` (a host file the worker may read),
    whose indexed reads leave no pages mapped (`planexec.sandbox.mapped`)."""
    from planexec.sandbox.mapped import map_readonly

    with os.fdopen(os.dup(fd), "rb") as fh:  # the map holds its own descriptor
        dtype, shape, fortran, offset = npy_header(fh)
        return map_readonly(fh, dtype, shape, offset, fortran)


class Budget:
    """What one run may still hand the host: bytes and count of arrays and figures, and time."""

    def __init__(self, array_bytes: int, arrays: int, figure_bytes: int, figures: int,
                 deadline: float) -> None:
        self.array_bytes, self.arrays = array_bytes, arrays
        self.figure_bytes, self.figures = figure_bytes, figures
        self.deadline = deadline

    def take_array(self, name: str, size: int) -> None:
        if self.arrays <= 0:
            raise WireError("the worker returned more arrays than the cap allows; return fewer")
        if size > self.array_bytes:
            raise WireError(f"{name} is {size} bytes, over what is left of the results cap "
                            f"({self.array_bytes} bytes); return smaller arrays or raise max_result_mb")
        self.arrays -= 1
        self.array_bytes -= size

    def take_figure(self, name: str, size: int) -> None:
        if self.figures <= 0:
            raise WireError("the worker returned more figures than the cap allows; make fewer")
        if size > self.figure_bytes:
            raise WireError(f"{name} is {size} bytes, over what is left of the figures cap "
                            f"({self.figure_bytes} bytes)")
        self.figures -= 1
        self.figure_bytes -= size

    def left(self) -> float:
        """Seconds until the run's deadline (never negative)."""
        return max(0.0, self.deadline - time.monotonic())


def send(sock: socket.socket, message: dict[str, Any], fds: list[int] | None = None) -> None:
    data = json.dumps(message, allow_nan=True).encode()
    framed = _HEADER.pack(len(data)) + data
    if fds:
        sent = socket.send_fds(sock, [framed], fds)
        framed = framed[sent:]
    if framed:
        sock.sendall(framed)


def recv(sock: socket.socket, max_bytes: int, deadline: float | None = None,
         fds: list[int] | None = None) -> dict[str, Any]:
    """One message; raises EOFError when the peer has gone, WireError when it is malformed,
    TimeoutError at `deadline` (time.monotonic(); the whole message, not each read).

    With `fds`, descriptors passed along with the message's first bytes are appended to it.
    """
    size = _HEADER.unpack(_recv_exact(sock, _HEADER.size, deadline, fds))[0]
    if size > max_bytes:
        raise WireError(f"worker message of {size} bytes is over the cap of {max_bytes}")
    try:
        message = json.loads(_recv_exact(sock, size, deadline))
    except (ValueError, RecursionError) as exc:
        raise WireError(f"worker sent malformed data: {exc}") from None
    if not isinstance(message, dict):
        raise WireError("worker sent a message that is not an object")
    return message


def _recv_exact(sock: socket.socket, size: int, deadline: float | None = None,
                fds: list[int] | None = None) -> bytes:
    chunks, left = [], size
    while left:
        if deadline is not None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("the run's deadline passed")
            sock.settimeout(remaining)
        if fds is not None and not chunks:
            chunk, got, _flags, _addr = socket.recv_fds(sock, min(left, 1 << 20), 4)
            fds.extend(got)
        else:
            chunk = sock.recv(min(left, 1 << 20))
        if not chunk:
            raise EOFError("worker closed the connection")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)
