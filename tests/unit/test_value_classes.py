"""The records a cold start creates are value classes (crmtui/value_class.py), not dataclasses,
and keep what the dataclasses gave: construction by position and keyword with the same
defaults, equality and a hash over the fields, the same ``repr``, no assignment when frozen,
and pickling (generating each dataclass's methods cost ~0.6-1 ms of a cold ``crmtui play``)."""

from __future__ import annotations

import copy
import pickle
from pathlib import Path
from typing import Any

import pytest

from crmtui.agent.dialogue_settings import DialogueSettings
from crmtui.data.instances import Instance, Metadata
from crmtui.data.loaders import HubSource
from crmtui.data.tasktypes import TaskType
from crmtui.org.layout import Validation
from crmtui.org.task_match import IdCheck, Sources
from crmtui.play.policy import Gate, Instructions, PickerPolicy, PlayPolicy
from crmtui.play.progress import InstanceStatus, Tally
from crmtui.play.workspace import Workspace
from crmtui.value_class import FrozenValue

#: Each class, the values of its fields (every one given), and the defaults it keeps.
CASES: list[tuple[type, dict[str, Any], dict[str, Any]]] = [
    (Gate, {"locked": frozenset({1, 2}), "message": "wait", "final": True}, {"final": False}),
    (Instructions, {"title": "T", "text": "read me", "digest": "ab12"}, {}),
    (
        PlayPolicy,
        {"reveal": False, "progress": "1 of 2", "time_limit_s": 60.0, "history_dir": Path("h")},
        {"reveal": True, "progress": None, "time_limit_s": None, "history_dir": None},
    ),
    (
        Tally,
        {"right": 1, "wrong": 2, "unfinished": 3, "untouched": 4, "done_blind": 5, "scored": False},
        {"right": 0, "wrong": 0, "unfinished": 0, "untouched": 0, "done_blind": 0, "scored": True},
    ),
    (
        PickerPolicy,
        {
            "order": (3, 1),
            "hidden": frozenset({1}),
            "title": "S",
            "report": False,
            "report_scope": "s",
            "resume_unasked": True,
            "hide_queries": True,
            "unscored": True,
        },
        {
            "order": None,
            "hidden": frozenset(),
            "title": "",
            "report": True,
            "report_scope": None,
            "resume_unasked": False,
            "hide_queries": False,
            "unscored": False,
        },
    ),
    (
        InstanceStatus,
        {
            "idx": 3,
            "reward": 1.0,
            "finished": True,
            "path": Path("r.jsonl"),
            "reason": "submit",
            "submitted_at": "2026-01-01T00:00:00Z",
            "submissions": 1,
            "conversation_over": True,
        },
        {"reason": None, "submitted_at": None, "submissions": 0, "conversation_over": False},
    ),
    (
        DialogueSettings,
        {
            "interactive": True,
            "user_model": "m",
            "user_api_base": "http://127.0.0.1:1/v1",
            "user_temperature": 0.5,
            "max_user_turns": 3,
            "user_kind": "human",
            "user_brief": "rich",
        },
        {
            "interactive": False,
            "user_api_base": None,
            "user_temperature": None,
            "user_kind": "model",
            "user_brief": None,
        },
    ),
    (TaskType, {"code": "c", "abbreviation": "C", "name": "N", "persona": "P", "answer": "A"}, {}),
    (Metadata, {"required": "r", "optional": "o"}, {"required": "", "optional": ""}),
    (HubSource, {"repo": "Salesforce/CRMArena", "config": None, "split": "test"}, {}),
    (Workspace, {"org": "org", "tasks": (1, 2), "tasks_label": "sample"}, {}),
    (
        IdCheck,
        {
            "mentioned": 4,
            "found": 1,
            "by_object": {"Case": (4, 1)},
            "missing_examples": ["x"],
            "seconds": 0.5,
        },
        {"mentioned": 0, "found": 0, "by_object": {}, "missing_examples": [], "seconds": 0.0},
    ),  # fmt: skip
    (
        Validation,
        {"problems": ["p"], "warnings": ["w"], "schema": None, "sources": {"Case": "case"}},
        {"problems": [], "warnings": [], "schema": None, "sources": {}},
    ),
    (Sources, {"org": "org", "tasks": (1,), "tasks_label": "x", "check": None}, {"check": None}),
]


