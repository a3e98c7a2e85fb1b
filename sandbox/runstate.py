"""What runs code inside a worker: its namespace, one run with captured output, and the
encoding of results, arrays and figures into the worker's scratch folder."""

from __future__ import annotations

import builtins
import io
import json
import os
import sys
import time
import traceback
from typing import Any

from planexec.sandbox import wire

NATIVE_LOG = "native.log"
BIG_INPUT_BYTES = 8 << 20


class CappedText(io.TextIOBase):
    """A text stream that keeps the first `cap` characters and counts the rest."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.parts: list[str] = []
        self.kept = 0
        self.dropped = 0

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        text = str(text)
        room = self.cap - self.kept
        if room > 0:
            self.parts.append(text[:room])
            self.kept += min(room, len(text))
        self.dropped += max(0, len(text) - max(room, 0))
        return len(text)

    def text(self) -> str:
        body = "".join(self.parts)
        if self.dropped:
            body += f"\n... [output truncated: {self.dropped} more characters]"
        return body


class RunState:
    """The namespace one worker runs code in, and its requests: run, get, set."""

    def __init__(self, req: dict[str, Any], scratch: str, mapped: dict[str, int]) -> None:
        import matplotlib.pyplot as plt
        import numpy as np
        import scipy
        import skimage

        self.scratch = scratch
        self.base = str(req["base"])
        self.mapped = mapped
        self.output_cap = int(req.get("output_chars", 20_000))
        self.counter = 0
        self.ns: dict[str, Any] = {
            "__builtins__": builtins, "__name__": "__sandbox__", "np": np, "numpy": np,
            "scipy": scipy, "skimage": skimage, "plt": plt, "matplotlib": sys.modules["matplotlib"],
            "results": {},
        }

    def _save_array(self, arr: Any) -> str:
        import numpy as np

        self.counter += 1
        name = f"out_{self.counter}.npy"
        np.save(os.path.join(self.scratch, name), np.ascontiguousarray(arr), allow_pickle=False)
        return name

    def _load_array(self, name: str) -> Any:
        import numpy as np

        if name in self.mapped:
            return wire.map_array_fd(self.mapped[name])
        if not wire.SAFE_NAME.match(name):
            raise wire.WireError(f"bad array name {name!r}")
        path = os.path.join(self.scratch if name.startswith("set_") else self.base, name)
        mmap = "c" if os.path.getsize(path) > BIG_INPUT_BYTES else None
        return np.load(path, mmap_mode=mmap, allow_pickle=False)

    def load_inputs(self, name: str | None) -> dict[str, Any]:
        if not name:
            return {}
        with open(os.path.join(self.base, name), encoding="utf-8") as fh:
            return wire.decode(json.load(fh), self._load_array)

    def set(self, values: dict[str, Any]) -> dict[str, Any]:
        self.ns.update(wire.decode(values, self._load_array))
        return {"ok": True}

    def get(self, names: list[str]) -> dict[str, Any]:
        missing = [n for n in names if n not in self.ns or n.startswith("__")]
        found = {n: self.ns[n] for n in names if n not in missing}
        try:
            values = {n: wire.encode(v, self._save_array, n) for n, v in found.items()}
        except wire.EncodeError as exc:
            return {"ok": False, "error_type": "SerializationError", "error": str(exc)}
        return {"ok": True, "values": values, "missing": missing}

    def run(self, code: str) -> dict[str, Any]:
        import matplotlib.pyplot as plt

        out, err = CappedText(self.output_cap), CappedText(self.output_cap)
        ns = self.ns
        ns["results"] = {}
        ns.pop("figure", None)
        ns.pop("figures", None)
        reply: dict[str, Any] = {"ok": True, "error": None, "error_type": None, "line": None}
        saved = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = out, err
        started = time.perf_counter()
        try:
            exec(compile(code, "<sandbox>", "exec"), ns)  # noqa: S102 - the point of a sandbox
        except BaseException as exc:  # noqa: BLE001 - every failure becomes data
            reply.update(_describe_error(exc))
        finally:
            sys.stdout, sys.stderr = saved
        reply["seconds"] = time.perf_counter() - started
        results = ns.get("results")
        if reply["ok"] and not isinstance(results, dict):
            reply.update(ok=False, error_type="ResultError",
                         error=f"`results` must be a dict, not {type(results).__name__}")
        try:
            reply["results"] = wire.encode(results if isinstance(results, dict) else {},
                                           self._save_array, "results")
        except (wire.EncodeError, RecursionError) as exc:
            reply.update(ok=False, error_type="SerializationError", error=str(exc), results={})
        try:
            reply["figures"] = self._save_figures(plt)
        except Exception as exc:  # noqa: BLE001
            err.write(f"\n[figures could not be saved: {type(exc).__name__}: {exc}]")
            reply["figures"] = []
        reply["stdout"] = out.text()
        reply["stderr"] = err.text() + self._native_output()
        return reply

    def _save_figures(self, plt: Any) -> list[str]:
        from matplotlib.figure import Figure

        if not self.scratch:  # the warm-up run has no folder: never write into the working directory
            plt.close("all")
            return []
        wanted = [self.ns.get("figure")]
        extra = self.ns.get("figures")
        if isinstance(extra, (list, tuple)):
            wanted.extend(extra)
        wanted.extend(plt.figure(n) for n in plt.get_fignums())
        seen, names = set(), []
        for fig in wanted:
            if isinstance(fig, Figure) and id(fig) not in seen:
                seen.add(id(fig))
                self.counter += 1
                name = f"fig_{self.counter}.png"
                fig.savefig(os.path.join(self.scratch, name), format="png", dpi=100)
                names.append(name)
        plt.close("all")
        return names

    def _native_output(self) -> str:
        if not self.scratch:
            return ""
        path = os.path.join(self.scratch, NATIVE_LOG)
        try:
            with open(path, "r+b") as fh:
                data = fh.read(self.output_cap + 1)
                size = os.fstat(fh.fileno()).st_size
                fh.truncate(0)
            os.lseek(1, 0, os.SEEK_SET)
        except OSError:
            return ""
        if not data:
            return ""
        text = data[: self.output_cap].decode("utf-8", "replace")
        if size > self.output_cap:
            text += f"\n... [native output truncated: {size - self.output_cap} more bytes]"
        return text


def _describe_error(exc: BaseException) -> dict[str, Any]:
    line = getattr(exc, "lineno", None) if isinstance(exc, SyntaxError) else None
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename == "<sandbox>":
            line = frame.lineno
    name = type(exc).__name__
    text = str(exc) or name
    if isinstance(exc, MemoryError):
        text = "the code ran out of memory (the sandbox's memory_mb); raise memory_mb or work in chunks"
    elif isinstance(exc, RecursionError):
        text = f"{text}; rewrite the recursion as a loop"
    elif isinstance(exc, SystemExit):
        text = "the code called exit(); leave results in `results` instead"
    where = f" (line {line})" if line else ""
    return {"ok": False, "error_type": name, "error": f"{name}: {text}{where}", "line": line}
