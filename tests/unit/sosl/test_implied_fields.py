"""Raw upstream orgs lack Knowledge__kav.PublishStatus / Language: both read as their only value."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from crmtui.agent.execution import make_query_executor
from crmtui.agent.upstream_tools import search_knowledge_articles
from crmtui.org.importer import import_org
from crmtui.org.store import Org
from crmtui.query import run

from .conftest import ROWS, _write


@pytest.fixture
def raw_org(tmp_path: Path) -> Org:
    path = _write(tmp_path / "upstream.db", fts=False)
    conn = sqlite3.connect(path)
    conn.execute('ALTER TABLE "Knowledge__kav" DROP COLUMN "PublishStatus"')
    conn.execute('ALTER TABLE "Knowledge__kav" DROP COLUMN "Language"')
    conn.commit()
    conn.close()
    return Org.open(path)


def test_upstream_knowledge_search_works_on_a_raw_org(raw_org: Org) -> None:
    articles = search_knowledge_articles(make_query_executor(raw_org), "blender")
    blender = {r["Id"] for r in ROWS["Knowledge__kav"] if "blender" in str(r.values()).lower()}
    # Without the columns, every article is a published English one.
    assert {a["Id"] for a in articles} == blender and len(blender) >= 3


def test_the_implied_fields_read_as_their_one_value(raw_org: Org) -> None:
    result = run(raw_org, "SELECT Id, PublishStatus, Language FROM Knowledge__kav LIMIT 2")
    assert {(r["PublishStatus"], r["Language"]) for r in result.records} == {("Online", "en_US")}
    none = run(raw_org, "SELECT COUNT() FROM Knowledge__kav WHERE PublishStatus = 'Archived'")
    assert none.total_size == 0


def test_import_writes_the_values_into_the_copy(raw_org: Org, tmp_path: Path) -> None:
    from crmtui.data.schema import Schema, builtin_schema

    warnings: list[str] = []
    # The fixture holds a few objects: import against just those (a schema file would do).
    schema = Schema([o for o in builtin_schema() if o.name in {"Knowledge__kav", "User"}])
    copy = import_org(raw_org.path, name="copy", schema=schema, on_warning=warnings.append)
    assert any("every record is given PublishStatus = 'Online'" in w for w in warnings)
    result = run(copy, "SELECT COUNT() FROM Knowledge__kav WHERE Language = 'en_US'")
    assert result.total_size == len(ROWS["Knowledge__kav"])
    conn = sqlite3.connect(copy.path)
    assert conn.execute('SELECT DISTINCT "PublishStatus" FROM "Knowledge__kav"').fetchall() == [
        ("Online",)
    ]


def test_parent_paths_to_a_missing_parent_stay_null(raw_org: Org) -> Any:
    # The constant applies to records that exist; there is no lookup to Knowledge__kav in
    # the builtin schema, so the root case is what matters.
    result = run(raw_org, "SELECT Title, PublishStatus FROM Knowledge__kav ORDER BY Title")
    assert all(r["PublishStatus"] == "Online" for r in result.records)
