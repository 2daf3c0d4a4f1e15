"""load_tasks / load_schema_source: local files, the real file, the sample, the hub offline."""

from __future__ import annotations

import json
import socket
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from crmtui import paths
from crmtui.data import loaders
from crmtui.data.loaders import HubSource, load_schema_source, load_tasks, parse_hub_source
from crmtui.data.schema import Schema
from crmtui.errors import DatasetError, OrgError, SchemaError
from tests.unit.data.rowkit import make_row, sample_rows, write_json, write_jsonl
from tests.waiting import PATIENCE_S, promptly

# ------------------------------------------------------------------ local files


@pytest.mark.parametrize("suffix", [".json", ".jsonl", ".parquet"])
def test_local_formats_load_through_datasets(
    tmp_path: Path, writer: Callable[..., Path], suffix: str
) -> None:
    path = writer(tmp_path / f"tasks{suffix}", sample_rows())
    tasks = load_tasks(path)
    assert tasks.idxs == sorted(r["idx"] for r in sample_rows())
    assert tasks.source == str(path)
    by_idx = {r["idx"]: r for r in sample_rows()}
    assert all(inst.to_row() == by_idx[inst.idx] for inst in tasks)
    # The datasets code path ran: its cache now holds the prepared dataset.
    assert any((paths.cache_dir() / "datasets").rglob("*.arrow"))


def test_str_path_and_dotted_home_path(json_tasks: Path) -> None:
    assert len(load_tasks(str(json_tasks))) == 8


def test_mixed_answer_types_load(tmp_path: Path) -> None:
    rows = [make_row(0, answer="March"), make_row(1, answer=None), make_row(2, answer=["a", None])]
    tasks = load_tasks(write_json(tmp_path / "mixed.json", rows))
    assert [i.answer for i in tasks] == ["March", None, ["a", None]]


def test_jsonl_with_json_suffix_loads(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "lines.json", sample_rows())
    assert len(load_tasks(path)) == 8


@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
def test_bad_row_in_file_names_file_idx_and_field(
    tmp_path: Path, writer: Callable[..., Path], suffix: str
) -> None:
    rows = sample_rows()
    rows[3]["query"] = ""
    path = writer(tmp_path / f"bad{suffix}", rows)
    with pytest.raises(DatasetError) as info:
        load_tasks(path)
    assert info.value.idx == rows[3]["idx"] and info.value.field == "query"
    assert str(info.value) == f"{path}: row idx {rows[3]['idx']}, field 'query': empty query"


def test_one_float_idx_blames_that_row_not_the_coerced_first(tmp_path: Path) -> None:
    # Arrow would turn every idx into a float; the error must still name row #3 only.
    rows = [make_row(0), make_row(1), {**make_row(2), "idx": 2.5}]
    with pytest.raises(DatasetError) as info:
        load_tasks(write_json(tmp_path / "f.json", rows))
    assert info.value.field == "idx"
    assert "row #3, field 'idx': idx must be an integer, got 2.5" in str(info.value)


@pytest.mark.parametrize(
    ("change", "field", "needle"),
    [
        ({"idx": "seven"}, "idx", "row #2, field 'idx'"),
        ({"metadata": "just text"}, "metadata", "row idx 1, field 'metadata'"),
        ({"answer": 42}, "answer", "row idx 1, field 'answer'"),
        ({"answer": {"x": 1}}, "answer", "row idx 1, field 'answer'"),
        ({"reward_metric": 3}, "reward_metric", "row idx 1, field 'reward_metric'"),
    ],
)
def test_type_errors_survive_arrow_inference(
    tmp_path: Path, change: dict[str, Any], field: str, needle: str
) -> None:
    rows = [make_row(0), {**make_row(1), **change}, make_row(2)]
    with pytest.raises(DatasetError) as info:
        load_tasks(write_json(tmp_path / "t.json", rows))
    assert info.value.field == field
    assert needle in str(info.value)


