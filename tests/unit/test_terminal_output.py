"""Task, org and recording text reaches the terminal through the one sanitiser.

A task file whose query holds ``ESC[2J``, OSC 52 (clipboard), OSC 8 (link) and OSC 0 (title),
annotators named with ``ESC[31m`` or U+202E, answers holding NUL and C1 bytes: ``tasks
list/show``, ``report`` (table, md, csv, json) and ``compare`` (md, json) print none of those
characters raw. People's formats show them escaped (``\\x1b[31m``; CSV too, the same text as
the table); JSON keeps them exactly as its own ``\\u`` escapes.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from crmtui.cli import main
from crmtui.record.recorder import Recorder
from crmtui.sanitise import UNSAFE
from tests.unit.data.rowkit import make_row

QUERY = (
    "Clear\x1b[2J clip\x1b]52;c;cHduZWQ=\x07 link\x1b]8;;http://evil/\x1b\\here\x1b]8;;\x1b\\ "
    "title\x1b]0;PWNED\x07 rlo\u202eevil"
)
ACTORS = ("ann\x1b[31m", "bob\u202eevil")
ANSWERS = ("a\x00b\x9b31mc", "x\x1b]52;c;eA==\x07")


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    try:
        main(list(argv))
    except SystemExit as exc:
        assert exc.code in (0, None), capsys.readouterr().err
    captured = capsys.readouterr()
    said = captured.out + captured.err
    found = UNSAFE.search(said)
    assert found is None, f"raw {found.group()!r} in: {said[max(0, found.start() - 60) :][:160]!r}"
    return captured.out


@pytest.fixture
def hostile_tasks(tmp_path: Path) -> Path:
    rows = [make_row(0, query=QUERY, answer="ans\x1b[31m"), make_row(1, persona="p\x1b[2J")]
    rows[1]["metadata"]["required"] = "req\x1b]52;c;eA==\x07\nsecond line"
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    return path


@pytest.fixture
def hostile_recordings(tmp_path: Path) -> Path:
    folder = tmp_path / "recs"
    instance = {"idx": 3, "task": "handle_time", "query": QUERY, "reward_metric": "exact_match"}
    org = {"path": None, "digest": "d", "name": "o"}
    for actor, answer in zip(ACTORS, ANSWERS, strict=True):
        rec = Recorder.create(
            folder, actor={"kind": "human", "id": actor}, instance=instance, org=org,
            tasks_source="t", fsync=False,
        )  # fmt: skip
        rec.emit(
            "run_query",
            {"text": "SELECT Id FROM Case\x1b[2J", "kind": "soql", "rows": 1, "ms": 1.0,
             "error_code": None, "error": None},
        )  # fmt: skip
        gold = "g\x1b]0;x\x07"
        rec.emit("submit", {"answer": answer, "reward": 0.0, "scoring": "exact", "gold": gold})
        rec.close("next", 0.0)
    return folder


def test_tasks_list_and_show_print_escapes_visibly(
    hostile_tasks: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "250")
    out = _run(capsys, "tasks", "list", "--tasks", str(hostile_tasks), "--show-answers")
    assert "Clear\\x1b[2J clip\\x1b]52;c;cHduZWQ=\\x07" in out and "ans\\x1b[31mred" not in out
    out = _run(capsys, "tasks", "show", "0", "--tasks", str(hostile_tasks), "--show-answer")
    assert "\\x1b]0;PWNED\\x07" in out and "rlo\\u202eevil" in out
    out = _run(capsys, "tasks", "show", "1", "--tasks", str(hostile_tasks))
    assert "p\\x1b[2J" in out and "req\\x1b]52;c;eA==\\x07" in out and "second line" in out


@pytest.mark.parametrize("fmt", ["table", "md", "csv", "json"])
def test_report_shows_hostile_annotator_names_escaped(
    hostile_recordings: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    out = _run(capsys, "report", str(hostile_recordings), "--format", fmt)
    if fmt == "json":
        labels = {actor["id"] for actor in json.loads(out)["actors"]}
        assert labels == set(ACTORS)  # exact, through JSON's own escapes
        return
    if fmt == "csv":
        names = {row["actor_id"] for row in csv.DictReader(io.StringIO(out))}
        assert names == {"ann\\x1b[31m", "bob\\u202eevil"}  # the table's text, escaped
        return
    assert "ann\\x1b[31m" in out.replace("\\\\", "\\") and "bob\\u202eevil" in out.replace(
        "\\\\", "\\"
    )


@pytest.mark.parametrize("fmt", ["md", "json"])
def test_compare_never_prints_nul_or_c1_from_answers(
    hostile_recordings: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    files = sorted(str(p) for p in hostile_recordings.rglob("*.jsonl"))
    out = _run(capsys, "compare", *files, "--format", fmt, "--no-rerun")
    if fmt == "json":
        answers = {actor["answer"] for actor in json.loads(out)["actors"]}
        assert answers == set(ANSWERS)
    else:
        assert "a\\x00b\\x9b31mc" in out.replace("\\\\", "\\")
