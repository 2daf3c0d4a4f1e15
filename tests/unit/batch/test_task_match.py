"""Tasks belong to an org: an org's own tasks by default, and a refusal when tasks from
elsewhere name records the org does not have (play, watch, run), unless --force."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from crmtui import paths
from crmtui.data.loaders import load_tasks
from crmtui.org.task_match import check_task_ids, load_sources, own_tasks_path
from tests.unit.batch.test_run_cli import run as run_cli


@pytest.fixture(scope="session")
def other_org(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Another generated org (seed 8): same schema, other records, its own tasks."""
    from crmtui.org.build import build_org

    out = tmp_path_factory.mktemp("other-org") / "other.db"
    build_org(out, seed=8, scale="small", name="other")
    return out


def test_tasks_of_their_own_org_are_all_found(tasks: Any, org: Any) -> None:
    check = check_task_ids(tasks, org)
    assert check.mentioned > 30 and check.missing == 0 and not check.mostly_missing
    assert {"Case", "Contact", "User"} <= set(check.by_object)


def test_tasks_of_another_org_are_mostly_missing(tasks: Any, other_org: Path) -> None:
    from crmtui.org.store import Org

    check = check_task_ids(tasks, Org.open(other_org))
    assert check.mostly_missing and check.found == 0
    assert len(check.missing_examples) == 3


def test_an_org_brings_its_own_tasks(other_org: Path) -> None:
    sources = load_sources(str(other_org), None)
    assert own_tasks_path(sources.org) == other_org.with_suffix(".tasks.json")
    assert sources.tasks_label == str(other_org.with_suffix(".tasks.json"))
    assert sources.check is None  # same place: nothing to check
    own = load_tasks(str(other_org.with_suffix(".tasks.json")))
    assert sources.tasks.idxs == own.idxs


def test_an_org_by_name_brings_its_own_tasks(other_org: Path) -> None:
    import shutil

    for suffix in (".db", ".tasks.json"):
        shutil.copy(other_org.with_suffix(suffix), paths.org_path("other").with_suffix(suffix))
    sources = load_sources("other", None)
    assert sources.org.name == "other"
    assert sources.tasks_label.endswith("other.tasks.json")


def test_an_org_without_tasks_is_checked_against_the_sample_tasks(
    other_org: Path, tmp_path: Path
) -> None:
    from crmtui.errors import ConfigError

    bare = tmp_path / "bare.db"
    bare.write_bytes(other_org.read_bytes())  # no tasks file beside it
    with pytest.raises(ConfigError, match="made for another org"):
        load_sources(str(bare), None)


def _mismatch_argv(command: str, other_org: Path, built_org: Path) -> list[str]:
    argv = [command, "--org", str(other_org), "--tasks", str(built_org.with_suffix(".tasks.json"))]
    if command in ("run", "watch"):
        argv += ["--model", "openai/fake"]
    return argv


def _fake_upstream_folder(folder: Path) -> Path:
    """A folder ``upstream run`` takes for upstream's (HEAD) harness; never run here."""
    (folder / "crm_sandbox").mkdir(parents=True)
    (folder / "run_tasks.py").write_text("# --org_type\nraise SystemExit(3)\n")
    return folder


@pytest.mark.parametrize("command", ["play", "watch", "run", "upstream"])
def test_a_mismatch_is_refused_with_one_line(
    command: str, other_org: Path, built_org: Path, tmp_path: Path, capsys: Any
) -> None:
    argv = _mismatch_argv(command, other_org, built_org)
    if command == "run":
        argv += ["--out", str(tmp_path / "out")]
    if command == "upstream":  # upstream's own harness, checked as crmtui run
        folder = _fake_upstream_folder(tmp_path / "harness")
        argv = ["upstream", "run", str(folder), *argv[1:], "--out", str(tmp_path / "out")]
    code, _, stderr = run_cli(argv, capsys)
    assert code == 2
    (line,) = stderr.strip().splitlines()
    assert line.startswith("Error: ") and "are not in org 'other'" in line
    assert "crmtui org import crmarena_data.db" in line and "--force" in line
    assert "score 1.0 for 'None'" in line
    assert not list(tmp_path.glob("out/results_*.json"))


def test_force_runs_anyway_and_says_so(
    routing, other_org: Path, built_org: Path, tmp_path: Path, capsys: Any
) -> None:
    from tests.fakes.openai_server import text

    tasks = load_tasks(str(built_org.with_suffix(".tasks.json")))
    inst = next(i for i in tasks if i.task == "handle_time")
    server = routing({inst: [text("<respond>None</respond>")]})
    argv = _mismatch_argv("run", other_org, built_org) + [
        "--force", "--api-base", server.base_url, "--idx", str(inst.idx),
        "--out", str(tmp_path / "out"),
    ]  # fmt: skip
    code, stdout, _ = run_cli(argv, capsys)
    assert code == 0
    assert "Note: --force:" in stdout.replace("\n", " ")


def test_the_real_crmarena_tasks_are_refused_on_the_sample_org(shared_dir: Path, org: Any) -> None:
    from crmtui.errors import ConfigError
    from crmtui.org.task_match import refusal

    tasks = load_tasks(str(shared_dir / "crmarena_tasks.json"))
    check = check_task_ids(tasks, org)
    assert check.mentioned >= 400 and check.found == 0
    message = refusal(check, org, "crmarena_tasks.json")
    assert message.startswith(f"{check.mentioned:,} of the {check.mentioned:,} record Ids")
    with pytest.raises(ConfigError):
        load_sources(str(org.path), str(shared_dir / "crmarena_tasks.json"))
    json.dumps(check.by_object)


def test_the_suffix_check_agrees_with_the_generators() -> None:
    import random
    import string

    from crmtui.org.generator.ids import checksum
    from crmtui.org.task_match import _checksum

    rng = random.Random(11)
    for _ in range(2000):
        id15 = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(15))
        assert _checksum(id15) == checksum(id15)
