"""The study folder: study.toml round trip, names, errors, and the tiny TOML writer."""

from __future__ import annotations

import datetime as dt
import json
import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crmtui.errors import ConfigError
from crmtui.study import StudyError, StudyRequest, create_study, load_study
from crmtui.study.definition import Settings, study_folder
from crmtui.study.toml_text import dumps
from tests.unit.study.helpers import workspace

NOW = dt.datetime(2026, 3, 1, 9, 0, tzinfo=dt.UTC)


@pytest.fixture(autouse=True)
def studies_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CRMTUI_STUDIES", str(tmp_path / "studies"))
    return tmp_path / "studies"


def make(name: str = "pilot", **kwargs: object) -> tuple[object, dict[str, str]]:
    request = StudyRequest(
        name=name,
        annotators=kwargs.pop("annotators", ["ann", "ben", "cat"]),  # type: ignore[arg-type]
        per_type=kwargs.pop("per_type", 4),  # type: ignore[arg-type]
        shared=0.5,
        overlap=2,
        seed=3,
        practice=2,
        settings=Settings(reveal_gold=False, time_limit_s=600.0),
        **kwargs,  # type: ignore[arg-type]
    )
    return create_study(request, workspace=workspace(), now=NOW)


def test_created_study_reads_back_identically(studies_here: Path) -> None:
    study, tokens = make()
    assert study.folder == studies_here / "pilot"
    assert load_study("pilot") == study
    assert load_study(str(study.folder)) == study  # by path too
    doc = tomllib.loads(study.definition_path.read_text())
    assert doc["design"]["instances"]["handle_time"] == sorted(
        idx for idx, code in study.design.types.items() if code == "handle_time"
    )
    assert doc["play"] == {
        "aided": False,
        "reveal_gold": False,
        "time_limit_s": 600.0,
        "idle_s": 60.0,
    }
    # Gold answers never reach the study folder.
    for path in study.folder.rglob("*"):
        if path.is_file():
            text = path.read_text()
            assert "005Ws0000000001AAA" not in text and "rubber sole" not in text
    assert sorted(tokens) == ["ann", "ben", "cat"]
    assert (study.folder / "recordings").is_dir()


def test_practice_is_outside_the_pool_and_first_for_everyone() -> None:
    study, _ = make()
    assert len(study.practice) == 2
    assert not set(study.practice) & set(study.design.types)
    for item in study.assignments.values():
        assert item.practice == study.practice


def test_explicit_idx_list() -> None:
    study, _ = make("listed", per_type=None, idx=[0, 1, 2, 100, 101, 102])
    assert study.pool == [0, 1, 2, 100, 101, 102]
    assert study.per_type is None
    with pytest.raises(ConfigError, match="no instance with idx 77"):
        make("bad", per_type=None, idx=[0, 77])


def test_refusals() -> None:
    make()
    with pytest.raises(StudyError, match="already exists"):
        make()
    with pytest.raises(ConfigError, match="annotator name 'a b'"):
        make("other", annotators=["a b"])
    with pytest.raises(ConfigError, match="either --per-type N or --idx"):
        make("both", idx=[1])
    with pytest.raises(StudyError, match="no study 'nope'"):
        load_study("nope")


def test_a_damaged_definition_is_named(studies_here: Path) -> None:
    study, _ = make()
    study.definition_path.write_text("name = [unclosed\n")
    with pytest.raises(StudyError, match="not valid TOML"):
        load_study("pilot")
    study.definition_path.write_text('name = "x"\n')
    with pytest.raises(StudyError, match="missing or malformed"):
        load_study("pilot")


def test_names_and_paths(studies_here: Path) -> None:
    assert study_folder("pilot") == studies_here / "pilot"
    assert study_folder("./elsewhere/s1") == Path("elsewhere/s1")
    with pytest.raises(ConfigError):
        study_folder("x y")


_KEYS = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=8)
_VALUES = st.one_of(
    st.booleans(),
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=20),
    st.lists(st.integers(-1000, 1000), max_size=40),
    st.lists(st.text(max_size=5), max_size=5),
)


@settings(max_examples=80, deadline=None)
@given(
    top=st.dictionaries(_KEYS, _VALUES, max_size=4),
    tables=st.dictionaries(
        _KEYS,
        st.dictionaries(_KEYS, _VALUES, max_size=3).map(lambda d: d or {"k": 1}),
        max_size=3,
    ),
)
def test_toml_writer_round_trips(
    top: dict[str, object], tables: dict[str, dict[str, object]]
) -> None:
    doc: dict[str, object] = {k: v for k, v in top.items() if k not in tables}
    doc.update(tables)
    assert tomllib.loads(dumps(doc, comment="a\nb")) == json.loads(json.dumps(doc))


def test_a_key_ending_in_a_newline_is_quoted() -> None:
    # A regex "$" matches before a final newline: "a\n" was written as a bare key.
    doc = {"top\n": 1, "table\n": {"k\n": "v"}}
    assert tomllib.loads(dumps(doc)) == doc
