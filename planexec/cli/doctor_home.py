"""The home part of `planexec doctor`: checks of the capability store, caches, locks and disk
(knowledge/doctor.py), shown with what a repair would do, and `--repair` applying them."""

from __future__ import annotations

from typing import Any

from planexec.config import Config


def home_report(repair: bool) -> dict[str, Any]:
    """Checks of the configured home as data; with `repair`, the repairs made and the checks after them."""
    from planexec.knowledge.doctor import check_home, repair_home, summary
    from planexec.knowledge.embedder import get_embedder
    from planexec.knowledge.store import default_seed_dir

    config = Config.from_env()
    seed = default_seed_dir()
    report: dict[str, Any] = {"path": str(config.home)}
    before = check_home(config.home, seed)
    report["repaired"] = []
    if repair and any(not f.ok and f.repair for f in before):
        report["repaired"] = repair_home(config.home, get_embedder(config.embedder))
        before = check_home(config.home, seed)
    report.update(summary(before))
    report["writable"] = all(f.ok for f in before if f.area == "home")
    return report


def render(out: Any, home: dict[str, Any], repair: bool) -> None:
    """The home section of the doctor's text report."""
    out.print(f"\n[bold]Home[/bold] {home['path']} ({'writable' if home['writable'] else 'NOT writable'})")
    for line in home["repaired"]:
        out.print(f"  [green]repaired[/green] {line}", markup=True)
    for check in home["checks"]:
        mark = "[green]ok[/green]  " if check["ok"] else "[red]FAIL[/red]"
        out.print(f"  {mark} {check['area']:<16} ", end="")
        out.print(check["message"], markup=False)
        if not check["ok"] and check["repair"] and not repair:
            out.print(f"       would repair: {check['repair']} (run `planexec doctor --repair`)", markup=False)


def exit_code(home: dict[str, Any]) -> int:
    """0 when the home is sound, 1 when problems remain."""
    return 1 if home["problems"] else 0
