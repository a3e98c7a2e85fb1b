"""Home and papers settings come from one place, Config; PLANEXEC_PAPERS is the old name of PLANEXEC_PAPERS_DIR."""

from __future__ import annotations

from pathlib import Path

from planexec.config import Config, default_home


def test_papers_dir_reads_the_new_name_and_the_old_one_as_an_alias(tmp_path: Path) -> None:
    new, old = tmp_path / "new", tmp_path / "old"
    assert Config.from_env({"PLANEXEC_PAPERS_DIR": str(new)}).papers() == new
    assert Config.from_env({"PLANEXEC_PAPERS": str(old)}).papers() == old
    assert Config.from_env({"PLANEXEC_PAPERS_DIR": str(new), "PLANEXEC_PAPERS": str(old)}).papers() == new
    assert Config.from_env({}).papers().name == "papers"


def test_the_home_default_is_computed_in_one_place(tmp_path: Path) -> None:
    assert default_home({"PLANEXEC_HOME": str(tmp_path)}) == tmp_path
    assert default_home({}) == Path.home() / ".planexec"
