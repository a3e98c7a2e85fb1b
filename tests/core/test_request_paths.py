"""Paths written in requests: relative, absolute, ~, and quoted with spaces."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planexec import Config, Orchestrator
from planexec.datafiles import shipped
from planexec.request_paths import existing_paths_in, paths_in, without_paths


@pytest.mark.parametrize("text, expected", [
    ("Analyze /tmp/x/sales.csv and tell me", ["/tmp/x/sales.csv"]),
    ("Analyze ~/data/sales.csv.", ["~/data/sales.csv"]),
    ('Analyze "/tmp/my data/sales 2024.csv" now', ["/tmp/my data/sales 2024.csv"]),
    ("open 'my file.npy' please", ["my file.npy"]),
    ("Analyze data/examples/sales.csv and tell", ["data/examples/sales.csv"]),
    ("compute 3.5 and 2.0", []),
])
def test_paths_are_found_as_written(text: str, expected: list[str]) -> None:
    assert paths_in(text) == expected


@given(st.from_regex(r"[a-z][a-z0-9_]{0,8}( [a-z0-9_]{1,6})?", fullmatch=True))
def test_a_quoted_absolute_path_with_spaces_round_trips(name: str) -> None:
    path = f"/data/{name}/table.csv"
    assert paths_in(f'Describe "{path}" for me') == [path]


def test_home_paths_expand_and_existing_paths_become_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "t.csv").write_text("a\n1\n")
    assert existing_paths_in("Analyze ~/t.csv") == [tmp_path / "t.csv"]
    assert without_paths("Analyze ~/t.csv and sum it") == "Analyze t.csv and sum it"


@pytest.mark.parametrize("style", ["absolute", "quoted with spaces", "home"])
def test_a_path_in_the_request_is_the_input_offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, style: str) -> None:
    folder = tmp_path / "my data"
    folder.mkdir()
    target = folder / "sales.csv"
    target.write_bytes(shipped("examples", "sales.csv").read_bytes())
    monkeypatch.setenv("HOME", str(folder))
    written = {"absolute": str(target).replace(" ", "_") if False else None, "quoted with spaces": f'"{target}"',
               "home": "~/sales.csv"}[style]
    if style == "absolute":
        plain = tmp_path / "plain"
        plain.mkdir()
        written = str(plain / "sales.csv")
        (plain / "sales.csv").write_bytes(target.read_bytes())
    config = Config.from_env(llm="none", embedder="none", rag=False, write_outputs=False, home=tmp_path / "home")
    result = Orchestrator(config=config).run(f"Analyze {written} and tell me the average revenue")
    assert result.status == "succeeded", result.errors
    assert abs(result.results["mean_revenue"] - 3674.47983) < 1e-6