@pytest.mark.parametrize("cls,values,defaults", CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_a_value_class_behaves_as_its_dataclass_did(
    cls: type, values: dict[str, Any], defaults: dict[str, Any]
) -> None:
    names = list(values)
    assert list(cls.FIELDS) == names  # type: ignore[attr-defined]
    by_keyword = cls(**values)
    by_position = cls(*values.values())
    assert by_keyword == by_position
    assert [getattr(by_keyword, name) for name in names] == list(values.values())
    shown = ", ".join(f"{name}={value!r}" for name, value in values.items())
    assert repr(by_keyword) == f"{cls.__qualname__}({shown})"
    required = {name: value for name, value in values.items() if name not in defaults}
    least = cls(**required)
    assert {name: getattr(least, name) for name in defaults} == defaults
    for name in names:  # any field that differs makes them unequal
        other = dict(values, **{name: _other(values[name])})
        assert cls(**other) != by_keyword
    assert by_keyword != tuple(values.values())  # never equal to another type
    assert pickle.loads(pickle.dumps(by_keyword)) == by_keyword
    assert copy.deepcopy(by_keyword) == by_keyword
    if issubclass(cls, FrozenValue):
        assert hash(cls(**values)) == hash(by_keyword)
        with pytest.raises(AttributeError):
            setattr(by_keyword, names[0], values[names[0]])
    else:  # mutable, as the dataclass was: assignable, unhashable
        setattr(by_keyword, names[0], "changed")
        assert getattr(by_keyword, names[0]) == "changed"
        with pytest.raises(TypeError):
            hash(by_keyword)


def _other(value: Any) -> Any:
    """A value unequal to ``value``."""
    if isinstance(value, bool) or value is None:
        return "other" if value is None else not value
    if isinstance(value, frozenset):
        return frozenset({99})
    if isinstance(value, tuple):
        return (*value, 99)
    if isinstance(value, Path):
        return value / "other"
    return value * 2 + 1 if isinstance(value, int | float) else f"{value}-other"


def test_replaced_is_what_dataclasses_replace_did() -> None:
    policy = PickerPolicy(title="S", hidden=frozenset({2}))
    changed = policy.replaced(hide_queries=True, unscored=True)
    assert changed == PickerPolicy(
        title="S", hidden=frozenset({2}), hide_queries=True, unscored=True
    )
    assert policy.hide_queries is False  # the original is unchanged
    with pytest.raises(TypeError):
        policy.replaced(colour="red")


def test_mutable_defaults_are_new_each_time() -> None:
    first, second = IdCheck(), IdCheck()
    first.missing_examples.append("x")
    assert second.missing_examples == [] and Validation().problems == []
    assert IdCheck(mentioned=4, found=1).missing == 3 and IdCheck(mentioned=4).mostly_missing


def test_an_instance_compares_as_its_dataclass_did() -> None:
    """Equal over every field but ``extra`` (never compared, hashed or shown); hashed without
    its answer (a CRMArena-Pro answer is a list), so instances stay usable as keys."""
    fields = {"idx": 1, "task": "t", "query": "q", "metadata": Metadata("r"), "reward_metric": "m"}
    listed = Instance(**fields, answer=["a", None], extra={"x": 1})
    assert listed == Instance(**fields, answer=["a", None]) and {listed: 1}
    assert hash(listed) == hash(Instance(**fields, answer="other"))
    assert listed != Instance(**fields, answer=["a"])
    assert listed != Instance(**{**fields, "persona": "p"}, answer=["a", None])
    assert Instance(**fields, answer=None).extra == {}
    assert repr(listed) == (
        "Instance(idx=1, task='t', query='q', answer=['a', None], "
        "metadata=Metadata(required='r', optional=''), reward_metric='m', persona=None)"
    )
    with pytest.raises(AttributeError):
        listed.answer = "b"  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(listed)) == listed


def test_play_policy_and_tally_keep_their_methods() -> None:
    assert PlayPolicy(time_limit_s=10.0).time_left(4.0) == 6.0
    assert PlayPolicy().time_left(4.0) is None
    assert str(Tally(right=1, untouched=2)) == "1 right · 0 wrong · 0 unfinished · 2 not started"
