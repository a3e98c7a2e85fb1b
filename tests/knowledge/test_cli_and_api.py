from __future__ import annotations

import subprocess
import sys

from click.testing import CliRunner

import planexec.knowledge as knowledge
from planexec.cli import cli
from planexec.tools import ToolContext, default_registry


def test_public_api_and_light_import() -> None:
    for name in knowledge.__all__:
        assert hasattr(knowledge, name), name
    code = "import sys, planexec.knowledge; print(sorted(m for m in ('torch', 'faiss', 'sentence_transformers') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_cli_knowledge_and_capabilities(monkeypatch) -> None:
    monkeypatch.setenv("PLANEXEC_EMBEDDER", "none")
    runner = CliRunner()
    built = runner.invoke(cli, ["knowledge", "build"])
    assert built.exit_code == 0, built.output
    assert "4 papers" in built.output
    asked = runner.invoke(cli, ["knowledge", "query", "band depth of curves", "-k", "1", "--json"])
    assert asked.exit_code == 0 and "functional_boxplots.md" in asked.output
    listed = runner.invoke(cli, ["capabilities", "list"])
    assert listed.exit_code == 0
    missing = runner.invoke(cli, ["capabilities", "show", "no_such_capability"])
    assert missing.exit_code == 2 and "Error: no capability" in missing.output


def test_rag_retrieval_tool(monkeypatch) -> None:
    monkeypatch.setenv("PLANEXEC_EMBEDDER", "none")
    from planexec.config import Config

    tool = default_registry().get("rag_retrieval")
    assert tool.type == "knowledge"
    out = tool.run({"query": "watershed minimum distance between seeds", "k": 2}, ToolContext(config=Config.from_env()))
    assert len(out.value["passages"]) == 2 and out.value["passages"][0]["source"] == "cell_segmentation.md"
    assert out.state["rag_chunks"]
