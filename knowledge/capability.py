"""Capabilities (small reusable analysis snippets) and reuse matches, as data."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field, fields
from typing import Any

# JSON keys that describe what a capability does; the rest is usage metadata.
_DESCRIPTIVE = ("id", "name", "description", "inputs", "outputs", "tags", "examples", "origin")


@dataclass
class Capability:
    """One atomic analysis step: what it does, the variables it reads and writes, its code, its record."""

    id: str
    name: str
    description: str
    inputs: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    code: str = ""
    tags: list[str] = field(default_factory=list)
    origin: str = "generated"
    """builtin (shipped in data/capabilities) or generated (written by a run)."""
    examples: list[str] = field(default_factory=list)
    """Other phrasings of the same task; each is searchable."""
    created: str = ""
    updated: str = ""
    version: int = 1
    reuse_count: int = 0
    runs: int = 0
    successes: int = 0
    total_seconds: float = 0.0
    last_used: str | None = None
    archived: bool = False
    code_sha256: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def success_rate(self) -> float | None:
        return self.successes / self.runs if self.runs else None

    @property
    def mean_seconds(self) -> float | None:
        return self.total_seconds / self.runs if self.runs else None

    def phrasings(self) -> list[str]:
        """The texts the store embeds for search: the description and each example."""
        return [self.description, *self.examples]

    def to_json(self) -> dict[str, Any]:
        """Everything but the code (which lives in `<id>.py`)."""
        data = asdict(self)
        data.pop("code")
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any], code: str = "") -> Capability:
        """Build from a JSON record; unknown keys go to `metadata` so nothing is lost."""
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in known and k != "code"}
        extra = {k: v for k, v in data.items() if k not in known}
        values.setdefault("name", values.get("id", ""))
        values.setdefault("description", values.get("name", ""))
        cap = cls(**values, code=code)
        cap.metadata = {**cap.metadata, **extra}
        return cap


_STR_LISTS = ("inputs", "outputs", "tags", "examples")
_INTS = ("version", "reuse_count", "runs", "successes")
_STRS = ("id", "name", "description", "origin", "created", "updated", "code_sha256")


def record_problems(data: Any) -> list[str]:
    """What is wrong with a capability's JSON record (empty when it may be trusted).

    Checked on every load, so a file that parses but holds wrong types is restored from
    history instead of being run, and is never committed.
    """
    if not isinstance(data, dict):
        return ["the record is not a JSON object"]
    problems = []
    for key in _STRS:
        if key in data and not isinstance(data[key], str):
            problems.append(f"{key} must be a string")
    description = data.get("description", data.get("name"))
    if not isinstance(description, str) or not description.strip():
        problems.append("description is empty")
    for key in _STR_LISTS:
        value = data.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            problems.append(f"{key} must be a list of strings")
    for key in _INTS:
        value = data.get(key, 0 if key != "version" else 1)
        if isinstance(value, bool) or not isinstance(value, int) or value < (1 if key == "version" else 0):
            problems.append(f"{key} must be a whole number >= {1 if key == 'version' else 0}")
    seconds = data.get("total_seconds", 0.0)
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 <= seconds < float("inf"):
        problems.append("total_seconds must be a finite number >= 0")
    if data.get("last_used") is not None and not isinstance(data["last_used"], str):
        problems.append("last_used must be a string or null")
    if not isinstance(data.get("archived", False), bool):
        problems.append("archived must be true or false")
    if not isinstance(data.get("metadata", {}), dict):
        problems.append("metadata must be an object")
    if not problems and data.get("successes", 0) > data.get("runs", 0):
        problems.append("successes exceed runs")
    return problems


@dataclass(frozen=True)
class Match:
    """A capability scored against a request: the reuse decision and why."""

    capability: Capability
    score: float
    """Combined score: semantic minus penalties plus variable agreement."""
    semantic: float
    """Best cosine similarity between the request and the capability's phrasings."""
    io_agreement: float | None
    """Share of the named input/output variables the capability has (None if none named)."""
    reusable: bool
    reason: str
    conflicts: tuple[str, ...] = ()


_ID_CHARS = re.compile(r"[^a-z0-9_]+")


def slugify(text: str, limit: int = 40) -> str:
    """A file-safe id fragment from a name: lowercase words joined by underscores."""
    slug = _ID_CHARS.sub("_", text.lower()).strip("_")
    return slug[:limit].rstrip("_") or "capability"
