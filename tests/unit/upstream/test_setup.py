"""``crmtui upstream setup``: which pins are relaxed, what is added (no install in tests)."""

from __future__ import annotations

from pathlib import Path

import pytest

from crmtui.cli import main
from crmtui.upstream import plan_requirements

REQUIREMENTS = "openai==1.51.2\nlitellm==1.67.2\nnumpy==2.0.1\nrequests==2.32.3\n"


def test_conflicting_openai_pin_is_relaxed_and_datasets_added() -> None:
    plan = plan_requirements(REQUIREMENTS, (3, 11))
    assert [(pin, new) for pin, new, _ in plan.relaxed] == [("openai==1.51.2", "openai>=1.68.2,<3")]
    assert "litellm==1.67.2 requires openai>=1.68.2" in plan.relaxed[0][2]
    assert [r for r, _ in plan.added] == ["datasets"]
    assert "numpy==2.0.1" in plan.requirements and "litellm==1.67.2" in plan.requirements
    assert plan.requirements[-1] == "litellm!=1.82.7,!=1.82.8"


def test_openai_range_admits_the_checked_2x_but_not_the_next_major() -> None:
    from packaging.specifiers import SpecifierSet

    (openai,) = [r for r in plan_requirements(REQUIREMENTS, (3, 13)).requirements if "openai" in r]
    allowed = SpecifierSet(openai.removeprefix("openai"))
    assert "2.2.0" in allowed and "1.68.2" in allowed
    assert "1.51.2" not in allowed and "3.0.0" not in allowed


def test_newer_python_relaxes_pins_without_wheels() -> None:
    plan = plan_requirements(REQUIREMENTS, (3, 13))
    assert ("numpy==2.0.1", "numpy>=2.0.1") in [(a, b) for a, b, _ in plan.relaxed]


def test_compromised_litellm_is_never_installed() -> None:
    plan = plan_requirements("litellm==1.82.7\ndatasets==3.0.0\n", (3, 11))
    assert "litellm==1.82.7" not in plan.requirements and plan.added == []


def test_dry_run_says_what_it_relaxes(shared_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["upstream", "setup", str(shared_dir / "upstream-harness"), "--dry-run"])
    out = capsys.readouterr().out
    assert "Relaxed: openai==1.51.2 -> openai>=1.68.2,<3" in out
    assert "Added:   datasets" in out and "Would create" in out


def test_run_refuses_a_folder_that_is_not_upstream(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main(["upstream", "run", str(tmp_path), "--python", "python3"])
    assert "is not upstream's CRMArena folder" in capsys.readouterr().err


def test_installed_versions_names_what_pip_chose(tmp_path: Path) -> None:
    import sys

    from crmtui.upstream.venv import installed_versions, requirement_name

    assert requirement_name("openai>=1.68.2") == "openai"
    found = installed_versions(sys.executable, ["click", "no-such-dist-crmtui"])
    assert list(found) == ["click"] and found["click"][0].isdigit()


def test_run_options_after_the_folder_are_crmtuis_and_args_after_dashes_are_upstreams(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``upstream run DIR --org X --out D -- ARGS``: docs/reproduce.md's order parses."""
    import crmtui.upstream as upstream_pkg
    from crmtui.upstream import RunOutcome

    folder = tmp_path / "CRMArena"
    (folder / "crm_sandbox").mkdir(parents=True)
    (folder / "run_tasks.py").write_text("", encoding="utf-8")
    seen: dict = {}

    def fake_run(upstream_dir: Path, **kwargs: object) -> RunOutcome:
        seen.update(kwargs, folder=upstream_dir)
        out = Path(str(kwargs["out"]))
        return RunOutcome(0, [out / "results_x.json"], out / "r.jsonl", out / "o.log", out / "h")

    monkeypatch.setattr(upstream_pkg, "run_upstream", fake_run)
    out = tmp_path / "out"
    main(["upstream", "run", str(folder), "--org", "sample", "--out", str(out),
          "--python", "python3", "--quiet", "--",
          "--model", "m", "--org_type", "original", "--log_dir", "logs"])  # fmt: skip
    assert seen["folder"] == folder.resolve() and seen["out"] == out
    assert seen["python"] == "python3" and seen["tasks_source"] == "sample"
    assert seen["args"] == ["--model", "m", "--org_type", "original", "--log_dir", "logs"]
    assert "Results:" in capsys.readouterr().out
