"""Recordings made on another machine's sample org find this machine's identical sample."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from crmtui.org.sample import ensure_sample
from crmtui.record.recorder import Recorder
from crmtui.record.verify import load
from crmtui.review.replay_org import open_recorded_org
from crmtui.review.rerun import result_ids_for


def _recording(tmp_path: Path, digest: str) -> Path:
    recorder = Recorder.create(
        tmp_path / "r.jsonl",
        actor={"kind": "human", "id": "ann"},
        instance={"idx": 1, "task": "handle_time", "query": "q", "reward_metric": "exact_match"},
        org={"path": "/elsewhere/orgs/sample.db", "digest": digest, "name": "sample"},
        tasks_source="sample",
        today=dt.date(2024, 1, 1),
        wall=lambda: dt.datetime(2026, 1, 1, tzinfo=dt.UTC),
        monotonic=lambda: 0.0,
        fsync=False,
    )
    recorder.emit(
        "run_query",
        {
            "text": "SELECT Id FROM Issue__c",
            "kind": "soql",
            "rows": 12,
            "ms": 1.0,
            "error_code": None,
            "error": None,
        },
    )
    recorder.close("finished")
    return recorder.path


def test_moved_sample_recording_uses_the_local_sample(tmp_path: Path) -> None:
    sample = ensure_sample()
    recording = load(_recording(tmp_path, sample.digest))
    org, check = open_recorded_org(recording)
    assert org is not None and check.ok
    assert Path(org.path) == Path(sample.path)
    runner, note = result_ids_for(recording)
    assert runner is not None and "re-run" in note


def test_a_different_sample_is_reported_as_changed(tmp_path: Path) -> None:
    recording = load(_recording(tmp_path, "f" * 64))
    org, check = open_recorded_org(recording)
    assert org is not None and check.status == "changed"
