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
from collections.abc import Callable
from typing import Any

ARRAY_KEY = "$ndarray"
SAFE_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,100}\.npy$")
_HEADER = struct.Struct("!I")
MAX_DEPTH = 64


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


def load_array_file(dir_fd: int, name: str, max_bytes: int) -> Any:
    """Load `name` from the directory `dir_fd` as .npy: no pickles, no symlinks, size-capped."""
    import numpy as np

    if not SAFE_NAME.match(name):
        raise WireError(f"refusing array file name {name!r}")
    fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fh.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise WireError(f"{name} is not a regular file")
        if info.st_size > max_bytes:
            raise WireError(f"{name} is {info.st_size} bytes, over the cap of {max_bytes}")
        return np.load(fh, allow_pickle=False)


def send(sock: socket.socket, message: dict[str, Any]) -> None:
    data = json.dumps(message, allow_nan=True).encode()
    sock.sendall(_HEADER.pack(len(data)) + data)


def recv(sock: socket.socket, max_bytes: int) -> dict[str, Any]:
    """One message; raises EOFError when the peer has gone, WireError when it is malformed."""
    size = _HEADER.unpack(_recv_exact(sock, _HEADER.size))[0]
    if size > max_bytes:
        raise WireError(f"worker message of {size} bytes is over the cap of {max_bytes}")
    try:
        message = json.loads(_recv_exact(sock, size))
    except (ValueError, RecursionError) as exc:
        raise WireError(f"worker sent malformed data: {exc}") from None
    if not isinstance(message, dict):
        raise WireError("worker sent a message that is not an object")
    return message


def _recv_exact(sock: socket.socket, size: int) -> bytes:
    chunks, left = [], size
    while left:
        chunk = sock.recv(min(left, 1 << 20))
        if not chunk:
            raise EOFError("worker closed the connection")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)
