"""Commands that need no query engine and no terminal UI load neither: ``crmtui verify``,
``study list``, ``compare`` (until it re-runs a query) and ``--help`` never import Textual,
Rich, lark or the SOQL compiler; ``tasks list`` and ``report`` only Rich; each fits an
import-time budget."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.import_budget import TUI, loaded, run_command

#: CPU for the whole process; each takes ~0.05-0.09 s on the dev machine (at load 7).
BUDGET_S = 0.25
#: ... and for a command that draws with Rich: ~0.11-0.17 s.
TABLE_BUDGET_S = 0.4
#: The query engine (the package ``crmtui.query`` itself is cheap: its names load on use).
ENGINE = ("lark", "crmtui.query.dispatch", "crmtui.query.soql.compiler")


@pytest.mark.parametrize(
    "args",
    [("verify", "{tmp}/missing.jsonl"), ("study", "list"), ("compare", "--help"), ("--help",)],
    ids=" ".join,
)
def test_a_plain_command_loads_no_engine_and_no_ui(args: tuple[str, ...], tmp_path: Path) -> None:
    cpu, modules, _ = run_command(*(a.format(tmp=tmp_path) for a in args))
    assert loaded(modules, (*TUI, "rich", *ENGINE)) == []
    assert cpu < BUDGET_S, f"crmtui {' '.join(args)} took {cpu:.2f} s of CPU"


@pytest.mark.parametrize("args", [("tasks", "list", "--limit", "2"), ("report",)], ids=" ".join)
def test_a_table_command_loads_rich_but_no_engine_and_no_ui(args: tuple[str, ...]) -> None:
    """``tasks list`` and ``report`` draw Rich tables (wrapped, titled, styled), and need
    neither the query engine nor Textual (``tasks list`` builds the sample org first)."""
    run_command(*args)  # builds the sample org: not what is measured
    cpu, modules, _ = run_command(*args)
    assert loaded(modules, (*TUI, *ENGINE)) == []
    assert cpu < TABLE_BUDGET_S, f"crmtui {' '.join(args)} took {cpu:.2f} s of CPU"


def test_the_agent_package_loads_its_parts_on_use() -> None:
    """``crmtui play`` reads only the dialogue settings from ``crmtui.agent`` before the
    picker's first frame; the package must not load the client, runner and strategies with
    them (they cost ~37 ms of a cold start)."""
    import subprocess
    import sys

    code = (
        "import sys, crmtui.agent.dialogue_settings, crmtui.commands.play\n"
        "print(sorted(m for m in sys.modules if m.startswith('crmtui.agent.')))\n"
        "from crmtui.agent import run_instance, ModelClient\n"
        "print(run_instance.__module__, ModelClient.__module__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    first, second = out.stdout.splitlines()
    assert first == "['crmtui.agent.dialogue_settings']"
    assert second == "crmtui.agent.runner crmtui.agent.client"
