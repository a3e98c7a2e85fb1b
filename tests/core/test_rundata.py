"""RunData: the run's shared data as typed fields, merged from ToolOutput.state dicts as before."""

from __future__ import annotations

import json

from planexec.rundata import CodeBlock, RunData
from planexec.serialize import to_jsonable
from planexec.tools.base import ToolContext, merge_state


def test_merging_joins_variables_appends_new_blocks_and_replaces_other_keys() -> None:
    data = RunData()
    merge_state(data, {"variables": {"a": 1}, "code_blocks": [("Inputs: x", "x = 1")], "statistics": {"n": 1}})
    merge_state(data, {"variables": {"b": 2}, "code_blocks": [("Inputs: x", "x = 1"), ("Step 1", "y = x")],
                       "statistics": {"n": 2}})
    assert data.variables == {"a": 1, "b": 2}
    assert data.code_blocks == [CodeBlock("Inputs: x", "x = 1"), CodeBlock("Step 1", "y = x")]
    assert data["statistics"] == {"n": 2} and data.extra == {"statistics": {"n": 2}}


def test_blocks_saved_by_a_checkpoint_come_back_typed_and_are_not_repeated() -> None:
    data = RunData()
    data["code_blocks"] = json.loads(json.dumps(to_jsonable([CodeBlock("Step 1", "y = 1")])))
    merge_state(data, {"code_blocks": [CodeBlock("Step 1", "y = 1"), CodeBlock("Step 2", "z = y")]})
    assert [b.title for b in data.code_blocks] == ["Step 1", "Step 2"]


def test_the_mapping_view_lists_only_fields_that_hold_something() -> None:
    data = RunData.of({"variables": {"images": 3}, "seen": True})
    assert dict(data) == {"variables": {"images": 3}, "seen": True}
    assert "code_blocks" not in data and data.get("stack_meta") is None and len(data) == 2
    data.setdefault("variables", {})["params"] = {"fs": 10.0}
    assert data.variables == {"images": 3, "params": {"fs": 10.0}}
    del data["variables"]
    assert data.variables == {} and "variables" not in data


def test_a_tool_context_given_a_dict_gets_run_data_with_its_keys() -> None:
    ctx = ToolContext(state={"variables": {"v": [1.0, 3.0]}, "rag_chunks": ["dF/F is (F - F0) / F0."]})
    assert isinstance(ctx.state, RunData)
    assert ctx.state.variables == {"v": [1.0, 3.0]} and ctx.state.rag_chunks == ["dF/F is (F - F0) / F0."]
    shared = RunData()
    assert ToolContext(state=shared).state is shared
