"""Instance.from_row validation, helpers and round-trips; TaskSet behaviour."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crmtui.data.instances import Instance, Metadata, RowError, TaskSet
from crmtui.errors import ConfigError, DatasetError, TaskNotFound
from tests.unit.data.rowkit import make_row


def test_from_row_reads_every_field() -> None:
    inst = Instance.from_row(make_row(7, "handle_time"))
    assert inst.idx == 7
    assert inst.task == "handle_time"
    assert inst.answer == "005Ws000001aaaaIAA"
    assert inst.reward_metric == "exact_match"
    assert inst.query.startswith("Which agent")
    assert isinstance(inst.metadata, Metadata)
    assert inst.metadata.required.endswith("2023-12-21")
    assert inst.persona is None


def test_instance_is_frozen() -> None:
    inst = Instance.from_row(make_row(1))
    with pytest.raises(AttributeError):
        inst.idx = 2  # type: ignore[misc]


@pytest.mark.parametrize(
    ("task", "expected"),
    [
        ("handle_time", dt.date(2023, 12, 21)),  # "## Today's date:" form
        ("named_entity_disambiguation", dt.date(2020, 6, 15)),  # "- Today's date:" form
        ("knowledge_qa", None),
        ("policy_violation_identification", None),
    ],
)
def test_today(task: str, expected: dt.date | None) -> None:
    assert Instance.from_row(make_row(1, task)).today == expected


@pytest.mark.parametrize(
    ("task", "expected"),
    [
        ("named_entity_disambiguation", {"Contact Id": "003Ws000004Abc1IAC"}),
        ("policy_violation_identification", {"Case Id": "500Ws000007AbcdIAM"}),
        ("handle_time", {}),
    ],
)
def test_context_ids(task: str, expected: dict[str, str]) -> None:
    assert Instance.from_row(make_row(1, task)).context_ids == expected


@pytest.mark.parametrize(
    ("answer", "gold"),
    [
        (None, ["None"]),
        ("March", ["March"]),
        (["00TWs1", "00TWs2"], ["00TWs1", "00TWs2"]),
        ([None], ["None"]),
    ],
)
def test_gold_answers(answer: Any, gold: list[str]) -> None:
    assert Instance.from_row(make_row(1, answer=answer)).gold_answers == gold


def test_to_row_round_trips_key_order_and_values() -> None:
    row = make_row(3, "named_entity_disambiguation")
    back = Instance.from_row(row).to_row()
    assert back == row
    assert list(back) == list(row)


def test_pro_row_with_persona_and_list_answer_round_trips() -> None:
    row = {
        "idx": 0,
        "answer": ["Budget", "Timeline"],
        "task": "lead_qualification",
        "persona": "You are detail-oriented and methodical.",
        "metadata": {"required": "- Lead Id: 00QWs000001AbcdIAC", "optional": ""},
        "reward_metric": "exact_match",
        "query": "Which BANT factors does this lead miss?",
    }
    inst = Instance.from_row(row)
    assert inst.persona.startswith("You are")
    assert inst.gold_answers == ["Budget", "Timeline"]
    assert inst.context_ids == {"Lead Id": "00QWs000001AbcdIAC"}
    back = inst.to_row()
    assert back == row and list(back) == list(row)


def test_unknown_fields_survive_round_trip() -> None:
    row = make_row(4, note="kept")
    assert Instance.from_row(row).to_row() == row


def test_unknown_reward_metric_is_allowed() -> None:
    assert Instance.from_row(make_row(1, reward_metric="privacy_rejection")).reward_metric == (
        "privacy_rejection"
    )


def _without(row: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in row.items() if k != key}


@pytest.mark.parametrize(
    ("row", "field", "needle"),
    [
        ({**make_row(5), "idx": "5"}, "idx", "integer"),
        ({**make_row(5), "idx": 5.0}, "idx", "integer"),
        ({**make_row(5), "idx": True}, "idx", "integer"),
        (_without(make_row(5), "query"), "query", "missing query"),
        (make_row(5, query="   "), "query", "empty query"),
        (make_row(5, query=12), "query", "string"),
        (_without(make_row(5), "task"), "task", "missing task"),
        (make_row(5, task=3), "task", "bad task"),
        (make_row(5, reward_metric=1), "reward_metric", "bad reward_metric"),
        (_without(make_row(5), "reward_metric"), "reward_metric", "missing"),
        (make_row(5, metadata="text"), "metadata", "mapping"),
        (_without(make_row(5), "metadata"), "metadata", "missing metadata"),
        (make_row(5, metadata={"required": 3, "optional": ""}), "metadata", "required"),
        (make_row(5, answer=5), "answer", "got int"),
        (make_row(5, answer={"a": 1}), "answer", "got dict"),
        (make_row(5, answer=["ok", 2]), "answer", "items"),
        (make_row(5, persona=["x"]), "persona", "string"),
        (
            make_row(5, metadata={"required": "- Today's date: 2023-02-30", "optional": ""}),
            "metadata",
            "YYYY-MM-DD",
        ),
    ],
)
def test_bad_rows_name_idx_and_field(row: dict[str, Any], field: str, needle: str) -> None:
    with pytest.raises(DatasetError) as info:
        Instance.from_row(row, position=9)
    err = info.value
    assert err.field == field
    assert needle in str(err)
    if field == "idx":
        # The idx itself is unusable: the row's position is named instead.
        assert err.idx is None and err.row == 9  # type: ignore[attr-defined]
        assert str(err).startswith("row #9, field 'idx'")
    else:
        assert err.idx == 5
        assert str(err).startswith(f"row idx 5, field {field!r}")


def test_missing_idx_names_position() -> None:
    with pytest.raises(RowError) as info:
        Instance.from_row(_without(make_row(1), "idx"), position=4)
    assert str(info.value) == "row #4, field 'idx': missing idx"


def test_non_mapping_row() -> None:
    with pytest.raises(RowError, match=r"row #2: expected an object, got list"):
        Instance.from_row([1, 2], position=2)  # type: ignore[arg-type]


def _set(*specs: tuple[int, str]) -> TaskSet:
    return TaskSet.from_rows([make_row(i, t) for i, t in specs], "test rows")


def test_taskset_orders_by_idx_and_gets() -> None:
    ts = _set((30, "knowledge_qa"), (2, "handle_time"), (11, "handle_time"))
    assert ts.idxs == [2, 11, 30]
    assert [i.idx for i in ts] == [2, 11, 30]
    assert ts.get(11).idx == 11
    assert 30 in ts and 31 not in ts
    assert len(ts) == 3


def test_taskset_get_missing_raises_task_not_found() -> None:
    ts = _set((2, "handle_time"), (9, "knowledge_qa"))
    with pytest.raises(TaskNotFound, match=r"no instance with idx 5 in test rows \(idx 2–9\)"):
        ts.get(5)


def test_counts_follow_leaderboard_order() -> None:
    ts = _set(
        (1, "knowledge_qa"),
        (2, "policy_violation_identification"),
        (3, "handle_time"),
        (4, "handle_time"),
        (5, "named_entity_disambiguation"),
    )
    assert list(ts.counts().items()) == [
        ("handle_time", 2),
        ("named_entity_disambiguation", 1),
        ("policy_violation_identification", 1),
        ("knowledge_qa", 1),
    ]


@pytest.mark.parametrize("value", ["HTU", "htu", "handle_time"])
def test_filter_by_code_or_abbreviation(value: str) -> None:
    ts = _set((1, "knowledge_qa"), (2, "handle_time"), (3, "handle_time"))
    picked = ts.filter(task=value)
    assert picked.idxs == [2, 3]
    assert picked.source == "test rows"


def test_filter_on_absent_known_type_is_empty() -> None:
    ts = _set((1, "knowledge_qa"))
    assert len(ts.filter(task="BRI")) == 0


def test_filter_unknown_type_lists_valid_values() -> None:
    ts = _set((1, "knowledge_qa"))
    with pytest.raises(ConfigError, match=r"unknown task type 'XYZ'; valid values: NCR"):
        ts.filter(task="XYZ")


def test_duplicate_idx_is_named() -> None:
    with pytest.raises(DatasetError) as info:
        TaskSet.from_rows([make_row(1), make_row(2), make_row(1, "knowledge_qa")])
    assert info.value.idx == 1 and info.value.field == "idx"
    assert "duplicate idx (rows #1 and #3)" in str(info.value)


_text = st.text(min_size=0, max_size=30)
_rows = st.fixed_dictionaries(
    {
        "idx": st.integers(min_value=0, max_value=10**6),
        "answer": st.none() | _text | st.lists(st.none() | _text, max_size=4),
        "task": st.sampled_from(["handle_time", "knowledge_qa", "lead_routing"]),
        "metadata": st.fixed_dictionaries({"required": _text, "optional": _text}),
        "reward_metric": st.sampled_from(["exact_match", "fuzzy_match", "privacy_rejection"]),
        "query": _text.filter(lambda q: q.strip() != ""),
    }
)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(_rows)
def test_round_trip_property(row: dict[str, Any]) -> None:
    assert Instance.from_row(row).to_row() == row
