"""The generated org shared by the property tests (written once per session)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .model import write_org
from .strategies import ROWS


@pytest.fixture(scope="session")
def gen_org(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The generated org, opened read-only (raw layout: no FTS, schema inferred)."""
    from crmtui.org.store import Org

    path: Path = write_org(tmp_path_factory.mktemp("prop") / "gen.db", ROWS)
    return Org.open(path)


@pytest.fixture(scope="session")
def rows() -> dict[str, list[dict[str, str | None]]]:
    """The rows the generated org holds, per object."""
    return ROWS


@pytest.fixture(scope="session")
def gen_fts_org(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The generated org with FTS5 tables (the crmtui-built shape)."""
    from crmtui.org.store import Org

    path: Path = write_org(tmp_path_factory.mktemp("prop") / "gen_fts.db", ROWS, fts=True)
    return Org.open(path)
