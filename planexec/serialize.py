"""Turn run data (numpy arrays, dataclasses, paths, tuples) into plain JSON values: numbers and
text whole; NaN and infinity become null, bytes a "<n bytes>" note, unknown objects their repr."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any


def to_jsonable(obj: Any) -> Any:
    """A JSON-safe copy of `obj`; arrays become nested lists, NaN/inf become None. Never truncates."""
    if obj is None or isinstance(obj, (bool, int, str)):
        return obj
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set, frozenset)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, Path):
        return str(obj)
    if hasattr(obj, "to_dict") and callable(obj.to_dict):
        return to_jsonable(obj.to_dict())
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return to_jsonable(dataclasses.asdict(obj))
    mod = type(obj).__module__
    if mod == "numpy" or mod.startswith("numpy."):
        import numpy as np

        if isinstance(obj, np.ndarray):
            if obj.dtype.kind in "biu" or (obj.dtype.kind == "f" and np.isfinite(obj).all()):
                return obj.tolist()  # plain numbers all the way down: nothing to convert
            return to_jsonable(obj.tolist())
        if isinstance(obj, np.generic):
            return to_jsonable(obj.item())
    if isinstance(obj, bytes):
        return f"<{len(obj)} bytes>"
    return repr(obj)


def summarize(value: Any, limit: int = 300) -> str:
    """A short human-readable description of a value, for display and prompts only."""
    mod = type(value).__module__
    if mod == "numpy" or mod.startswith("numpy."):
        import numpy as np

        if isinstance(value, np.ndarray):
            return f"array{tuple(value.shape)} {value.dtype}"
    if isinstance(value, dict):
        parts = []
        for k, v in value.items():
            parts.append(f"{k}={summarize(v, 60)}")
        text = "{" + ", ".join(parts) + "}"
    elif isinstance(value, (list, tuple)) and len(value) > 8:
        text = f"[{len(value)} items: " + ", ".join(summarize(v, 30) for v in value[:3]) + ", ...]"
    elif isinstance(value, float):
        text = f"{value:.6g}"
    else:
        text = str(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
