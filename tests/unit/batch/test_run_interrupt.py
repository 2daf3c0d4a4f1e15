"""Bounded runs: a trickling server cannot keep a run alive past its deadlines, and Ctrl-C
(a real SIGINT to a real ``crmtui run`` child) ends it at once with every file consistent."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from crmtui.agent.batch import run_batch
from crmtui.record.sessions import find_unfinished
from crmtui.record.verify import load, verify
from tests.fakes.openai_server import text, trickled
from tests.unit.batch.scripted import gold_text
from tests.waiting import PATIENCE_S, promptly

ROOT = Path(__file__).resolve().parents[3]


def _pick(tasks: Any, n: int) -> list[Any]:
    return [inst for inst in tasks if inst.task == "handle_time"][:n]


def _forever() -> Any:
    # ~16 minutes of one byte per second: only a deadline on our side ends it.
    return trickled(text("x" * 1000), 1.0)


def _wait_for(condition: Any, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.02)
    raise AssertionError("condition not met in time")


def test_a_trickling_server_ends_at_the_attempt_timeout(routing, make_config, tasks, org) -> None:
    (inst,) = _pick(tasks, 1)
    server = routing({inst: [_forever(), _forever()]})
    config = make_config(
        server, idxs=(inst.idx,), timeout=0.8, time_limit_s=60, client_options={"max_retries": 1}
    )
    began = time.monotonic()
    (outcome,) = run_batch(config, org=org, tasks=tasks).outcomes
    # Two attempts of 0.8 s plus a short backoff, not the server's 1,000 s.
    assert time.monotonic() - began < promptly(8.0, instead=1000.0)
    assert outcome.result.end_reason["kind"] == "unavailable"
    assert "did not answer within 0.8 s (gave up after 2 attempts)" in str(
        outcome.result.end_reason["content"]
    )
    assert verify(outcome.path).ok


def test_a_trickling_server_ends_at_the_instance_time_limit(
    routing, make_config, tasks, org
) -> None:
    (inst,) = _pick(tasks, 1)
    server = routing({inst: [_forever()] * 5})
    config = make_config(server, idxs=(inst.idx,), timeout=60, time_limit_s=1.0)
    began = time.monotonic()
    (outcome,) = run_batch(config, org=org, tasks=tasks).outcomes
    assert time.monotonic() - began < promptly(6.0, instead=1000.0)
    assert outcome.result.end_reason == {"source": "runner", "message": "Time limit reached"}
    assert outcome.done and verify(outcome.path).ok


def test_ctrl_c_ends_a_real_run_at_once_with_consistent_files(
    routing, tasks, built_org: Path, tmp_path: Path, api_key: str
) -> None:
    fast, *slow = _pick(tasks, 3)
    scripts = {fast: [text(f"<respond>{gold_text(fast.answer)}</respond>")]}
    scripts.update({inst: [_forever()] for inst in slow})
    server = routing(scripts)
    out = tmp_path / "out"
    argv = [
        sys.executable, "-m", "crmtui.cli", "run",
        "--model", "openai/fake", "--api-base", server.base_url,
        "--org", str(built_org), "--tasks", str(built_org.with_suffix(".tasks.json")),
        "--idx", str(fast.idx), "--idx", str(slow[0].idx), "--idx", str(slow[1].idx),
        "-k", "2", "--timeout", "600", "--out", str(out),
    ]  # fmt: skip
    env = dict(os.environ, CRMTUI_HOME=str(tmp_path / "home"), OPENAI_API_KEY=api_key)
    child = subprocess.Popen(
        argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        # The child imports litellm first (seconds on a loaded machine); then the fast
        # instance finishes and both slow ones hang in their calls.
        _wait_for(lambda: len(server.requests) >= 3, PATIENCE_S)
        results = out / "results_openai-fake_react_all.json"
        _wait_for(lambda: results.exists() and json.loads(results.read_text("utf-8")), PATIENCE_S)
        time.sleep(0.3)
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        stdout, stderr = child.communicate(timeout=PATIENCE_S)
        took = time.monotonic() - sent
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 130, stderr
    # At once, not when the hung calls' 600 s timeout ends them.
    assert took < promptly(5.0, instead=600.0), f"the run took {took:.1f} s to stop"
    assert "Traceback" not in stderr
    rows = json.loads(results.read_text(encoding="utf-8"))
    assert [r["task_id"] for r in rows] == [fast.idx]  # complete for finished instances
    recordings = sorted((out / "recordings").rglob("*.jsonl"))
    assert len(recordings) == 3 and find_unfinished(out / "recordings") == []
    ends = {}
    for path in recordings:
        assert verify(path).ok
        recording = load(path)
        assert recording.end is not None
        ends[recording.header["instance"]["idx"]] = recording.end.payload["reason"]
    assert ends == {
        fast.idx: "Submit action",
        slow[0].idx: "Interrupted",
        slow[1].idx: "Interrupted",
    }
    assert "stopped:" in stdout and not (out / ".crmtui-run.lock").read_text("utf-8")