def test_missing_idx_names_row_number(tmp_path: Path) -> None:
    rows = sample_rows()
    del rows[4]["idx"]
    with pytest.raises(DatasetError, match=r"row #5, field 'idx': missing idx"):
        load_tasks(write_jsonl(tmp_path / "t.jsonl", rows))


def test_non_object_row(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match=r"row #2: expected an object, got int"):
        load_tasks(write_json(tmp_path / "t.json", [make_row(0), 5]))


def test_duplicate_idx_in_file(tmp_path: Path) -> None:
    rows = [make_row(0), make_row(7), make_row(7, "knowledge_qa")]
    with pytest.raises(DatasetError) as info:
        load_tasks(write_json(tmp_path / "dup.json", rows))
    assert info.value.idx == 7 and info.value.field == "idx"
    assert "duplicate idx (rows #2 and #3)" in str(info.value)


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ('[{"idx": 1,', "is not valid JSON"),
        ('{"name": "not rows"}', "holds one JSON object, not a list of rows"),
        ("[]", "no instances in"),
        ("42", "holds no rows"),
    ],
)
def test_unusable_files(tmp_path: Path, content: str, needle: str) -> None:
    path = tmp_path / "x.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(DatasetError, match=needle):
        load_tasks(path)


def test_missing_file_and_unknown_suffix(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="task file not found"):
        load_tasks(tmp_path / "nope.json")
    other = tmp_path / "tasks.csv"
    other.write_text("idx\n1\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"unsupported task file type '.csv'"):
        load_tasks(other)


# ------------------------------------------------------------------ the real file


def test_real_crmarena_file(shared_dir: Path) -> None:
    path = shared_dir / "crmarena_tasks.json"
    tasks = load_tasks(path)
    assert len(tasks) == 1170
    counts = tasks.counts()
    assert len(counts) == 9 and set(counts.values()) == {130}
    none_per_type = Counter(i.task for i in tasks if i.answer is None)
    assert sorted(none_per_type.values()) == [39] * 5
    assert set(none_per_type) == {
        "handle_time",
        "transfer_count",
        "named_entity_disambiguation",
        "policy_violation_identification",
        "top_issue_identification",
    }
    raw = json.loads(path.read_text(encoding="utf-8"))
    assert all(tasks.get(r["idx"]).to_row() == r for r in raw)
    assert len(tasks.filter(task="HTU")) == 130
    # Every dated task type carries a parsable "Today's date", in either form.
    dated = {i.task for i in tasks if i.today is not None}
    assert "handle_time" in dated and "named_entity_disambiguation" in dated
    assert all(i.context_ids.get("Case Id", "").startswith("500") for i in tasks.filter("PVI"))


# ------------------------------------------------------------------ the sample source


def test_sample_source_reads_the_sample_tasks_file() -> None:
    write_json(paths.org_tasks_path("sample"), sample_rows())
    for source in (None, "sample"):
        tasks = load_tasks(source)
        assert len(tasks) == 8
        assert tasks.source.startswith("sample org tasks")


def test_sample_source_builds_the_sample_when_missing() -> None:
    calls = []

    def build_sample() -> Path:
        calls.append(1)
        return write_json(paths.org_tasks_path("sample"), sample_rows()[:2])

    assert len(load_tasks(None, sample_tasks=build_sample)) == 2
    assert calls == [1]
    assert len(load_tasks(None, sample_tasks=build_sample)) == 2  # now present: not rebuilt
    assert calls == [1]


def test_sample_source_without_a_sample_provider() -> None:
    with pytest.raises(OrgError, match="run `crmtui org build`"):
        load_tasks("sample")


# ------------------------------------------------------------------ the hub, offline


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("hf:Salesforce/CRMArena", HubSource("Salesforce/CRMArena", "CRMArena", "test")),
        ("hf:Salesforce/CRMArenaPro", HubSource("Salesforce/CRMArenaPro", "CRMArenaPro", "b2b")),
        (
            "hf:Salesforce/CRMArenaPro:b2c_interactive",
            HubSource("Salesforce/CRMArenaPro", "CRMArenaPro", "b2c_interactive"),
        ),
        ("hf:someone/mirror:train", HubSource("someone/mirror", None, "train")),
    ],
)
def test_parse_hub_source(source: str, expected: HubSource) -> None:
    assert parse_hub_source(source) == expected


