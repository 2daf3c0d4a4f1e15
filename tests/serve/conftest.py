"""A small study on the sample org for the server and browser tests."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from crmtui import paths


@pytest.fixture(scope="session")
def built_sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample org, its tasks and solutions, built once per test session."""
    from crmtui.org.build import build_org

    out = tmp_path_factory.mktemp("serve-org") / "sample.db"
    build_org(out, seed=7, scale="small", name="sample")
    return out


@pytest.fixture
def sample_home(built_sample: Path, crmtui_home: Path) -> Path:
    """This test's CRMTUI_HOME with the sample org already in place (as `crmtui` leaves it)."""
    orgs = paths.orgs_dir()
    for suffix in (".db", ".tasks.json", ".solutions.json"):
        source = built_sample.with_suffix(suffix)
        if source.exists():
            shutil.copy(source, orgs / f"sample{suffix}")
    return crmtui_home


@pytest.fixture
def served_study(sample_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """A blind study on the sample with annotators ann and ben; returns (study, tokens)."""
    from crmtui.study import StudyRequest, create_study

    monkeypatch.setenv("CRMTUI_STUDIES", str(tmp_path / "studies"))
    return create_study(
        StudyRequest(
            name="web", annotators=["ann", "ben"], per_type=1, shared=0.0, overlap=1, seed=2
        )
    )
