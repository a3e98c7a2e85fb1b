"""The tool seam: @tool schemas, argument validation, the registry (routing by type) and describe_table."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planexec.errors import ToolError, ToolInputError, UnknownNameError
from planexec.tools import (
    Tool,
    ToolContext,
    ToolOutput,
    ToolRegistry,
    default_registry,
    tool,
    validate_args,
)
from planexec.tools.table import column_stats, describe_table
from tests.core.helpers import SALES, mean_revenue


@tool(type="statistics")
def summarize_curves(n_curves: int, method: Literal["mbd", "bd"] = "mbd", alpha: float = 0.5,
                     labels: list[str] | None = None, flag: bool = False, ctx: ToolContext | None = None) -> dict:
    """Summarize an ensemble of curves.

    Second paragraph is not part of the description.
    """
    return {"n": n_curves, "method": method, "alpha": alpha, "labels": labels, "flag": flag, "has_ctx": ctx is not None}


def test_decorator_builds_name_type_description_and_schema() -> None:
    t = summarize_curves
    assert isinstance(t, Tool)
    assert (t.name, t.type) == ("summarize_curves", "statistics")
    assert t.description == "Summarize an ensemble of curves."
    assert t.input_schema == {
        "type": "object",
        "properties": {
            "n_curves": {"type": "integer"},
            "method": {"enum": ["mbd", "bd"], "default": "mbd"},
            "alpha": {"type": "number", "default": 0.5},
            "labels": {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}], "default": None},
            "flag": {"type": "boolean", "default": False},
        },
        "required": ["n_curves"],
    }


def test_run_passes_ctx_and_wraps_plain_values() -> None:
    out = summarize_curves.run({"n_curves": 3}, ToolContext())
    assert isinstance(out, ToolOutput) and out.value["has_ctx"] and out.value["n"] == 3
    assert "n=3" in out.summary
    assert summarize_curves(n_curves=2)["n"] == 2  # still callable as a function


def test_validate_args_fills_defaults_and_rejects_bad_input() -> None:
    assert validate_args(summarize_curves, {"n_curves": 4}) == {
        "n_curves": 4, "method": "mbd", "alpha": 0.5, "labels": None, "flag": False}
    with pytest.raises(ToolInputError, match="summarize_curves: input: 'n_curves' is a required property"):
        validate_args(summarize_curves, {})
    with pytest.raises(ToolInputError, match="summarize_curves: method: 'xyz' is not one of"):
        validate_args(summarize_curves, {"n_curves": 1, "method": "xyz"})
    with pytest.raises(ToolInputError, match="n_curves"):
        validate_args(summarize_curves, {"n_curves": "many"})


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.sampled_from(["n_curves", "method", "alpha", "flag", "other"]),
                       st.none() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=4) | st.booleans()))
def test_validate_args_either_passes_a_valid_dict_or_raises_tool_input_error(args: dict[str, Any]) -> None:
    try:
        filled = validate_args(summarize_curves, args)
    except ToolInputError:
        return
    n = filled["n_curves"]
    # JSON Schema counts 1.0 as an integer; it passes as given
    assert (isinstance(n, int) or float(n).is_integer()) and not isinstance(n, bool)
    assert filled["method"] in ("mbd", "bd")


def test_registry_routes_by_name_and_type() -> None:
    @tool(type="vis")
    def plot_it() -> str:
        """Draw."""
        return "p"

    reg = ToolRegistry([summarize_curves, plot_it])
    assert reg.get("plot_it") is plot_it and "plot_it" in reg and len(reg) == 2
    assert reg.by_type("vis") == [plot_it] and reg.by_type("statistics") == [summarize_curves]
    assert reg.by_type("code") == []
    assert reg.names() == {"plot_it", "summarize_curves"}
    assert "- plot_it [vis]: Draw. (args: no arguments)" in reg.catalogue()
    assert "summarize_curves [statistics]" in reg.catalogue() and "n_curves, method" in reg.catalogue()


def test_unknown_tool_lists_what_exists_and_suggests() -> None:
    reg = ToolRegistry([summarize_curves])
    with pytest.raises(UnknownNameError) as info:
        reg.get("summarise_curves")
    msg = str(info.value)
    assert "unknown tool 'summarise_curves'" in msg and "Did you mean summarize_curves?" in msg
    assert "Known tools: summarize_curves" in msg and not msg.startswith('"')


def test_registry_refuses_duplicates_and_non_tools() -> None:
    reg = ToolRegistry([summarize_curves])
    with pytest.raises(ValueError, match="already registered"):
        reg.register(summarize_curves)
    reg.register(summarize_curves, replace=True)
    with pytest.raises(TypeError, match="is not a tool: it has no 'name'"):
        reg.register(object())  # type: ignore[arg-type]


def test_default_registry_is_fresh_each_time_and_has_describe_table() -> None:
    a, b = default_registry(), default_registry()
    assert a is not b and "describe_table" in a
    assert a.get("describe_table").type == "data"


def test_describe_table_on_the_sales_example() -> None:
    out = describe_table.run(validate_args(describe_table, {"path": str(SALES)}), ToolContext())
    assert out.value["rows"] == 1000
    assert out.value["columns"] == ["date", "region", "product", "units", "revenue"]
    rev = out.value["stats"]["revenue"]
    assert rev["kind"] == "numeric" and rev["count"] == 1000
    assert rev["mean"] == pytest.approx(mean_revenue())
    assert out.results["mean_revenue"] == pytest.approx(mean_revenue())
    assert out.value["stats"]["region"]["kind"] == "text"


def test_describe_table_uses_the_runs_file_and_reads_json(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"rows": [{"x": 1, "y": "a"}, {"x": 3, "y": "b"}, {"x": None, "y": "a"}]}))
    out = describe_table.run({"path": ""}, ToolContext(files=(path,)))
    x = out.value["stats"]["x"]
    assert (x["count"], x["missing"], x["mean"], x["median"], x["min"], x["max"]) == (2, 1, 2.0, 2.0, 1.0, 3.0)
    assert out.value["stats"]["y"]["top"] == "a"


def test_describe_table_errors_name_the_fix(tmp_path: Path) -> None:
    with pytest.raises(ToolError, match="pass a CSV or JSON file"):
        describe_table.run({"path": ""}, ToolContext())
    with pytest.raises(ToolError, match="file not found"):
        describe_table.run({"path": str(tmp_path / "none.csv")}, ToolContext())
    empty = tmp_path / "e.csv"
    empty.write_text("a,b\n")
    with pytest.raises(ToolError, match="no data rows"):
        describe_table.run({"path": str(empty)}, ToolContext())


def test_column_stats_handles_currency_and_semicolons(tmp_path: Path) -> None:
    s = column_stats(["$1,000", "2000", "", None, "3000"])
    assert s["kind"] == "numeric" and s["mean"] == 2000.0 and s["missing"] == 2 and s["std"] == 1000.0
    path = tmp_path / "semi.csv"
    path.write_text("a;b\n1;x\n2;y\n")
    out = describe_table.run({"path": str(path)}, ToolContext())
    assert out.value["columns"] == ["a", "b"] and out.results == {"mean_a": 1.5}


def test_tools_defined_in_a_function_with_local_names_in_hints() -> None:
    from planexec.tools import ToolOutput as LocalOutput

    def make() -> Any:
        @tool(type="data")
        def local(target: str, window: int = 3) -> LocalOutput:
            """Uses a name only this scope knows in its return hint."""
            return LocalOutput({"target": target, "window": window})

        return local

    t = make()
    assert t.input_schema["properties"] == {"target": {"type": "string"}, "window": {"type": "integer", "default": 3}}
    assert t.run({"target": "x", "window": 3}, ToolContext()).value == {"target": "x", "window": 3}


def test_describe_table_gives_every_statistic_of_a_named_column(tmp_path: Path) -> None:
    table = tmp_path / "t.csv"
    table.write_text("region,revenue\nn,1\ns,2\nn,6\n")
    out = describe_table(str(table), column="revenue")
    assert out.results["max_revenue"] == 6 and out.results["min_revenue"] == 1 and out.results["sum_revenue"] == 9
    assert out.results["median_revenue"] == 2 and out.results["mean_revenue"] == pytest.approx(3.0)
    assert out.results["std_revenue"] == pytest.approx(2.6457513, rel=1e-6)
    assert "max_revenue" not in describe_table(str(table)).results, "without a column only the means"


def test_the_answer_leads_with_the_statistic_asked() -> None:
    from planexec.synthesis import key_figures

    results = {"mean_revenue": 3.0, "median_revenue": 2.0, "std_revenue": 2.6, "max_revenue": 6.0}
    assert key_figures("what is the maximum revenue?", results)[0] == ("max_revenue", 6.0)
    assert key_figures("what is the standard deviation of revenue?", results)[0] == ("std_revenue", 2.6)
