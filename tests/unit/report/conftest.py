"""Fixtures for the report/compare/export tests: the hand-made recordings folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.report.builders import make_fixture_folder


@pytest.fixture(scope="session")
def fixture_paths(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The report fixture folder (written once per test session; treat as read-only)."""
    root = tmp_path_factory.mktemp("recordings")
    return make_fixture_folder(root)


@pytest.fixture(scope="session")
def fixture_root(fixture_paths: dict[str, Path]) -> Path:
    """Root folder of the report fixture."""
    return fixture_paths["tampered"].parent.parent
