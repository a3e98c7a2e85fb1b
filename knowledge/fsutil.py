"""Content hashes, and the atomic writes (planexec.atomic) under their old import path."""

from __future__ import annotations

import hashlib

from planexec.atomic import atomic_write_bytes, atomic_write_text

__all__ = ["atomic_write_bytes", "atomic_write_text", "sha256_bytes", "sha256_text"]


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_text(text: str) -> str:
    return sha256_bytes(text.encode("utf-8"))
