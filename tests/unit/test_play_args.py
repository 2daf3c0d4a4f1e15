"""A plain ``crmtui play`` read without click starts exactly what click would start.

:func:`crmtui.cli.main` reads ``crmtui`` and ``crmtui play`` with the everyday options itself
(:mod:`crmtui.commands.play_run`: click and the command's options cost ~11 ms of a cold
start). For any command line, either the plain reading gives the same config and dialogue
settings as click's, or it declines and click reads it (usage errors included).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crmtui import cli, startup
from crmtui.commands import play_run
from crmtui.commands.play_run import read_play_args


@contextmanager
def _capturing() -> Iterator[list[tuple[Any, Any]]]:
    """What each ``run_play`` call is given, instead of a workspace and an app (and no
    pause of the collector)."""
    calls: list[tuple[Any, Any]] = []
    run_play, pause = play_run.run_play, startup.pause_collector
    play_run.run_play = lambda config, dialogue: calls.append((config, dialogue))
    startup.pause_collector = lambda *a, **k: None
    try:
        yield calls
    finally:
        play_run.run_play, startup.pause_collector = run_play, pause


def _plainly(args: list[str]) -> tuple[Any, Any] | None:
    """What ``crmtui play ARGS`` starts when :func:`crmtui.cli.main` reads them itself."""
    with _capturing() as calls:
        if not play_run.play_plainly(args):
            return None
    assert len(calls) == 1
    return calls[0]


def _through_click(args: list[str] | None) -> tuple[Any, Any] | str:
    """What click's ``crmtui play ARGS`` (None: ``crmtui``) starts; ``"usage"`` for a
    usage error."""
    from crmtui.commands.group import cli as group

    with _capturing() as calls:
        try:
            group.main(args=[] if args is None else ["play", *args], prog_name="crmtui",
                       standalone_mode=False)  # fmt: skip
        except click.UsageError:
            return "usage"
    assert len(calls) == 1
    return calls[0]


EXAMPLES = [
    [],
    ["--annotator", "ann"],
    ["--annotator=ann", "--aided"],
    ["--org", "sample-b2b", "--task", "HTU", "--idx", "3", "--force"],
    ["--tasks=hf:Salesforce/CRMArena-Pro:b2b_interactive"],  # implies --interactive
    ["--tasks", "sample", "--org=sample"],
    ["--recordings", "{tmp}/rec", "--idx=0"],
]


@pytest.mark.parametrize("args", EXAMPLES, ids=" ".join)
def test_the_plain_reading_starts_what_click_starts(args: list[str], tmp_path: Path) -> None:
    args = [a.format(tmp=tmp_path) for a in args]
    plain = _plainly(args)
    assert plain is not None and plain == _through_click(args)


def test_crmtui_alone_is_a_plain_play(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _plainly([]) == _through_click(None)
    taken: list[list[str]] = []
    monkeypatch.setattr(play_run, "play_plainly", lambda args: taken.append(args) or True)
    assert cli.main([]) is None and cli.main(["play", "--aided"]) is None
    assert taken == [[], ["--aided"]]


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["--interactive"],  # an option it does not read
        ["--annotator"],  # no value
        ["--annotator", "a", "--annotator", "b"],  # twice
        ["--annotator", "-x"],
        ["--annotator="],
        ["--idx", "x"],
        ["--idx", "٣"],  # a digit, but not one click's int() reads the same way
        ["--aided=yes"],
        ["extra"],
        ["--study", "s"],
    ],
    ids=" ".join,
)
def test_anything_unusual_is_left_to_click(args: list[str]) -> None:
    assert read_play_args(args) is None


def test_recordings_naming_a_file_is_left_to_click(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("")
    assert read_play_args(["--recordings", str(tmp_path / "f")]) is None
    assert read_play_args(["--recordings", str(tmp_path)]) == {"recordings": tmp_path}


TOKENS = st.sampled_from(
    [
        "--annotator", "--org", "--tasks", "--task", "--idx", "--recordings", "--aided",
        "--force", "--idle", "--help", "ann", "sample", "7", "-1", "", "=", "--org=x",
        "--idx=2", "--idx=two", "HTU", "x y",
    ]
)  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(st.lists(TOKENS, max_size=6))
def test_any_command_line_is_read_as_click_reads_it_or_left_to_click(args: list[str]) -> None:
    plain = _plainly(args)
    if plain is not None:
        assert plain == _through_click(args)
