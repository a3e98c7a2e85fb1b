"""One llama.cpp server with gemma-3-270m for every real-model test (the `local-llm` extra)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from planexec.llm.local_server import LocalServer, available


@pytest.fixture(scope="session")
def local_server() -> Iterator[LocalServer]:
    missing = available()
    if missing:
        pytest.skip(missing)
    with LocalServer() as server:
        yield server
