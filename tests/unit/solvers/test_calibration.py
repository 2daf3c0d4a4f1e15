"""A fresh full org's tasks meet the calibration targets, deterministically, with no event on
a period boundary. (scripts/check_calibration.py checks seeds 7, 11 and 23 the same way.)"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from crmtui.data.instances import TaskSet
from crmtui.org.generator import GeneratedOrg, generate
from crmtui.org.solvers import index_tables
from crmtui.org.task_stats import UPSTREAM_NONE_SHARE, check_targets, task_stats
from crmtui.org.tasks import build_tasks
from tests.conftest import SHARED


@pytest.fixture(scope="module")
def full7() -> tuple[GeneratedOrg, list[dict], dict]:
    org = generate(seed=7, scale="full")
    rows, solutions = build_tasks(org, seed=7, per_type=130)
    return org, rows, solutions


def _anchors() -> dict[str, float]:
    """None share per type of the real task file when it is here, else the published one."""
    real = Path(SHARED) / "crmarena_tasks.json"
    if not real.is_file():
        return UPSTREAM_NONE_SHARE
    rows = json.loads(real.read_text(encoding="utf-8"))
    return {item.task: item.none_share for item in task_stats(TaskSet.from_rows(rows))}


def test_full_org_meets_every_calibration_target(full7) -> None:
    org, rows, solutions = full7
    subjects = [case["Subject"] for case in org.tables["Case"]]
    stats = task_stats(TaskSet.from_rows(rows), solutions, index_tables(org.tables), subjects)
    checks = check_targets(stats, _anchors())
    assert len(checks) == 30
    assert [c for c in checks if not c.ok] == []
    assert all(item.mismatches == 0 for item in stats)


def test_full_generation_is_deterministic(full7) -> None:
    def digest(org: GeneratedOrg) -> str:
        text = json.dumps({"tables": org.tables, "truth": org.truth}, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()

    assert digest(generate(seed=7, scale="full")) == digest(full7[0])


def test_no_event_is_stamped_on_a_midnight(full7) -> None:
    # Periods start and end at 00:00:00; nothing the period solvers read may sit there.
    org = full7[0]
    stamps = [c["CreatedDate"] for c in org.tables["Case"]]
    stamps += [c["ClosedDate"] for c in org.tables["Case"] if c["ClosedDate"]]
    stamps += [h["CreatedDate"] for h in org.tables["CaseHistory__c"]]
    assert stamps and not [s for s in stamps if s[11:19] == "00:00:00"]
