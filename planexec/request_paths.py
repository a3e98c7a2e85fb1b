"""File paths written in a request: relative, absolute, `~`, and quoted (with spaces).

Only the text is parsed here; callers decide whether a path names an input (it exists, or
matches a file given with --file).
"""

from __future__ import annotations

import re
from pathlib import Path

_QUOTED = re.compile(r"""(?:"([^"\n]+)"|'([^'\n]+)'|`([^`\n]+)`|“([^”\n]+)”)""")
_BARE = re.compile(
    r"(?<![\w/~.])(?:~/|/|\./|\.\./)?(?:[\w.+~-]+/)*[\w+-][\w.+-]*\.(?=[A-Za-z0-9]{0,4}[A-Za-z])[A-Za-z0-9]{1,5}\b"
)


def _looks_like_path(text: str) -> bool:
    return bool(text) and ("/" in text or text.startswith("~") or bool(re.search(r"\.[A-Za-z0-9]{1,5}$", text)))


def paths_in(text: str) -> list[str]:
    """Every path-like span of `text`, quoted ones first, in order, without duplicates."""
    found: list[str] = []
    rest = text
    for m in _QUOTED.finditer(text):
        inner = next(g for g in m.groups() if g is not None).strip()
        if _looks_like_path(inner):
            found.append(inner)
            rest = rest.replace(m.group(0), " ")
    found += [m.group(0).rstrip(".") for m in _BARE.finditer(rest)]
    return list(dict.fromkeys(found))


def existing_paths_in(text: str) -> list[Path]:
    """The paths written in `text` that exist on disk, with `~` expanded."""
    out = []
    for raw in paths_in(text):
        p = Path(raw).expanduser()
        if p.exists():
            out.append(p)
    return out


def without_paths(text: str) -> str:
    """`text` with each existing path written in it (quoted or not) reduced to its file name, spaces as _.

    What a clause asks does not depend on where its file lives: "Analyze "/tmp/my data/s.csv""
    reads like "Analyze s.csv" to the coverage decision.
    """
    out = text
    for raw in sorted(paths_in(text), key=len, reverse=True):
        plain_relative = not raw.startswith(("/", "~")) and " " not in raw and raw in [w.strip(",.;:!?") for w in text.split()]
        if Path(raw).expanduser().exists() and not plain_relative:  # a plain relative path reads as before
            name = Path(raw).name.replace(" ", "_")
            for quote in ('"', "'", "`"):
                out = out.replace(f"{quote}{raw}{quote}", name)
            out = out.replace(raw, name)
    return out
