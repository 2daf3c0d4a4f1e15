"""ensure_sample / open_org_or_sample: reuse a valid sample org, build it otherwise."""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from crmtui import paths
from crmtui.data.schema import builtin_schema
from crmtui.errors import OrgError
from crmtui.org.sample import ensure_sample, open_org_or_sample, sample_tasks_path
from crmtui.org.store import Org, open_org, write_org

from .conftest import FIXED_META, hand_rows


@dataclass
class FakeResult:
    path: Path
    tasks_path: Path
    counts: dict[str, int]
    seconds: float
    digest: str


@pytest.fixture
def fake_build(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Stand in for crmtui.org.build (owned elsewhere): writes the hand-made org."""
    calls: list[dict[str, Any]] = []

    def build_org(
        out: Path,
        *,
        seed: int = 7,
        scale: str = "small",
        name: str | None = None,
        progress: Callable[[str, float], None] | None = None,
    ) -> FakeResult:
        calls.append({"out": out, "seed": seed, "scale": scale, "name": name})
        if progress is not None:
            progress("writing", 1.0)
        org = write_org(out, builtin_schema(), hand_rows(), {**FIXED_META, "name": name or ""})
        return FakeResult(out, out.with_suffix(".tasks.json"), {}, 0.0, org.digest)

    module = types.ModuleType("crmtui.org.build")
    module.build_org = build_org  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "crmtui.org.build", module)
    return calls


def test_missing_sample_is_built_with_seed_7_small(fake_build: list[dict[str, Any]]) -> None:
    stages: list[tuple[str, float]] = []
    org = ensure_sample(progress=lambda stage, frac: stages.append((stage, frac)))
    assert fake_build == [
        {"out": paths.org_path("sample"), "seed": 7, "scale": "small", "name": "sample"}
    ]
    assert stages == [("writing", 1.0)]
    assert org.path == paths.org_path("sample") and org.name == "sample"


def test_valid_sample_is_reused_without_building(fake_build: list[dict[str, Any]]) -> None:
    first = ensure_sample()
    second = ensure_sample()
    assert len(fake_build) == 1
    assert second.digest == first.digest


def test_damaged_or_foreign_sample_is_rebuilt(
    fake_build: list[dict[str, Any]], raw_db: Path
) -> None:
    target = paths.org_path("sample")
    target.write_bytes(b"garbage, not sqlite")
    assert ensure_sample().count("Case") == 2
    target.write_bytes(raw_db.read_bytes())  # valid SQLite but no crmtui meta
    assert "format_version" in ensure_sample().meta
    assert len(fake_build) == 2


def test_open_org_or_sample_none_builds_the_sample(fake_build: list[dict[str, Any]]) -> None:
    org = open_org_or_sample(None)
    assert isinstance(org, Org) and org.name == "sample"
    assert open_org_or_sample("sample").digest == org.digest
    assert open_org("sample").digest == org.digest
    assert len(fake_build) == 1


def test_the_store_never_builds_the_sample(fake_build: list[dict[str, Any]]) -> None:
    for spec in (None, "sample"):
        with pytest.raises(OrgError, match="run `crmtui org build`"):
            open_org(spec)
    assert fake_build == []


def test_sample_tasks_path_builds_when_missing(fake_build: list[dict[str, Any]]) -> None:
    with pytest.raises(OrgError, match="tasks file .* is missing"):
        sample_tasks_path()  # the fake build writes no tasks file
    assert len(fake_build) == 1
    paths.org_tasks_path("sample").write_text("[]", encoding="utf-8")
    assert sample_tasks_path() == paths.org_tasks_path("sample")
    assert len(fake_build) == 1


def test_a_sample_found_ready_is_opened_once(
    fake_build: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``crmtui play`` asks :func:`sample_ready`, then opens the sample: one Org.open for both
    (the second was ~1.7 ms of a cold start); any later open reads the file afresh."""
    from crmtui.org.sample import sample_ready

    assert not sample_ready()  # nothing built yet: nothing kept
    ensure_sample()
    opens: list[Path] = []
    real_open = Org.open.__func__  # type: ignore[attr-defined]
    monkeypatch.setattr(
        Org, "open", classmethod(lambda cls, p: opens.append(p) or real_open(cls, p))
    )
    assert sample_ready() and len(opens) == 1
    org = ensure_sample()
    assert len(opens) == 1 and org.name == "sample"
    assert ensure_sample().digest == org.digest and len(opens) == 2
    paths.org_path("sample").write_bytes(b"garbage, not sqlite")
    assert not sample_ready()  # damaged: nothing kept, the next open rebuilds it
    assert ensure_sample().count("Case") == 2 and len(fake_build) == 2
