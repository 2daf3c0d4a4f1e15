"""The plan store: a stored plan runs to the same records as the compiled one, and anything
wrong with a stored file (damaged, foreign, stale, for another key) is a miss, never an error."""

from __future__ import annotations

import datetime as dt
import os
import random
from pathlib import Path

import pytest

from crmtui.query import compile_soql, execute_soql
from crmtui.query.connection import schema_and_connection
from crmtui.query.soql import plan_store
from crmtui.query.soql.executor import run_compiled
from crmtui.query.soql.plan import CompiledQuery

from .conftest import TODAY, FixtureOrg

#: Every kind of plan: plain fields, parents, children (with LIMIT per parent), booleans,
#: numbers, dates and datetimes, aggregates, GROUP BY, COUNT(), relative dates, FIELDS().
QUERIES = [
    "SELECT Id, Subject, Status FROM Case ORDER BY Id",
    "SELECT Id, Quantity, UnitPrice, Product2.IsActive FROM OrderItem ORDER BY Id",
    "SELECT Name, IsActive FROM Product2 ORDER BY IsActive DESC, Name LIMIT 2",
    "SELECT CreatedDate, ClosedDate, Owner.Name FROM Case ORDER BY CreatedDate",
    "SELECT EffectiveDate FROM Order ORDER BY EffectiveDate",
    "SELECT Id, (SELECT Id, Subject FROM Cases ORDER BY Subject LIMIT 1) FROM Account ORDER BY Id",
    "SELECT Status, COUNT(Id) FROM Case GROUP BY Status ORDER BY Status",
    "SELECT CALENDAR_YEAR(CreatedDate) y, COUNT(Id) n FROM Case "
    "GROUP BY CALENDAR_YEAR(CreatedDate)",
    "SELECT COUNT() FROM Case WHERE Status = 'Closed'",
    "SELECT COUNT() FROM OrderItem WHERE Quantity >= 2 LIMIT 3",
    "SELECT Id FROM Case WHERE CreatedDate = LAST_N_DAYS:400 ORDER BY Id",
    "SELECT Id FROM OrderItem WHERE Quantity IN (3, 4.0) AND UnitPrice >= 100",
    "SELECT FIELDS(CUSTOM) FROM Product2 ORDER BY Id LIMIT 5",
    "SELECT Id FROM Product2 WHERE Name LIKE '%\\_%' OR IsActive = false",
    "```sql\nSELECT Id FROM Case LIMIT 1\n```",
]


def _key(text: str, schema: str = "schema-text", today: dt.date = TODAY) -> tuple[str, ...]:
    return plan_store.plan_key(schema, text, today)


@pytest.mark.parametrize("text", QUERIES)
def test_a_stored_plan_equals_and_runs_like_the_compiled_one(
    org: FixtureOrg, tmp_path: Path, text: str
) -> None:
    plan = compile_soql(org.schema, text, today=TODAY)
    assert plan_store.save(tmp_path, _key(text), plan)
    stored = plan_store.load(tmp_path, _key(text))
    assert stored is not None and stored is not plan
    assert stored == plan and repr(stored) == repr(plan)
    _, conn = schema_and_connection(org)
    expected = execute_soql(org, text, today=TODAY)
    got = run_compiled(conn, stored, 0.0)
    assert got.records == expected.records and got.total_size == expected.total_size
    assert (got.columns, got.sql, got.object, got.is_count) == (
        expected.columns,
        expected.sql,
        expected.object,
        expected.is_count,
    )


def test_a_plan_is_found_only_under_its_whole_key(org: FixtureOrg, tmp_path: Path) -> None:
    text = QUERIES[0]
    plan_store.save(tmp_path, _key(text), compile_soql(org.schema, text, today=TODAY))
    assert plan_store.load(tmp_path, _key(text)) is not None
    for other in (
        _key(text + " "),  # another text
        _key(text, schema="schema-text "),  # another schema
        _key(text, today=TODAY + dt.timedelta(days=1)),  # another day
        plan_store.plan_key("schema-text", text, TODAY, fences=False),
    ):
        assert plan_store.load(tmp_path, other) is None


