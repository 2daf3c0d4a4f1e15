"""The report recomputes rewards from the task's gold and flags forged ones."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from crmtui.cli import main
from crmtui.record import Recorder, verify
from crmtui.record.format import sealed_line
from crmtui.review.recheck import AGREES, DIFFERS, NO_TASK
from crmtui.review.report import report_folder
from crmtui.review.report_format import to_json, to_table_text
from tests.unit.data.rowkit import make_row

GOLD = "005Ws000001aaaaIAA"


def _tasks(tmp_path: Path) -> Path:
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps([make_row(5), make_row(6)]), encoding="utf-8")
    return path


def _session(root: Path, tasks: Path, idx: int, answer: str, reward: float, sid: str) -> Path:
    row = make_row(idx)
    rec = Recorder.create(
        root,
        actor={"kind": "model", "id": "m", "strategy": "react"},
        instance=row,
        org={"path": None, "digest": None, "name": None},
        tasks_source=str(tasks),
        session_id=sid * 32,
        fsync=False,
    )
    rec.emit(
        "submit", {"answer": answer, "reward": reward, "scoring": "strict", "gold": row["answer"]}
    )
    rec.close("finished", reward)
    return rec.path


def _forge(path: Path, change: Any) -> None:
    """Edit events with ``change`` and re-chain every line after the header (a careful forger)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    prev = header["hash"]
    out = [lines[0]]
    for text in lines[1:]:
        event = json.loads(text)
        change(event)
        event["prev"] = prev
        sealed, line = sealed_line({k: v for k, v in event.items() if k != "hash"})
        prev = sealed["hash"]
        out.append(line.rstrip("\n"))
    path.write_text("\n".join(out) + "\n", encoding="utf-8")


def _reward_to(value: float) -> Any:
    def change(event: dict[str, Any]) -> None:
        if event["type"] in ("submit", "end"):
            event["payload"]["reward"] = value

    return change


def test_a_rechained_forged_reward_is_flagged_and_recomputed(tmp_path: Path) -> None:
    tasks = _tasks(tmp_path)
    root = tmp_path / "recs"
    honest = _session(root, tasks, 5, GOLD, 1.0, "a")
    forged = _session(root, tasks, 6, "005Ws000009zzzzIAA", 0.0, "b")
    _forge(forged, _reward_to(1.0))
    assert verify(forged).ok  # the chain holds: only the task can tell

    report = report_folder(root)
    outcomes = {c.path: c.outcome for c in report.reward_checks}
    assert outcomes == {honest: AGREES, forged: DIFFERS}
    cell = report.rows[0].accuracy["handle_time"]
    assert cell.value == 0.5 and cell.n == 2
    text = to_table_text(report)
    assert "Rewards recomputed from the task's gold: 1 agreed, 1 disagreed." in text
    assert "DISAGREES:" in text and "recorded reward 1.0, recomputed 0.0" in text
    flagged = json.loads(to_json(report))["reward_checks"]
    assert [c["recomputed"] for c in flagged] == [0.0]


def test_an_absurd_reward_is_refused_by_verify_and_never_reaches_accuracy(
    tmp_path: Path, capsys: Any
) -> None:
    tasks = _tasks(tmp_path)
    root = tmp_path / "recs"
    forged = _session(root, tasks, 5, "wrong", 0.0, "c")
    _forge(forged, _reward_to(1e308))
    report = verify(forged)
    assert not report.ok and "'reward' must be a number from 0 to 1" in str(report.problem)
    main(["report", str(root), "--format", "json"])
    out = capsys.readouterr().out
    assert "Infinity" not in out and "inf" not in out.lower().replace("info", "")
    assert json.loads(out)["skipped"][0]["path"] == str(forged)


def test_without_the_task_file_the_recorded_reward_stands(tmp_path: Path) -> None:
    tasks = _tasks(tmp_path)
    root = tmp_path / "recs"
    _session(root, tasks, 5, GOLD, 1.0, "d")
    tasks.unlink()
    report = report_folder(root)
    assert [c.outcome for c in report.reward_checks] == [NO_TASK]
    assert report.rows[0].accuracy["handle_time"].value == 1.0


def test_export_of_a_forged_huge_idx_is_one_error_line(tmp_path: Path, capsys: Any) -> None:
    from crmtui.record.format import object_hash

    tasks = _tasks(tmp_path)
    root = tmp_path / "recs"
    path = _session(root, tasks, 5, GOLD, 1.0, "e")
    lines = path.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header["instance"]["idx"] = 10**30
    header["hash"] = object_hash({k: v for k, v in header.items() if k != "hash"})
    path.write_text(json.dumps(header) + "\n" + "\n".join(lines[1:]) + "\n", encoding="utf-8")
    _forge(path, lambda event: None)  # re-chain the events onto the new header
    report = verify(path)
    assert not report.ok and "idx of 31 digits is out of range" in str(report.problem)
    try:
        main(["export", str(root), "--format", "hf", "--out", str(tmp_path / "s.parquet")])
    except SystemExit as exc:
        assert exc.code == 2
    err = capsys.readouterr().err
    assert err.startswith("Error: no valid recordings to export") and err.count("\n") == 1
