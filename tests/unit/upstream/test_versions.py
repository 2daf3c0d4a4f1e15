"""Upstream's two versions: recognising them, and relaxing pins the index cannot serve."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from crmtui.errors import ConfigError
from crmtui.upstream.venv import Plan, nearest_version, plan_requirements, resolve_pins
from crmtui.upstream.versions import detect_version, resolve_source

MISSING = (
    "ERROR: Could not find a version that satisfies the requirement litellm==1.49.2 "
    "(from versions: 0.1.0, 1.14.3, 1.14.4, 1.53.1.dev1, 1.53.1, 1.53.2, 1.82.7)\n"
    "ERROR: No matching distribution found for litellm==1.49.2\n"
)
CONFLICT = (
    "ERROR: Cannot install -r req.txt (line 2) and openai==1.51.2 because these package "
    "versions have conflicting dependencies.\n\nThe conflict is caused by:\n"
    "    The user requested openai==1.51.2\n    litellm 1.53.1 depends on openai>=1.54.0\n"
)


class FakePip:
    """Answers pip dry runs from a script of (returncode, stderr), records each plan."""

    def __init__(self, answers: list[tuple[int, str]]) -> None:
        self.answers = answers
        self.plans: list[str] = []

    def __call__(self, argv: list[str], **_: Any) -> subprocess.CompletedProcess[str]:
        if argv[3:5] == ["index", "versions"]:
            out = "openai (2.0.0)\nAvailable versions: 2.0.0, 1.55.0, 1.54.0, 1.51.2, 1.40.0\n"
            return subprocess.CompletedProcess(argv, 0, out, "")
        self.plans.append(Path(argv[-1]).read_text())
        code, err = self.answers.pop(0)
        return subprocess.CompletedProcess(argv, code, "", err)


def test_nearest_prefers_the_next_release_and_skips_bad_ones() -> None:
    assert nearest_version("1.49.2", ["1.14.4", "1.53.1.dev1", "1.53.1", "1.60"]) == "1.53.1"
    assert nearest_version("1.82.6", ["1.82.7", "1.82.8", "1.81.0"]) == "1.81.0"
    assert nearest_version("1.51.2", ["1.40", "1.54.0", "1.55"], ">=1.54.0") == "1.54.0"
    assert nearest_version("1.0", ["0.9"], ">=2") is None


def test_missing_pin_then_conflict_are_relaxed_one_by_one(tmp_path: Path) -> None:
    plan = plan_requirements("openai==1.51.2\nlitellm==1.49.2\nrequests==2.32.3\n", (3, 11))
    pip = FakePip([(1, MISSING), (1, CONFLICT), (0, "")])
    resolve_pins(plan, "python", tmp_path, run=pip)
    assert [(pin, new) for pin, new, _ in plan.relaxed] == [
        ("litellm==1.49.2", "litellm==1.53.1"),
        ("openai==1.51.2", "openai==1.54.0"),
    ]
    assert "not on the package index" in plan.relaxed[0][2]
    assert plan.relaxed[1][2] == "litellm 1.53.1 requires openai>=1.54.0"
    assert "litellm==1.53.1" in pip.plans[-1] and "openai==1.54.0" in pip.plans[-1]
    assert "requests==2.32.3" in pip.plans[-1]


def test_other_pip_failures_are_one_clear_error(tmp_path: Path) -> None:
    pip = FakePip([(1, "ERROR: something else entirely\n")])
    with pytest.raises(ConfigError, match="cannot resolve upstream's requirements"):
        resolve_pins(Plan(requirements=["x==1"]), "python", tmp_path, run=pip)


def _fake_upstream(folder: Path, head: bool) -> Path:
    (folder / "crm_sandbox").mkdir(parents=True)
    (folder / "crm_sandbox" / "__init__.py").write_text("")
    flag = '    parser.add_argument("--org_type")\n' if head else ""
    (folder / "run_tasks.py").write_text("import argparse\n" + flag)
    return folder


def test_versions_are_told_apart_by_their_files(tmp_path: Path) -> None:
    assert detect_version(_fake_upstream(tmp_path / "a", head=True)) == "head"
    assert detect_version(_fake_upstream(tmp_path / "b", head=False)) == "naacl"
    source = resolve_source(tmp_path / "b", "naacl")
    assert (source.version, source.commit) == ("naacl", None)
    with pytest.raises(ConfigError, match="holds upstream's naacl code, not head"):
        resolve_source(tmp_path / "b", "head")


def test_the_other_version_is_exported_from_a_git_clone(tmp_path: Path, monkeypatch) -> None:
    clone = _fake_upstream(tmp_path / "CRMArena", head=False)

    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(clone), *args], check=True, capture_output=True)

    git("init", "-q")
    git("-c", "user.email=t@t", "-c", "user.name=t", "add", ".")
    git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "paper")
    git("tag", "naacl-test")
    import crmtui.upstream.versions as versions

    monkeypatch.setitem(versions.COMMITS, "naacl", "naacl-test")
    _fake_upstream(tmp_path / "tmp-head", head=True)
    (clone / "run_tasks.py").write_text((tmp_path / "tmp-head" / "run_tasks.py").read_text())
    git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qam", "head")
    source = resolve_source(clone, "naacl")
    assert source.version == "naacl" and source.folder != clone
    assert "--org_type" not in (source.folder / "run_tasks.py").read_text()
    assert resolve_source(clone).version == "head"


def test_comma_separated_task_category_narrows_the_served_tasks() -> None:
    from crmtui.data.loaders import load_tasks
    from crmtui.org.sample import sample_tasks_path
    from crmtui.upstream.runner import split_categories

    tasks = load_tasks(None, sample_tasks=sample_tasks_path)
    args = ["--model", "m", "--task_category", "handle_time,case_routing"]
    argv, served, note = split_categories(args, tasks)
    assert argv == ["--model", "m", "--task_category", "all"]
    assert {t.task for t in served} == {"handle_time", "case_routing"} and len(served) == 20
    assert note and "accepts one category or all" in note
    assert split_categories(["--task_category=handle_time"], tasks)[2] is None


def test_a_snapshot_folder_names_its_commit_in_source_md(tmp_path: Path) -> None:
    folder = _fake_upstream(tmp_path / "snap", head=True)
    (folder / "SOURCE.md").write_text(
        "A copy of upstream's harness as published at commit\n"
        "32b609a4984aa3bf32b106e203356b373b0d4cb3 (2026-04-14).\n"
    )
    assert resolve_source(folder).commit == "32b609a"
    (folder / "SOURCE.md").write_text("No commit named here.\n")
    assert resolve_source(folder).commit is None


def test_the_shared_snapshots_name_their_versions_commits(shared_dir: Path) -> None:
    from crmtui.upstream.versions import COMMITS

    for name, version in (("upstream-harness", "head"), ("upstream-harness-naacl", "naacl")):
        if not (shared_dir / name).is_dir():
            pytest.skip(f"{name} is not present")
        source = resolve_source(shared_dir / name)
        assert (source.version, source.commit) == (version, COMMITS[version])
