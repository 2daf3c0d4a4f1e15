"""Batch bookkeeping: results file shape, resume, concurrency, and a clean stop."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from crmtui.agent.batch import BatchConfig, run_batch
from crmtui.agent.batch_files import find_done, summarize
from crmtui.errors import ConfigError
from crmtui.record.sessions import find_unfinished
from crmtui.record.verify import load, verify
from tests.fakes.openai_server import delayed, text
from tests.unit.batch.scripted import gold_text, solving_script

UPSTREAM_KEYS = {"task_id", "task_type", "gt_answer", "reward", "agent_info", "traj"}
AGENT_INFO_KEYS = {"observation_sizes", "end_reason", "usage", "total_cost", "num_turns"}


def _pick(tasks: Any, n: int, task: str | None = None) -> list[Any]:
    return [inst for inst in tasks if task is None or inst.task == task][:n]


def _when_requests(server: Any, count: int, action: Any) -> threading.Thread:
    """Run ``action`` (in a thread) once the server has received ``count`` requests."""

    def watch() -> None:
        deadline = time.monotonic() + 30
        while len(server.requests) < count and time.monotonic() < deadline:
            time.sleep(0.005)
        action()

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


def _results(path: Path) -> list[dict[str, Any]]:
    return json.loads(path.read_text(encoding="utf-8"))


def test_results_file_has_upstreams_shape(routing, make_config, tasks, org) -> None:
    picked = _pick(tasks, 3, "handle_time")
    server = routing({inst: solving_script(inst, "react") for inst in picked})
    config = make_config(server, task="HTU", limit=3)

    report = run_batch(config, org=org, tasks=tasks)

    assert report.results_path == config.out / "results_openai-fake_react_handle_time.json"
    entries = _results(report.results_path)
    assert [e["task_id"] for e in entries] == [i.idx for i in picked]
    for entry, inst in zip(entries, picked, strict=True):
        assert set(entry) == UPSTREAM_KEYS | {"crmtui"}
        assert set(entry["agent_info"]) == AGENT_INFO_KEYS
        assert entry["task_type"] == "handle_time" and entry["gt_answer"] == inst.answer
        assert entry["reward"] == 1 and isinstance(entry["reward"], int)
        usage = entry["agent_info"]["usage"]
        assert set(usage) == {"cost", "completion_tokens", "prompt_tokens", "total_tokens"}
        assert len(usage["prompt_tokens"]) == 2 and entry["agent_info"]["num_turns"] == [0, 1]
        assert entry["crmtui"]["steps"] == 2 and entry["crmtui"]["outcome"] == "right"
        assert entry["crmtui"]["settings"]["model"] == "openai/fake"
        assert entry["agent_info"]["end_reason"]["message"] == "Submit action"
        assert entry["traj"][0]["role"] == "system" and entry["traj"][1]["role"] == "user"
    assert not list(config.out.glob(".*.tmp"))
    (row,) = report.summary
    assert (row.task, row.n, row.accuracy, row.mean_turns) == ("handle_time", 3, 1.0, 2.0)


def test_resume_skips_finished_instances(routing, make_config, tasks, org) -> None:
    picked = _pick(tasks, 4, "handle_time")
    server = routing({inst: solving_script(inst, "react") for inst in picked})
    first = make_config(server, task="HTU", limit=2)
    report = run_batch(first, org=org, tasks=tasks)
    assert [o.idx for o in report.outcomes] == [picked[0].idx, picked[1].idx]
    calls = len(server.requests)

    again = make_config(server, task="HTU", limit=4)
    seen: list[Any] = []
    report = run_batch(
        again, org=org, tasks=tasks, on_start=lambda t: seen.append((t.total, t.skipped))
    )

    assert seen == [(2, 2)]
    assert sorted(o.idx for o in report.outcomes) == [picked[2].idx, picked[3].idx]
    assert len(server.requests) - calls == 4  # two instances x two steps, nothing re-run
    assert [e["task_id"] for e in _results(report.results_path)] == [i.idx for i in picked]
    assert report.summary[-1].n == 4

    # Another run (another id) finds nothing of this one's to skip.
    assert find_done(again.recordings, run_id="another-run") == {}


def test_concurrency_two_gives_the_same_results_as_one(
    routing, make_config, tasks, org, tmp_path
) -> None:
    picked = [inst for inst in tasks][::9][:8]
    shapes = []
    for k in (1, 2):
        server = routing({inst: solving_script(inst, "react") for inst in picked})
        config = make_config(
            server, idxs=tuple(i.idx for i in picked), concurrency=k, out=tmp_path / f"k{k}"
        )
        report = run_batch(config, org=org, tasks=tasks)
        entries = _results(report.results_path)
        for entry in entries:  # only measured quantities may differ between runs
            entry["agent_info"].pop("total_cost")
            entry["agent_info"]["usage"].pop("cost")
            facts = entry.pop("crmtui")
            assert facts["outcome"] == "right" and facts["recording"].startswith("recordings/")
        shapes.append(entries)
    assert [e["task_id"] for e in shapes[0]] == sorted(i.idx for i in picked)
    assert shapes[0] == shapes[1]


def test_stop_mid_run_leaves_consistent_files(routing, make_config, tasks, org) -> None:
    picked = _pick(tasks, 6)
    slow = [delayed(0.6, text("<thought>t</thought><execute>SELECT Id FROM User</execute>"))]
    scripts = {
        inst: [*slow, text(f"<respond>{gold_text(inst.answer)}</respond>")] for inst in picked
    }
    server = routing(scripts)
    stop = threading.Event()
    config = make_config(server, idxs=tuple(i.idx for i in picked), concurrency=2)
    # The stop arrives while the first two instances wait for their first (slow) reply;
    # nothing else may start.
    watcher = _when_requests(server, 2, stop.set)
    report = run_batch(config, org=org, tasks=tasks, stop=stop)
    watcher.join()

    assert report.stopped
    assert len(report.outcomes) == 2
    for outcome in report.outcomes:
        assert outcome.result.end_reason == {"source": "runner", "message": "Interrupted"}
        assert not outcome.done
        assert verify(outcome.path).ok
        end = load(outcome.path).end
        assert end is not None and end.payload["reason"] == "Interrupted"
    assert find_unfinished(config.recordings) == []
    assert not report.results_path.exists() or _results(report.results_path) == []
    assert report.tally.interrupted == 2

    # Resuming runs everything: interrupted attempts do not count as done.
    server = routing({inst: solving_script(inst, "react") for inst in picked})
    report = run_batch(make_config(server, idxs=config.idxs), org=org, tasks=tasks)
    assert report.tally.skipped == 0 and report.tally.finished == 6
    assert [e["task_id"] for e in _results(report.results_path)] == [i.idx for i in picked]


def test_missing_results_entry_is_rebuilt_from_the_recording(
    routing, make_config, tasks, org
) -> None:
    picked = _pick(tasks, 2)
    server = routing({inst: solving_script(inst, "react") for inst in picked})
    config = make_config(server, idxs=tuple(i.idx for i in picked))
    report = run_batch(config, org=org, tasks=tasks)
    report.results_path.unlink()

    report = run_batch(config, org=org, tasks=tasks)

    assert report.tally.skipped == 2 and report.outcomes == []
    entries = _results(report.results_path)
    assert [e["task_id"] for e in entries] == [i.idx for i in picked]
    assert all(e["crmtui"]["reward"] == 1.0 for e in entries)
    assert entries[0]["agent_info"]["num_turns"] == [0, 1]
    assert entries[0]["crmtui"]["steps"] == 2


def test_summary_rows_per_task_type_then_all() -> None:
    def entry(task: str, reward: Any, cost: float, turns: int) -> dict[str, Any]:
        usage = {"prompt_tokens": [1] * turns}
        return {
            "task_type": task,
            "reward": reward,
            "agent_info": {"total_cost": cost, "usage": usage},
        }

    rows = summarize(
        [
            entry("best_region_identification", 1.0, 0.2, 2),
            entry("handle_time", 0.0, 0.1, 4),
            entry("handle_time", 1.0, 0.3, 2),
            entry("knowledge_qa", {"f1": 0.5}, 0.0, 1),
        ]
    )
    assert [r.task for r in rows] == [
        "handle_time",
        "knowledge_qa",
        "best_region_identification",
        "all",
    ]
    assert rows[0].accuracy == 0.5 and rows[0].n == 2 and rows[0].mean_turns == 3.0
    assert rows[0].mean_cost == pytest.approx(0.2)
    assert rows[1].accuracy == 0.5
    assert rows[-1].n == 4 and rows[-1].accuracy == pytest.approx(2.5 / 4)


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("concurrency", 0, "--concurrency"),
        ("max_turns", 0, "--max-turns"),
        ("time_limit_s", 0, "--time-limit"),
        ("model", " ", "--model"),
    ],
)
def test_bad_settings_are_config_errors(field, value, message) -> None:
    config = BatchConfig(**{"model": "openai/x", field: value})
    with pytest.raises(ConfigError, match=message):
        config.check()


def test_recordings_left_open_by_a_killed_run_are_closed_and_rerun(
    routing, make_config, tasks, org
) -> None:
    from crmtui.agent.session import AgentSession
    from crmtui.agent.strategies import make_strategy

    (inst,) = _pick(tasks, 1)
    server = routing({inst: solving_script(inst, "react")})
    config = make_config(server, idxs=(inst.idx,))
    killed = AgentSession.begin(
        inst,
        org,
        model=config.model,
        strategy=make_strategy("react"),
        tasks_source=config.tasks_label,
        recordings=config.recordings,
        fsync=False,
    )
    killed.recorder.emit("thought", {"text": "then the process died"})
    killed.recorder.suspend()  # the file is left without an end event

    report = run_batch(config, org=org, tasks=tasks)

    assert report.tally.finished == 1 and report.outcomes[0].reward == 1.0
    assert find_unfinished(config.recordings) == []
    end = load(killed.path).end
    assert end is not None and end.payload["reason"] == "abandoned"


def test_results_file_text_is_exactly_json_dump_indent_2(tmp_path) -> None:
    from crmtui.agent.batch_files import ResultsFile

    results = ResultsFile(tmp_path / "results.json")
    results.write()
    assert results.path.read_text(encoding="utf-8") == "[]\n"
    tricky = {"task_id": 2, "traj": [{"content": 'a\nb\u2028c ✓ "q"', "x": None}], "r": {}}
    results.set(tricky)
    results.set({"task_id": 1, "reward": 1.0, "agent_info": {"usage": {"cost": [None, 0.5]}}})
    results.write()
    expected = json.dumps(results.ordered(), indent=2, ensure_ascii=False) + "\n"
    assert results.path.read_text(encoding="utf-8") == expected
    assert json.loads(expected)[1] == tricky


def test_a_real_ctrl_c_stops_cleanly(routing, make_config, tasks, org) -> None:
    import os
    import signal

    picked = _pick(tasks, 4)
    slow = text("<execute>SELECT Id FROM User</execute>")
    scripts = {inst: [delayed(0.6, slow), text("<respond>None</respond>")] for inst in picked}
    server = routing(scripts)
    config = make_config(server, idxs=tuple(i.idx for i in picked), concurrency=2)
    watcher = _when_requests(server, 2, lambda: os.kill(os.getpid(), signal.SIGINT))

    report = run_batch(config, org=org, tasks=tasks)  # the SIGINT must not escape
    watcher.join()

    assert report.stopped and report.tally.interrupted == 2
    assert {o.result.end_reason["message"] for o in report.outcomes} == {"Interrupted"}
    assert all(verify(o.path).ok for o in report.outcomes)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
