"""report.json: large numeric lists leave for arrays/*.npy by reference, and come back whole."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from planexec.report_json import INLINE_LIMIT, ArrayStore, externalize, load_report
from planexec.serialize import to_jsonable


def test_small_ragged_and_mixed_lists_stay_inline(tmp_path: Path) -> None:
    data = {"few": list(range(INLINE_LIMIT)), "ragged": [[1, 2], [3]] * 50, "mixed": [1, "a"] * 50,
            "events": [{"cell": i, "frame": i} for i in range(100)], "flags": [True] * 100}
    assert externalize(data, ArrayStore(tmp_path)) == data
    assert not (tmp_path / "arrays").exists()


def test_identical_arrays_share_one_file_and_nan_survives(tmp_path: Path) -> None:
    values = np.linspace(0, 1, 200)
    values[3] = np.nan
    jsonable = to_jsonable({"a": values, "b": {"again": values}, "grid": np.arange(300).reshape(3, 100)})
    out = externalize(jsonable, ArrayStore(tmp_path))
    assert out["a"]["$npy"] == out["b"]["again"]["$npy"] and out["grid"]["shape"] == [3, 100]
    assert len(list((tmp_path / "arrays").iterdir())) == 2
    (tmp_path / "report.json").write_text(json.dumps(out))
    back = load_report(tmp_path / "report.json")
    assert back == jsonable and back["a"][3] is None


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False, width=32), min_size=0, max_size=300),
       st.integers(1, 3))
def test_round_trip_is_exact(values: list[float], rows: int) -> None:
    data = {"x": [values] * rows, "n": len(values)}
    with tempfile.TemporaryDirectory() as tmp:
        out = externalize(data, ArrayStore(Path(tmp)))
        Path(tmp, "report.json").write_text(json.dumps(out))
        assert load_report(Path(tmp) / "report.json") == data