def test_an_edit_of_the_engine_makes_every_plan_stale(
    org: FixtureOrg, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The key names the engine's files: a newer compiler never runs an older plan."""
    engine = tmp_path / "engine"
    engine.mkdir()
    (engine / "compiler.py").write_text("v1")
    monkeypatch.setattr(plan_store, "_CODE", (engine, Path(plan_store.__file__)))
    text = QUERIES[0]
    before = _key(text)
    plan_store.save(tmp_path, before, compile_soql(org.schema, text, today=TODAY))
    assert plan_store.load(tmp_path, _key(text)) is not None
    for change in ("v2", "v22"):  # same size, then another size
        (engine / "compiler.py").write_text(change)
        os.utime(engine / "compiler.py", ns=(1, 10**18 + len(change)))
        assert _key(text) != before
        assert plan_store.load(tmp_path, _key(text)) is None


def test_any_damage_to_a_stored_file_is_a_miss(org: FixtureOrg, tmp_path: Path) -> None:
    """Seeded flips, truncations and junk: each load is None or the very plan, never an error
    and never another plan (the checksum covers every byte after the header)."""
    text = QUERIES[5]
    plan = compile_soql(org.schema, text, today=TODAY)
    plan_store.save(tmp_path, _key(text), plan)
    (path,) = tmp_path.glob("*.plan")
    good = path.read_bytes()
    rng = random.Random(37)
    variants = [b"", good[:10], good[: len(good) // 2], good + b"x", b"\x00" * len(good)]
    for _ in range(200):
        data = bytearray(good)
        data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        variants.append(bytes(data))
    for data in variants:
        path.write_bytes(data)
        loaded = plan_store.load(tmp_path, _key(text))
        assert loaded is None or (loaded == plan and data == good)


def test_a_well_formed_file_holding_no_plan_is_a_miss(tmp_path: Path) -> None:
    """Checksummed and keyed right, but not a plan (a converter without a name, a wrong
    type): refused by the decoder, never run."""
    import marshal
    import zlib

    key = _key("SELECT Id FROM Case")
    bad_plans = [
        ("records", "Case", "SELECT 1", (), (("output", "Id", (), (), (), 0, "exec", False),), ()),
        ("records", "Case", "SELECT 1", (object,), (), ()),
        ("drop", "Case", "SELECT 1", (), (), ()),
        ("count", "Case", "SELECT 1", (), (("output", "Id", (), (), (), 0, "text", True),), ()),
        ("records", "Case", "SELECT 1", (), (("output", "Id", (), (), (), "0", "text", 1),), ()),
    ]
    for data in bad_plans:
        try:
            body = marshal.dumps((key, data))
        except ValueError:  # marshal refuses it already
            continue
        crc = zlib.crc32(body).to_bytes(4, "big")
        (tmp_path / "x.plan").write_bytes(plan_store.MAGIC + crc + body)
        target = plan_store._file(tmp_path, key)
        (tmp_path / "x.plan").replace(target)
        assert plan_store.load(tmp_path, key) is None


def test_a_folder_that_cannot_be_written_stores_nothing(org: FixtureOrg, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    plan = compile_soql(org.schema, QUERIES[0], today=TODAY)
    assert plan_store.save(blocker / "plans", _key(QUERIES[0]), plan) is False
    assert plan_store.load(blocker / "plans", _key(QUERIES[0])) is None


def test_the_store_keeps_at_most_max_plans(
    org: FixtureOrg, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(plan_store, "MAX_PLANS", 3)
    plan = compile_soql(org.schema, QUERIES[0], today=TODAY)
    for n in range(6):
        plan_store.save(tmp_path, _key(f"{QUERIES[0]} {n}"), plan)
    assert len(list(tmp_path.glob("*.plan"))) == 3


def test_value_classes_keep_dataclass_equality_hash_and_immutability(org: FixtureOrg) -> None:
    plan = compile_soql(org.schema, QUERIES[5], today=TODAY)
    assert plan.child_plans
    childless = CompiledQuery(
        plan.kind, plan.object, plan.sql, plan.params, plan.items, plan.columns, None, ()
    )
    assert childless != plan
    same = CompiledQuery(
        plan.kind,
        plan.object,
        plan.sql,
        plan.params,
        plan.items,
        plan.columns,
        None,
        plan.child_plans,
    )
    assert same == plan and hash(same) == hash(plan)  # the shaper is not compared
    with pytest.raises(AttributeError):
        plan.sql = "DROP TABLE Case"  # type: ignore[misc]
    assert plan.items[0].replaced(col=7).col == 7 and plan.items[0].col != 7
