"""Shipped vectors of the texts the coverage decision scores a clause against, for the packaged model.

The widened action cards hold ~3,400 texts; the numpy MiniLM embeds about 170 a second, so a new
process (or a new home, before its disk cache fills) would spend ~20 s on them before planning.
`data/calibration/card_vectors.npz` holds their vectors; a text it lacks is embedded as before.
Regenerate it after changing the cards, the labelled sets or an action's phrasings:

    HF_HUB_OFFLINE=1 .venv/bin/python -m planexec.card_vectors
"""

from __future__ import annotations

import zipfile
from functools import lru_cache
from pathlib import Path
from typing import Any

from planexec.datafiles import shipped

__all__ = ["card_texts", "shipped_vectors", "vectors_path", "write_vectors"]


def vectors_path() -> Path:
    return shipped("calibration", "card_vectors.npz")


@lru_cache(maxsize=4)
def shipped_vectors(model_name: str, path: Path | None = None) -> dict[str, Any]:
    """Text -> vector for `model_name` from `path` (default: the shipped file); empty when the file is missing,
    damaged or for another model."""
    import numpy as np

    try:
        with np.load(path or vectors_path(), allow_pickle=False) as data:
            if str(data["model"]) != model_name:
                return {}
            return dict(zip(data["texts"].tolist(), data["vectors"], strict=True))
    except (OSError, KeyError, ValueError, zipfile.BadZipFile):
        return {}


def card_texts() -> list[str]:
    """Every text a clause is scored against: each action's phrasings (its card's served requests included) and
    its card's near misses."""
    from planexec.actions import actions_from
    from planexec.coverage_actions import near_misses, phrasings
    from planexec.knowledge.starters import read_capability_dir
    from planexec.knowledge.store import default_seed_dir
    from planexec.tools import default_registry

    actions = actions_from(default_registry(), read_capability_dir(default_seed_dir()))
    return list(dict.fromkeys(t for a in actions for t in (*phrasings(a), *(n.text for n in near_misses(a)))))


def write_vectors(embedder: Any, path: Path | None = None) -> Path:
    """Embed `card_texts()` with `embedder` and write them (with its name) to `path` (default: the shipped file)."""
    import numpy as np

    texts = card_texts()
    vectors = np.asarray(embedder.embed(texts), dtype=np.float32)
    path = path or vectors_path()
    with path.open("wb") as f:
        np.savez_compressed(f, model=np.array(embedder.name), texts=np.array(texts), vectors=vectors)
    return path


if __name__ == "__main__":
    from planexec.knowledge.embedder import get_embedder

    print(f"wrote {write_vectors(get_embedder('auto'))}")
