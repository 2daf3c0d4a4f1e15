"""A run against a hostile model or an unwritable folder ends in one clear line, never a bug.

* a tool-call model that escapes a lone surrogate (``"\\ud800"``, valid JSON) gets an
  invalid-action observation; the run goes on and writes its results file, no ``.tmp`` left;
* ``--out`` that cannot be a folder, or that is read-only when a run resumes, is refused by
  name (``ConfigError``: status 2), not an internal error.
"""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path
from typing import Any

import pytest

from crmtui.agent.batch import run_batch
from crmtui.agent.batch_files import ResultsFile
from crmtui.errors import ConfigError
from crmtui.record.verify import load
from tests.fakes.openai_server import tool_call


def test_a_lone_surrogate_escape_from_a_model_is_an_invalid_action(
    routing, make_config, tasks, org, tmp_path: Path
) -> None:
    first, second = [inst for inst in tasks if inst.answer is not None][:2]
    escaped = tool_call("respond", '{"content": "caf\\ud800"}')
    scripts = {first: [escaped, escaped], second: [escaped, escaped]}
    config = make_config(
        routing(scripts), strategy="tool_call", idxs=(first.idx, second.idx), max_turns=2
    )

    report = run_batch(config, org=org, tasks=tasks)

    assert {o.idx for o in report.outcomes} == {first.idx, second.idx}
    for outcome in report.outcomes:
        assert outcome.result.end_reason["message"] == "Invalid action"
        steps = load(outcome.path).of_type("run_query", "model_call")
        assert steps, "the attempt is recorded"
    results = json.loads(report.results_path.read_text(encoding="utf-8"))
    assert {row["task_id"] for row in results} == {first.idx, second.idx}
    assert not list(report.results_path.parent.glob(".*.tmp"))


def test_the_results_file_never_stops_at_a_surrogate_nor_leaves_a_tmp(tmp_path: Path) -> None:
    results = ResultsFile(tmp_path / "results.json")
    results.set({"task_id": 1, "answer": "caf\ud800", "nested": {"k": ["\udcff"]}})
    results.write()
    row = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))[0]
    assert row["answer"] == "caf\ufffd" and row["nested"] == {"k": ["\ufffd"]}
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]


def test_a_results_file_that_cannot_be_written_leaves_no_tmp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    results = ResultsFile(tmp_path / "results.json")
    results.set({"task_id": 1, "answer": "x"})

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(Exception, match="No space left on device") as info:
        results.write()
    assert "Errno" not in str(info.value)
    assert list(tmp_path.iterdir()) == []


def _config(make_config: Any, routing: Any, tasks: Any, out: Path) -> Any:
    inst = next(i for i in tasks if i.answer is not None)
    return make_config(routing({inst: []}), idxs=(inst.idx,), out=out)


def test_an_out_folder_that_cannot_exist_is_refused_by_name(
    routing, make_config, tasks, org, tmp_path: Path
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    config = _config(make_config, routing, tasks, blocker / "out")
    with pytest.raises(ConfigError, match="cannot write to the output folder .*a-file/out"):
        run_batch(config, org=org, tasks=tasks)


def test_a_read_only_out_folder_on_resume_is_refused_by_name(
    routing, make_config, tasks, org, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / ".crmtui-run.lock").write_text("")
    real_open = os.open

    def read_only(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
            raise OSError(errno.EROFS, "Read-only file system", str(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", read_only)
    config = _config(make_config, routing, tasks, out)
    with pytest.raises(ConfigError, match="output folder .*out: Read-only file system"):
        run_batch(config, org=org, tasks=tasks)


def test_a_resumed_run_clears_recordings_a_full_disk_left_empty(
    routing, make_config, tasks, org, tmp_path: Path
) -> None:
    from tests.unit.batch.scripted import solving_script

    inst = next(i for i in tasks if i.task == "best_region_identification")
    config = make_config(routing({inst: solving_script(inst, "react")}), idxs=(inst.idx,))
    folder = Path(config.out) / "recordings" / "openai-fake"
    folder.mkdir(parents=True)
    empty = folder / f"20260101-000000-idx{inst.idx}-00000000.jsonl"
    empty.write_bytes(b"")
    cut = folder / f"20260101-000000-idx{inst.idx}-00000001.jsonl"
    cut.write_bytes(b'{"actor":{"id":"openai/fake","kind":"mo')

    report = run_batch(config, org=org, tasks=tasks)

    assert not empty.exists() and not cut.exists()
    assert [o.idx for o in report.outcomes] == [inst.idx] and report.outcomes[0].reward == 1.0
    assert all(verify_ok(p) for p in folder.glob("*.jsonl"))


def verify_ok(path: Path) -> bool:
    from crmtui.record.verify import verify

    return verify(path).ok
