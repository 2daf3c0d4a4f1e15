"""``crmtui upstream setup``: which pins are relaxed, what is added (no install in tests)."""

from __future__ import annotations

from pathlib import Path

import pytest

from crmtui.cli import main
from crmtui.upstream import plan_requirements

REQUIREMENTS = "openai==1.51.2\nlitellm==1.67.2\nnumpy==2.0.1\nrequests==2.32.3\n"


def test_conflicting_openai_pin_is_relaxed_and_datasets_added() -> None:
    plan = plan_requirements(REQUIREMENTS, (3, 11))
    assert plan.relaxed == [
        ("openai==1.51.2", "openai>=1.68.2", "litellm==1.67.2 requires openai>=1.68.2")
    ]
    assert [r for r, _ in plan.added] == ["datasets"]
    assert "numpy==2.0.1" in plan.requirements and "litellm==1.67.2" in plan.requirements
    assert plan.requirements[-1] == "litellm!=1.82.7,!=1.82.8"


def test_newer_python_relaxes_pins_without_wheels() -> None:
    plan = plan_requirements(REQUIREMENTS, (3, 13))
    assert ("numpy==2.0.1", "numpy>=2.0.1") in [(a, b) for a, b, _ in plan.relaxed]


def test_compromised_litellm_is_never_installed() -> None:
    plan = plan_requirements("litellm==1.82.7\ndatasets==3.0.0\n", (3, 11))
    assert "litellm==1.82.7" not in plan.requirements and plan.added == []


def test_dry_run_says_what_it_relaxes(shared_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["upstream", "setup", str(shared_dir / "upstream-harness"), "--dry-run"])
    out = capsys.readouterr().out
    assert "Relaxed: openai==1.51.2 -> openai>=1.68.2" in out
    assert "Added:   datasets" in out and "Would create" in out


def test_run_refuses_a_folder_that_is_not_upstream(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main(["upstream", "run", str(tmp_path), "--python", "python3"])
    assert "is not upstream's CRMArena folder" in capsys.readouterr().err
