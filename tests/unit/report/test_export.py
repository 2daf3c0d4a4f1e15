"""Exports: Hugging Face Parquet (round trip through ``datasets``), JSONL and CSV."""

from __future__ import annotations

import csv
import json
import sqlite3
from pathlib import Path

import pytest

from crmtui.errors import ConfigError
from crmtui.record import load
from crmtui.record.format import canonical_json
from crmtui.review.export import CSV_COLUMNS, export_folder
from tests.unit.report import builders as b


def test_hf_round_trip_through_datasets(fixture_root: Path, tmp_path: Path) -> None:
    import datasets

    result = export_folder(fixture_root, "hf", tmp_path / "ds")
    assert result.path == tmp_path / "ds" / "sessions.parquet"
    assert result.sessions == 10
    assert [s.path.name for s in result.skipped] == ["bob-edited.jsonl"]

    loaded = datasets.load_dataset("parquet", data_files=str(result.path), split="train")
    assert loaded.num_rows == 10
    rows = {row["session_id"]: row for row in loaded}
    alice = rows["a1" * 16]
    assert alice["actor"] == "alice" and alice["abbreviation"] == "HTU"
    assert alice["counted"] is True and alice["reward"] == 1.0 and alice["right"] is True
    assert alice["active_ms"] == 14_000 and alice["records"] == [b.CASE_1]
    assert rows["a0" * 16]["counted"] is False  # a later submission
    assert rows["b2" * 16]["finished"] is False and rows["b2" * 16]["reward"] is None
    assert rows["c1" * 16]["tokens"] == 2350 and rows["c1" * 16]["strategy"] == "react"

    # The header and events survive exactly: the original file can be rebuilt line by line.
    original = load(fixture_root / alice["path"])
    lines = [alice["header"]]
    for event in alice["events"]:
        event = {**event, "payload": json.loads(event["payload"])}
        lines.append(canonical_json(event))
    assert "\n".join(lines) + "\n" == original.path.read_text("utf-8")


def test_hf_single_file_and_crmtui_loader(fixture_root: Path, tmp_path: Path) -> None:
    from crmtui.data.export_hf import load_parquet

    out = tmp_path / "one.parquet"
    assert export_folder(fixture_root, "hf", out).path == out
    rows = load_parquet(out)
    assert sorted(r["session_id"][:2] for r in rows) == [
        "a0", "a1", "a2", "b1", "b2", "b3", "c1", "c2", "d1", "d2",
    ]  # fmt: skip
    # A string gold stays a plain string; only list golds are JSON text.
    alice_kqa = next(r for r in rows if r["session_id"] == "a2" * 16)
    assert alice_kqa["gold"] == "Advanced sole technology"


def test_list_gold_is_json_text_in_parquet(tmp_path: Path) -> None:
    from crmtui.data.export_hf import load_parquet

    pro = {"idx": 5, "task": "lead_qualification", "query": "q", "reward_metric": "exact_match"}
    b.write_session(
        tmp_path / "rec",
        b.HUMAN_A,
        pro,
        [(1.0, "submit", b.submit("a, b", 1.0, ["a", "b"]))],
        start=b.DAY1,
        session_id="7" * 32,
    )
    b.write_session(
        tmp_path / "rec", b.HUMAN_A, b.BRI, b.TINY_BRI, start=b.DAY1, session_id="8" * 32
    )
    rows = load_parquet(export_folder(tmp_path / "rec", "hf", tmp_path / "out").path)
    golds = sorted(r["gold"] for r in rows)
    assert golds == ["CA", '["a", "b"]']


def test_jsonl_rows_keep_nested_values(fixture_root: Path, tmp_path: Path) -> None:
    result = export_folder(fixture_root, "jsonl", tmp_path / "sessions.jsonl")
    rows = [json.loads(line) for line in result.path.read_text("utf-8").splitlines()]
    assert len(rows) == 10
    gpt = next(r for r in rows if r["session_id"] == "c1" * 16)
    assert gpt["header"]["actor"] == {"kind": "model", "id": "gpt-4o", "strategy": "react"}
    assert [e["type"] for e in gpt["events"]][:2] == ["model_call", "thought"]
    assert gpt["events"][0]["payload"]["prompt_tokens"] == 1000
    assert gpt["cost"] == pytest.approx(0.03)


def test_csv_per_instance_results(fixture_root: Path, tmp_path: Path) -> None:
    result = export_folder(fixture_root, "csv", tmp_path / "results.csv")
    with result.path.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert len(rows) == 10
    alice = next(r for r in rows if r["session_id"] == "a1" * 16)
    assert (alice["counted"], alice["reward"], alice["right"], alice["active_seconds"]) == (
        "True",
        "1.0",
        "True",
        "14.0",
    )
    unfinished = next(r for r in rows if r["session_id"] == "b2" * 16)
    assert (unfinished["counted"], unfinished["reward"], unfinished["answer"]) == ("False", "", "")


def test_export_errors(fixture_root: Path, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="unknown export format"):
        export_folder(fixture_root, "xml", tmp_path / "x")
    with pytest.raises(ConfigError, match="no valid recordings"):
        export_folder(tmp_path, "csv", tmp_path / "x.csv")
    with pytest.raises(ConfigError, match="no such folder"):
        export_folder(tmp_path / "absent", "csv", tmp_path / "x.csv")
    with pytest.raises(ConfigError, match="inside"):
        export_folder(fixture_root, "jsonl", fixture_root / "out.jsonl")


def test_a_none_gold_stays_the_word_none_apart_from_no_answer(tmp_path: Path) -> None:
    import datasets

    root = tmp_path / "rec"
    b.write_session(
        root, b.HUMAN_A, b.HTU, [(1.0, "submit", b.submit("None", 1.0, None))],
        start=b.DAY1, session_id="1" * 32,
    )  # fmt: skip
    b.write_session(
        root, b.HUMAN_B, b.HTU, [(1.0, "open_object", b.open_object("Case"))],
        start=b.DAY1, session_id="2" * 32, end=(1.0, "abandoned"),
    )  # fmt: skip
    expected = {"1" * 32: "None", "2" * 32: None}  # a None gold / no answer at all

    out = export_folder(root, "csv", tmp_path / "r.csv").path
    with out.open(encoding="utf-8", newline="") as handle:
        got = {row["session_id"]: row["gold"] for row in csv.DictReader(handle)}
    assert got == {sid: gold or "" for sid, gold in expected.items()}

    out = export_folder(root, "jsonl", tmp_path / "r.jsonl").path
    rows = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert {row["session_id"]: row["gold"] for row in rows} == expected

    out = export_folder(root, "hf", tmp_path / "r.parquet").path
    table = datasets.load_dataset("parquet", data_files=str(out), split="train")
    assert {row["session_id"]: row["gold"] for row in table} == expected

    out = export_folder(root, "sqlite", tmp_path / "r.db").path
    with sqlite3.connect(out) as db:
        assert dict(db.execute("select session_id, gold from sessions")) == expected
        assert dict(db.execute("select session_id, gold from answers")) == {"1" * 32: "None"}