@pytest.mark.parametrize(
    ("source", "needle"),
    [
        ("hf:Salesforce/CRMArenaPro:b3b", "valid splits: b2b, b2c, b2b_interactive"),
        ("hf:CRMArena", "expected hf:OWNER/NAME"),
    ],
)
def test_bad_hub_sources(source: str, needle: str) -> None:
    with pytest.raises(DatasetError, match=needle):
        load_tasks(source)


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _assert_fast_hub_failure(source: str, needle: str) -> None:
    start = time.monotonic()
    with pytest.raises(DatasetError) as info:
        load_tasks(source)
    assert time.monotonic() - start < promptly(5.0, instead=PATIENCE_S)  # not a retrying wait
    message = str(info.value)
    assert "cannot reach the Hugging Face hub" in message
    assert "--tasks PATH.json" in message and "--tasks sample" in message
    assert needle in message


def test_hub_with_offline_flag_fails_fast(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    # The connectivity probe must not even be attempted in offline mode.
    monkeypatch.setattr(loaders, "_hub_address", lambda: pytest.fail("probed the network"))
    _assert_fast_hub_failure("hf:Salesforce/CRMArena", "HF_HUB_OFFLINE is set")


def test_hub_unreachable_without_offline_flag_fails_fast(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("HF_DATASETS_OFFLINE", raising=False)
    port = _closed_port()
    monkeypatch.setattr(loaders, "_hub_address", lambda: ("127.0.0.1", port))
    _assert_fast_hub_failure("hf:Salesforce/CRMArenaPro:b2c", f"127.0.0.1:{port}")


def test_hub_address_follows_hf_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_ENDPOINT", "http://mirror.local:8080")
    assert loaders._hub_address() == ("mirror.local", 8080)
    monkeypatch.delenv("HF_ENDPOINT")
    assert loaders._hub_address() == ("huggingface.co", 443)


# ------------------------------------------------------------------ schemas


def test_schema_builtin_and_file(tmp_path: Path) -> None:
    builtin = load_schema_source(None)
    assert "Case" in builtin
    path = tmp_path / "schema.json"
    path.write_text(builtin.dumps(), encoding="utf-8")
    assert load_schema_source(path).object_names == builtin.object_names
    with pytest.raises(SchemaError):
        load_schema_source(tmp_path / "missing.json")


def test_schema_rows_through_datasets_match_the_file(shared_dir: Path) -> None:
    path = shared_dir / "crmarena_schema.json"
    # The same Arrow round trip the hub's `schema` config goes through.
    rows = loaders.schema_rows_from_dataset(loaders._datasets_rows(path, "json"))
    via_arrow = Schema.from_json(rows)
    direct = Schema.load(path)
    assert len(via_arrow) == 16
    for obj in direct:
        assert via_arrow.require(obj.name).field_names == obj.field_names


def test_schema_hub_offline_fails_fast(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    start = time.monotonic()
    with pytest.raises(DatasetError, match="cannot reach the Hugging Face hub"):
        load_schema_source("hf:Salesforce/CRMArena")
    assert time.monotonic() - start < promptly(5.0, instead=PATIENCE_S)  # not a retrying wait
    with pytest.raises(DatasetError, match="unknown schema source"):
        load_schema_source("hf:Salesforce/CRMArenaPro:b2x")


def test_schema_rows_drop_arrow_union_nulls() -> None:
    # What a struct-typed `fields` column gives back: every object has every field name.
    rows = [
        {"object": "Issue__c", "fields": {"Name": "Issue name", "Subject": None}},
        {"object": "Case", "fields": {"Name": None, "Subject": "Case subject"}},
    ]
    schema = Schema.from_json(loaders.schema_rows_from_dataset(rows))
    assert schema.require("Issue__c").field("Subject") is None
    assert schema.require("Case").field("Subject") is not None
    assert schema.require("Case").field("Name") is None
