"""The README's Python examples run, and print what their comments say they print."""

from __future__ import annotations

import re

import pytest

from tests.conftest import REPO

BLOCKS = re.findall(r"```python\n(.*?)```", (REPO / "README.md").read_text(encoding="utf-8"), re.S)
_PRINT = re.compile(r"^(\s*)print\((.*)\)\s+#\s*(.+)$")


def _with_checks(block: str) -> str:
    """Turn `print(x)  # expected` lines into assertions that str(x) starts with the expected text."""
    lines = []
    for line in block.splitlines():
        m = _PRINT.match(line)
        if m:
            indent, expr, expected = m.groups()
            line = f"{indent}assert ' '.join(map(str, ({expr},))).startswith({expected.strip()!r}), ({expr},)"
        lines.append(line)
    return "\n".join(lines)


def test_readme_has_examples() -> None:
    assert len(BLOCKS) >= 2


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_example_runs(index: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    code = _with_checks(BLOCKS[index])
    assert "assert" in code or index > 1
    exec(compile(code, f"README block {index}", "exec"), {"__name__": "readme"})
